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

use crate::dispatch::Dispatch;
use crate::error::DemError;
use crate::l6geom::{BodyKin, L6Options, L6State};
use crate::particles::Particles;
use abi_stable::std_types::RResult;
use dem_api::{BodyView, GeomInput, LawInput, LawOutput, LawPair, Material, Onset, Quat, RawGeom};
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

fn kin(p: &Particles, i: usize) -> BodyKin {
    BodyKin {
        pos: p.pos[i],
        vel: p.vel[i],
        angvel: p.angvel[i],
    }
}

fn view(p: &Particles, i: usize) -> BodyView<'_> {
    BodyView {
        pos: p.pos[i].into(),
        ori: Quat::from(p.ori[i]),
        vel: p.vel[i].into(),
        angvel: p.angvel[i].into(),
        shape: p.shape[i].view(),
    }
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
            for feature in 0..d.geoms[geom as usize].features {
                slots.push(Slot {
                    a,
                    b,
                    geom,
                    law,
                    feature,
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
        for (i, old) in self.slots.iter().enumerate().filter(|(_, s)| s.active) {
            while j < slots.len() && slots[j].key() < old.key() {
                j += 1;
            }
            if j == slots.len() || slots[j].key() != old.key() {
                // The pair separated beyond the broad phase's margin within one step: the
                // contact is over.
                tracing::debug!(target: "dem::contact", event = "end", a = old.a, b = old.b, reason = "left the candidate list");
                continue;
            }
            slots[j] = old.clone();
            state[j * stride..(j + 1) * stride]
                .copy_from_slice(&self.state[i * self.stride..(i + 1) * self.stride]);
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
                .map(|(c, r)| geometry_chunk(cx, c, r))
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
                    .map(|(c, r)| process_chunk(cx, c, r, &mut [], 0))
                    .collect()
            } else {
                slots
                    .par_chunks_mut(CHUNK)
                    .zip(raw.par_chunks(CHUNK))
                    .zip(state.par_chunks_mut(chunk_state))
                    .map(|((c, r), st)| process_chunk(cx, c, r, st, stride))
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

fn call_error(
    cx: &StepContext<'_>,
    s: &Slot,
    plugin: &str,
    functor: &str,
    message: String,
) -> DemError {
    DemError::PluginCall {
        step: cx.step,
        plugin: plugin.into(),
        functor: functor.into(),
        a: s.a,
        b: s.b,
        message,
    }
}

/// Finite geometry with a unit normal and a finite non-zero weight.
fn valid(g: &RawGeom) -> bool {
    let n = g.normal.na().norm();
    g.gap.is_finite()
        && g.point.is_finite()
        && n.is_finite()
        && (n - 1.0).abs() < 1e-9
        && g.weight.is_finite()
        && g.weight != 0.0
}

/// False only when the bounding volumes of particles `a` and `b` are farther apart than
/// `distance` (m) by more than a rounding margin; two spheres are compared by squared
/// distance, without a square root.
fn may_touch(p: &Particles, a: usize, b: usize, distance: f64) -> bool {
    use crate::particles::Shape;
    if let (Shape::Sphere(sa), Shape::Sphere(sb)) = (&p.shape[a], &p.shape[b]) {
        let reach = sa.radius + sb.radius + distance;
        let reach = reach + 1e-9 * reach.abs();
        return reach > 0.0 && (p.pos[a] - p.pos[b]).norm_squared() <= reach * reach;
    }
    crate::broadphase::bound_gap(p, a, b)
        .is_none_or(|g| g <= distance + 1e-9 * (g.abs() + distance.abs() + 1e-12))
}

/// Geometry of one chunk of slots (all of one functor), batched.
fn geometry_chunk(
    cx: &StepContext<'_>,
    slots: &[Slot],
    raw: &mut [RawGeom],
) -> Result<(), DemError> {
    let p = cx.particles;
    let geom = &cx.dispatch.geoms[slots[0].geom as usize];
    let law = &cx.dispatch.laws[slots[0].law as usize];
    // Pairs that are not in contact and whose bounding volumes are farther apart than the
    // law's interaction distance cannot touch: the functor is not asked (it would report
    // no contact), which spares most calls between the broad phase's rebuilds. The margin
    // keeps rounding in the bound from ever hiding a contact the functor would report.
    let asked: Vec<usize> = (0..slots.len())
        .filter(|&i| {
            let s = &slots[i];
            s.active || may_touch(p, s.a as usize, s.b as usize, law.distance)
        })
        .collect();
    let inputs: Vec<GeomInput<'_>> = asked
        .iter()
        .map(|&i| {
            let s = &slots[i];
            let (b1, b2) = s.bodies();
            // A live contact always gets its geometry, so that its last step can be booked;
            // whether it goes on is decided below.
            let distance = if s.active {
                f64::INFINITY
            } else {
                law.distance
            };
            GeomInput {
                b1: view(p, b1),
                b2: view(p, b2),
                distance,
                feature: u32::from(s.feature),
            }
        })
        .collect();
    let mut out = vec![RawGeom::default(); asked.len()];
    if let RResult::RErr(e) = geom
        .functor
        .geom_batch(inputs.as_slice().into(), out.as_mut_slice().into())
    {
        let s = &slots[asked[(e.index as usize).min(asked.len() - 1)]];
        return Err(call_error(
            cx,
            s,
            &geom.plugin,
            &geom.name,
            e.message.to_string(),
        ));
    }
    for (k, &i) in asked.iter().enumerate() {
        raw[i] = out[k];
    }
    Ok(())
}

/// Lifecycle, L6Geom and law of one chunk of slots, given their geometry `raw`.
fn process_chunk(
    cx: &StepContext<'_>,
    slots: &mut [Slot],
    raw: &[RawGeom],
    state: &mut [f64],
    stride: usize,
) -> Result<(), DemError> {
    let p = cx.particles;
    let geom = &cx.dispatch.geoms[slots[0].geom as usize];
    let law = &cx.dispatch.laws[slots[0].law as usize];

    // 2. Lifecycle and L6Geom.
    for (i, (s, g)) in slots.iter_mut().zip(raw).enumerate() {
        let (b1, b2) = s.bodies();
        s.new = false;
        s.ending = false;
        if g.touching != 0 && !valid(g) {
            return Err(call_error(
                cx,
                s,
                &geom.plugin,
                &geom.name,
                format!(
                    "returned invalid geometry (non-finite, normal not of unit length, or \
                     weight zero) {g:?}"
                ),
            ));
        }
        let limit = law.distance + if s.active { cx.eps } else { 0.0 };
        let present = g.touching != 0 && g.gap < limit;
        if !present && !s.active {
            continue;
        }
        if g.touching == 0 {
            // The functor gave no geometry for a live contact: end it without a last call.
            tracing::debug!(target: "dem::contact", event = "end", a = s.a, b = s.b, t = cx.time);
            s.active = false;
            state[i * stride..(i + 1) * stride].fill(0.0);
            continue;
        }
        let (k1, k2) = (kin(p, b1), kin(p, b2));
        if s.active {
            s.l6.update(g, &k1, &k2, cx.dt, &cx.l6);
            if !present {
                s.ending = true;
                tracing::debug!(target: "dem::contact", event = "end", a = s.a, b = s.b, t = cx.time, gap = g.gap);
            }
        } else {
            s.l6 = L6State::create(g, &k1, &k2, &cx.l6);
            s.onset = Onset {
                time: cx.time,
                normal_velocity: s.l6.u_dot.x,
            };
            s.active = true;
            s.new = true;
            tracing::debug!(
                target: "dem::contact",
                event = "begin", a = s.a, b = s.b, t = cx.time, gap = g.gap,
                normal = ?[g.normal.x, g.normal.y, g.normal.z], point = ?[g.point.x, g.point.y, g.point.z],
                normal_velocity = s.onset.normal_velocity
            );
        }
    }

    // 3. Law, batched over the live contacts.
    let live: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].active).collect();
    if live.is_empty() {
        return Ok(());
    }
    let n = law.state_len;
    let law_inputs: Vec<LawInput> = live
        .iter()
        .map(|&i| {
            let s = &slots[i];
            let (b1, b2) = s.bodies();
            LawInput {
                geom: s.l6.to_api(),
                pair: LawPair {
                    radius: s.l6.lens,
                    mass: [p.law_mass(b1), p.law_mass(b2)],
                    material: [
                        cx.materials[p.material[b1] as usize],
                        cx.materials[p.material[b2] as usize],
                    ],
                },
                onset: s.onset,
                dt: cx.dt,
                is_new: s.new as u32,
                is_last: s.ending as u32,
            }
        })
        .collect();
    let mut law_state: Vec<f64> = Vec::with_capacity(live.len() * n);
    for &i in &live {
        law_state.extend_from_slice(&state[i * stride..i * stride + n]);
    }
    let mut outs = vec![LawOutput::default(); live.len()];
    if let RResult::RErr(e) = law.law.law_batch(
        law_inputs.as_slice().into(),
        law_state.as_mut_slice().into(),
        outs.as_mut_slice().into(),
    ) {
        let s = &slots[live[(e.index as usize).min(live.len() - 1)]];
        return Err(call_error(
            cx,
            s,
            &law.plugin,
            &law.name,
            e.message.to_string(),
        ));
    }

    // 4. Local to global.
    for (k, &i) in live.iter().enumerate() {
        let s = &mut slots[i];
        let o = outs[k];
        let finite = o.force.is_finite()
            && o.torque.is_finite()
            && [o.elastic, o.friction, o.damping]
                .iter()
                .all(|x| x.is_finite());
        if !finite {
            return Err(call_error(
                cx,
                s,
                &law.plugin,
                &law.name,
                format!("returned a non-finite result {o:?}"),
            ));
        }
        let w = raw[i].weight;
        if s.ending {
            // The contact is over: only the dissipation of its last interval counts.
            s.force = Vector3::zeros();
            s.torque = [Vector3::zeros(); 2];
            s.out = LawOutput {
                friction: w * o.friction,
                damping: w * o.damping,
                ..LawOutput::default()
            };
            s.active = false;
            state[i * stride..(i + 1) * stride].fill(0.0);
            continue;
        }
        state[i * stride..i * stride + n].copy_from_slice(&law_state[k * n..(k + 1) * n]);
        let tt = s.l6.frame.transpose();
        let f = tt * o.force.na() * w;
        let extra = tt * o.torque.na() * w;
        let (b1, b2) = s.bodies();
        let c = s.l6.point;
        s.force = f;
        s.torque = [
            (c - p.pos[b1]).cross(&(-f)) - extra,
            (c - p.pos[b2]).cross(&f) + extra,
        ];
        // Forces and energies of this term count `w` times; `out` keeps what the ledger
        // books (the law's own force stays in its local frame, unweighted).
        s.out = LawOutput {
            elastic: w * o.elastic,
            friction: w * o.friction,
            damping: w * o.damping,
            ..o
        };
    }
    Ok(())
}
