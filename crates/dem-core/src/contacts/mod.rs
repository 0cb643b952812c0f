//! The contact container and lifecycle.
//!
//! Every candidate pair of the broad phase has a slot per contact term of its functor
//! (one for most functors), kept sorted by `(functor, law, a, b, term)` with `a < b` the
//! particle ids; a slot is a contact while `active`. A term's forces and energies count
//! times the weight its functor reports with the geometry. Contact state (L6Geom, onset data, law state) lives in the slot and is carried
//! to the new slot list when the broad phase rebuilds, by key.
//!
//! Lifecycle with hysteresis (reference 001): a contact is created when the functor
//! reports a gap below the law's interaction distance `D`, and kept while the gap stays
//! below `D + contact_eps`. At creation the pre-impact normal velocity is stored and a
//! `begin` event is logged (target `dem::contact`, level debug); removal logs `end`. On the
//! step a contact ends, its law is called once more with `is_last` set: no force is applied
//! from that call, only the dissipation of the final interval is booked.
//!
//! Each step, slots are processed in chunks in parallel (geometry, lifecycle, L6Geom, law,
//! all pure per slot); forces are then gathered sequentially in slot order, so that the
//! sums, and thus trajectories, do not depend on the number of threads.

mod step;

use crate::dispatch::Dispatch;
use crate::error::DemError;
use crate::l6geom::{L6Options, L6State};
use crate::particles::Particles;
use dem_api::{LawOutput, Material, Onset, RawGeom};
use nalgebra::Vector3;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Slots per parallel chunk (and per batched plugin call).
const CHUNK: usize = 256;

/// One candidate pair and, while `active`, its contact.
#[derive(Clone, Debug)]
pub struct Slot {
    /// Smaller particle id.
    pub a: u32,
    /// Larger particle id.
    pub b: u32,
    /// Geometry functor index.
    pub geom: u16,
    /// Law index.
    pub law: u16,
    /// Contact term of the pair (`GeomInput::feature`), 0 for a one-term functor.
    pub feature: u8,
    /// Sum of the radii when both bodies are spheres, m (NaN otherwise): the pre-check
    /// before the geometry call reads it instead of the shapes.
    radii: f64,
    /// True when the functor's body 1 is `b`.
    pub swap: bool,
    /// Is this pair in contact?
    pub active: bool,
    /// Was the contact created this step?
    pub new: bool,
    /// Did the contact end this step (its last law call booked dissipation only)?
    pub ending: bool,
    /// Tracked geometry.
    pub l6: L6State,
    /// Data stored at onset.
    pub onset: Onset,
    /// The law's last output (local frame).
    pub out: LawOutput,
    /// Force on body 2 (global), N.
    pub force: Vector3<f64>,
    /// Torques on body 1 and body 2 (global), N m.
    pub torque: [Vector3<f64>; 2],
}

impl Slot {
    /// Particle ids as the functor sees them: (body 1, body 2).
    pub fn bodies(&self) -> (usize, usize) {
        if self.swap {
            (self.b as usize, self.a as usize)
        } else {
            (self.a as usize, self.b as usize)
        }
    }

    fn key(&self) -> (u16, u16, u32, u32, u8) {
        (self.geom, self.law, self.a, self.b, self.feature)
    }
}

/// Everything needed to process the slots of one step.
pub struct StepContext<'a> {
    /// The particles (read only).
    pub particles: &'a Particles,
    /// Materials by index.
    pub materials: &'a [Material],
    /// Dispatch tables and functor instances.
    pub dispatch: &'a Dispatch,
    /// Time step, s.
    pub dt: f64,
    /// Time t, s.
    pub time: f64,
    /// Step number.
    pub step: u64,
    /// Hysteresis band, m.
    pub eps: f64,
    /// L6Geom options.
    pub l6: L6Options,
}

/// All slots, with law state stored `stride` values per slot.
#[derive(Clone, Default)]
pub struct Contacts {
    /// The slots, sorted by key.
    pub slots: Vec<Slot>,
    state: Vec<f64>,
    stride: usize,
    groups: Vec<Range<usize>>,
    /// Geometry of the current step, one per slot.
    pub(crate) raw: Vec<RawGeom>,
    /// Does any slot involve a mesh facet (so that contacts may be handed over)?
    pub(crate) has_facets: bool,
}

/// A live contact as a checkpoint holds it: its key, the state carried from step to step
/// (L6Geom, onset data, law state) and nothing that the next step recomputes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedContact {
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
    /// Was the contact created in the last step?
    pub new: bool,
    /// Tracked geometry.
    pub l6: L6State,
    /// Onset time (s) and normal velocity (m/s).
    pub onset: [f64; 2],
    /// Law state (the law's slots, padded with zeros to the widest law).
    pub state: Vec<f64>,
}

/// Events and energy of one step's contacts.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactTotals {
    /// Contacts alive after the step.
    pub active: usize,
    /// Elastic energy stored, J.
    pub elastic: f64,
    /// Friction dissipation this step, J.
    pub friction: f64,
    /// Viscous dissipation this step, J.
    pub damping: f64,
}

impl Contacts {
    /// Bytes stored per slot: the slot, its law state and its geometry record.
    pub fn bytes_per_slot(&self) -> usize {
        std::mem::size_of::<Slot>()
            + self.stride * std::mem::size_of::<f64>()
            + std::mem::size_of::<RawGeom>()
    }

    /// Number of live contacts.
    pub fn active(&self) -> usize {
        self.slots.iter().filter(|s| s.active).count()
    }

    /// The contact between particles `i` and `j`, if any.
    pub fn find(&self, i: u32, j: u32) -> Option<&Slot> {
        self.slot(i, j).filter(|s| s.active)
    }

    /// The candidate slot of particles `i` and `j`, live or not (a contact that ended in
    /// the last step has `ending` set and the output of its last law call).
    pub fn slot(&self, i: u32, j: u32) -> Option<&Slot> {
        let (a, b) = (i.min(j), i.max(j));
        self.slots.iter().find(|s| s.a == a && s.b == b)
    }

    /// The live contacts, in slot order, for a checkpoint.
    pub fn save(&self) -> Vec<SavedContact> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.active)
            .map(|(i, s)| SavedContact {
                geom: s.geom,
                law: s.law,
                a: s.a,
                b: s.b,
                feature: s.feature,
                new: s.new,
                l6: s.l6,
                onset: [s.onset.time, s.onset.normal_velocity],
                state: self.state[i * self.stride..(i + 1) * self.stride].to_vec(),
            })
            .collect()
    }

    /// The slots of the candidate `pairs` with the `saved` contacts live again: the state
    /// [`Contacts::save`] was given, for candidate pairs that have not been rebuilt since.
    /// Fails (with a message for a checkpoint error) when a saved contact does not fit.
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
        for s in saved {
            let key = (s.geom, s.law, s.a, s.b, s.feature);
            let i = c.slots.binary_search_by_key(&key, Slot::key).map_err(|_| {
                format!(
                    "contact {}-{} (functor #{}, law #{}, term {}) is not a candidate pair of \
                     the scene",
                    s.a, s.b, s.geom, s.law, s.feature
                )
            })?;
            if s.state.len() != c.stride {
                return Err(format!(
                    "contact {}-{} has {} law state values, the laws of the scene need {}",
                    s.a,
                    s.b,
                    s.state.len(),
                    c.stride
                ));
            }
            let slot = &mut c.slots[i];
            slot.active = true;
            slot.new = s.new;
            slot.l6 = s.l6;
            slot.onset = Onset {
                time: s.onset[0],
                normal_velocity: s.onset[1],
            };
            c.state[i * c.stride..(i + 1) * c.stride].copy_from_slice(&s.state);
        }
        Ok(c)
    }

    /// Replaces the slots with the broad phase's new candidate pairs, carrying over every
    /// live contact. Fails if a pair has no law or functor, or a live contact is lost.
    pub fn rebuild(
        &mut self,
        pairs: &[(u32, u32)],
        p: &Particles,
        d: &Dispatch,
    ) -> Result<(), DemError> {
        let stride = d.laws.iter().map(|l| l.state_len).max().unwrap_or(0);
        // Keep only the live contacts of the old list (in key order) and free the rest
        // before the new list is built, so that the two full lists never coexist.
        let (old_stride, old_slots, old_state) = (
            self.stride,
            std::mem::take(&mut self.slots),
            std::mem::take(&mut self.state),
        );
        self.raw = Vec::new();
        let mut live: Vec<(Slot, Vec<f64>)> = Vec::new();
        for (i, s) in old_slots.into_iter().enumerate() {
            if s.active {
                let st = old_state[i * old_stride..(i + 1) * old_stride].to_vec();
                live.push((s, st));
            }
        }
        drop(old_state);
        let mut slots = Vec::with_capacity(pairs.len());
        for &(a, b) in pairs {
            let (ka, kb) = (p.shape[a as usize].kind(), p.shape[b as usize].kind());
            let &(geom, swap) = d.shape_table.get(&(ka, kb)).ok_or_else(|| {
                DemError::Scene(format!(
                    "no geometry functor for shapes {} + {}",
                    ka.name(),
                    kb.name()
                ))
            })?;
            let (ma, mb) = (p.material[a as usize], p.material[b as usize]);
            let &law = d.law_table.get(&(ma, mb)).ok_or_else(|| {
                DemError::Scene(format!("no contact law for materials #{ma} and #{mb}"))
            })?;
            let radii = match (&p.shape[a as usize], &p.shape[b as usize]) {
                (crate::particles::Shape::Sphere(x), crate::particles::Shape::Sphere(y)) => {
                    x.radius + y.radius
                }
                _ => f64::NAN,
            };
            for feature in 0..d.geoms[geom as usize].features {
                slots.push(Slot {
                    a,
                    b,
                    geom,
                    law,
                    feature,
                    radii,
                    swap,
                    active: false,
                    new: false,
                    ending: false,
                    l6: L6State::default(),
                    onset: Onset::default(),
                    out: LawOutput::default(),
                    force: Vector3::zeros(),
                    torque: [Vector3::zeros(); 2],
                });
            }
        }
        slots.sort_unstable_by_key(Slot::key);
        let mut state = vec![0.0; slots.len() * stride];

        // Carry live contacts over (both lists are sorted by key).
        let mut j = 0;
        for (old, old_st) in live {
            while j < slots.len() && slots[j].key() < old.key() {
                j += 1;
            }
            if j == slots.len() || slots[j].key() != old.key() {
                // The pair separated beyond the broad phase's margin within one step: the
                // contact is over.
                tracing::debug!(target: "dem::contact", event = "end", a = old.a, b = old.b, reason = "left the candidate list");
                continue;
            }
            slots[j] = old;
            state[j * stride..(j + 1) * stride].copy_from_slice(&old_st);
        }

        let mut groups: Vec<Range<usize>> = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            match groups.last_mut() {
                Some(g) if (slots[g.start].geom, slots[g.start].law) == (s.geom, s.law) => {
                    g.end = i + 1
                }
                _ => groups.push(i..i + 1),
            }
        }
        let has_facets = slots.iter().any(|s| {
            [s.a, s.b]
                .iter()
                .any(|&i| matches!(p.shape[i as usize], crate::particles::Shape::Facet(_)))
        });
        *self = Contacts {
            slots,
            state,
            stride,
            groups,
            raw: Vec::new(),
            has_facets,
        };
        Ok(())
    }

    /// Runs geometry, lifecycle, L6Geom and law on every slot: geometry for all slots
    /// first, then the hand-over of contacts moving across a mesh (see [`crate::handover`]),
    /// then lifecycle, L6Geom and law. Returns the wall time of the two parts, s.
    pub fn process(&mut self, cx: &StepContext<'_>) -> Result<[f64; 2], DemError> {
        let mut clock = std::time::Instant::now();
        let stride = self.stride;
        self.raw.clear();
        self.raw.resize(self.slots.len(), RawGeom::default());
        for g in &self.groups {
            let results: Vec<Result<(), DemError>> = self.slots[g.clone()]
                .par_chunks(CHUNK)
                .zip(self.raw[g.clone()].par_chunks_mut(CHUNK))
                .map(|(c, r)| step::geometry_chunk(cx, c, r))
                .collect();
            results.into_iter().collect::<Result<Vec<()>, _>>()?;
        }
        if self.has_facets {
            crate::handover::hand_over(self, cx);
        }
        let geometry = crate::timing::lap(&mut clock);
        for gi in 0..self.groups.len() {
            let g = self.groups[gi].clone();
            let slots = &mut self.slots[g.clone()];
            let raw = &self.raw[g.clone()];
            let state = &mut self.state[g.start * stride..g.end * stride];
            let chunk_state = (CHUNK * stride).max(1);
            let results: Vec<Result<(), DemError>> = if stride == 0 {
                slots
                    .par_chunks_mut(CHUNK)
                    .zip(raw.par_chunks(CHUNK))
                    .map(|(c, r)| step::process_chunk(cx, c, r, &mut [], 0))
                    .collect()
            } else {
                slots
                    .par_chunks_mut(CHUNK)
                    .zip(raw.par_chunks(CHUNK))
                    .zip(state.par_chunks_mut(chunk_state))
                    .map(|((c, r), st)| step::process_chunk(cx, c, r, st, stride))
                    .collect()
            };
            results.into_iter().collect::<Result<Vec<()>, _>>()?;
        }
        Ok([geometry, crate::timing::lap(&mut clock)])
    }

    /// Moves the contact state of slot `from` to slot `to` (same law), leaving `from` empty.
    pub(crate) fn move_contact(&mut self, from: usize, to: usize) {
        let n = self.stride;
        let old = self.slots[from].clone();
        self.slots[from].active = false;
        let s = &mut self.slots[to];
        s.active = true;
        s.l6 = old.l6;
        s.onset = old.onset;
        s.out = old.out;
        s.force = old.force;
        s.torque = old.torque;
        self.state.copy_within(from * n..(from + 1) * n, to * n);
        self.state[from * n..(from + 1) * n].fill(0.0);
    }

    /// Adds contact forces to the particles in slot order and returns the step's totals.
    pub fn gather(&self, p: &mut Particles) -> ContactTotals {
        let mut t = ContactTotals::default();
        for s in self.slots.iter().filter(|s| s.active || s.ending) {
            t.elastic += s.out.elastic;
            t.friction += s.out.friction;
            t.damping += s.out.damping;
            if s.ending {
                continue;
            }
            let (b1, b2) = s.bodies();
            p.force[b2] += s.force;
            p.force[b1] -= s.force;
            p.torque[b1] += s.torque[0];
            p.torque[b2] += s.torque[1];
            t.active += 1;
        }
        t
    }
}
