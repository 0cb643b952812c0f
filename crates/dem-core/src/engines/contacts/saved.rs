//! A contact as a checkpoint holds it, and the saving and restoring of the contact list.

use super::contact::{Contact, Slot, NONE};
use super::forces::Forces;
use super::forces::FORCES;
use super::Contacts;
use crate::engines::dispatch::Dispatch;
use crate::engines::l6geom::L6State;
use crate::model::particles::Particles;
use dem_api::Onset;
use serde::{Deserialize, Serialize};

/// A contact as a checkpoint holds it: its key, the state carried from step to step
/// (L6Geom, onset data, law state) and nothing that the next step recomputes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedContact {
    /// Live, or how it ended in the last step.
    pub end: SavedEnd,
    /// Geometry functor index.
    pub geom: u16,
    /// Law index.
    pub law: u16,
    /// Smaller particle id.
    pub a: u32,
    /// Larger particle id.
    pub b: u32,
    /// Contact term of the pair.
    pub feature: u8,
    /// True when the functor's body 1 is `b`.
    pub swap: bool,
    /// Was the contact created in the last step?
    pub new: bool,
    /// Tracked geometry.
    pub l6: L6State,
    /// Onset time (s) and normal velocity (m/s).
    pub onset: [f64; 2],
    /// Law state (the law's slots, padded with zeros to the widest law).
    pub state: Vec<f64>,
}

/// Whether a saved contact goes on. The contacts that ended in the last step are saved
/// too: the next step removes them from the list (each replaced by the last contact, see
/// `Contacts::retire`), after the broad phase's rebuild has sorted the list when one is
/// due. (Where they stand changes no result: forces and energies are summed in slot
/// order.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SavedEnd {
    /// A contact that goes on.
    Live,
    /// Ended in the last step after its last law call.
    Ending,
    /// Its functor stopped reporting it in the last step (it keeps its slot).
    Gone,
    /// Its pair left the candidate list at the last rebuild (it has no slot).
    Dropped,
}

impl Contacts {
    /// Every contact of the list (the ended ones too), in processing order, for a
    /// checkpoint.
    pub fn save(&self) -> Vec<SavedContact> {
        self.list
            .iter()
            .enumerate()
            .map(|(i, c)| SavedContact {
                end: match (c.ending, c.gone, c.slot == NONE) {
                    (_, true, true) => SavedEnd::Dropped,
                    (_, true, false) => SavedEnd::Gone,
                    (true, false, _) => SavedEnd::Ending,
                    (false, false, _) => SavedEnd::Live,
                },
                geom: c.geom,
                law: c.law,
                a: c.a,
                b: c.b,
                feature: c.feature,
                swap: c.swap,
                new: c.new,
                l6: self.geometry(i),
                onset: {
                    let o = self.onset(i);
                    [o.time, o.normal_velocity]
                },
                state: {
                    let mut v = vec![0.0; self.stride];
                    self.state.read(i, &mut v);
                    v
                },
            })
            .collect()
    }

    /// What the last step computed of contact `k` (an index of [`Contacts::list`]), which a
    /// checkpoint leaves out: the law's output (force, torque, elastic energy, friction,
    /// damping), the force on body 2 and the torques on the bodies. Ranks that put their
    /// contacts together for an output send it along (see [`crate::engines::ranks`]).
    pub fn outputs(&self, k: usize) -> [f64; FORCES] {
        self.forces(k).values()
    }

    /// Sets what [`Contacts::outputs`] gave of contact `k`.
    pub fn set_outputs(&mut self, k: usize, v: &[f64; FORCES]) {
        self.forces.store(k, &Forces::from_values(v));
    }

    /// The slots of the candidate `pairs` with the `saved` contacts in the list again, in
    /// their saved order: the state [`Contacts::save`] was given, for candidate pairs that have
    /// not been rebuilt since. Fails (with a message for a checkpoint error) when a saved
    /// contact does not fit.
    pub fn restore(
        pairs: &[(u32, u32)],
        p: &Particles,
        d: &Dispatch,
        saved: &[SavedContact],
    ) -> Result<Contacts, String> {
        let mut c = Contacts::default();
        if pairs.is_empty() && saved.is_empty() {
            return Ok(c);
        }
        c.rebuild(pairs, p, d).map_err(|e| e.to_string())?;
        c.reserve(saved.len());
        for s in saved {
            if s.state.len() != c.stride {
                return Err(format!(
                    "contact {}-{} has {} state values, the laws and geometry functors of the scene need {}",
                    s.a,
                    s.b,
                    s.state.len(),
                    c.stride
                ));
            }
            let onset = Onset {
                time: s.onset[0],
                normal_velocity: s.onset[1],
            };
            if s.end == SavedEnd::Dropped {
                // Without a slot: its pair is no candidate.
                if s.a >= s.b
                    || s.b as usize >= p.len()
                    || s.geom as usize >= d.geoms.len()
                    || s.law as usize >= d.laws.len()
                {
                    return Err(format!(
                        "ended contact {}-{} of unknown particles",
                        s.a, s.b
                    ));
                }
                c.list.push(Contact {
                    a: s.a,
                    b: s.b,
                    geom: s.geom,
                    law: s.law,
                    feature: s.feature,
                    swap: s.swap,
                    new: s.new,
                    ending: false,
                    gone: true,
                    slot: NONE,
                });
                c.push_data(&s.l6, &onset);
            } else {
                let key = (s.geom, s.law, s.a, s.b, s.feature);
                let i = c.slots.binary_search_by_key(&key, Slot::key).map_err(|_| {
                    format!(
                        "contact {}-{} (functor #{}, law #{}, term {}) is not a candidate pair \
                         of the scene",
                        s.a, s.b, s.geom, s.law, s.feature
                    )
                })?;
                if c.held.get(i).is_some() {
                    return Err(format!("contact {}-{} is saved twice", s.a, s.b));
                }
                // Only a pair of one shape kind can take either roles.
                let kind = |i: u32| p.shape[i as usize].kind();
                if s.swap != c.slots[i].swap && kind(s.a) != kind(s.b) {
                    return Err(format!(
                        "contact {}-{} gives its bodies roles its functor does not take",
                        s.a, s.b
                    ));
                }
                c.push(i, s.l6, onset, s.new);
                let k = c.list.len() - 1;
                // The slot gives the roles of a pair in storage order; a contact renamed by
                // a reordering may keep the other roles.
                let contact = &mut c.list[k];
                contact.swap = s.swap;
                contact.ending = s.end == SavedEnd::Ending;
                contact.gone = s.end == SavedEnd::Gone;
            }
            let k = c.list.len() - 1;
            c.state.write(k, &s.state);
        }
        Ok(c)
    }
}
