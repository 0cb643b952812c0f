//! The contact container and lifecycle.
//!
//! Storage is split by how often data is touched:
//! - [`Slot`]: one per candidate pair of the broad phase and contact term of its functor
//!   (one for most functors), 24 bytes plus the index of its contact and a bit (in
//!   columns of their own, see [`held`]), sorted by `(functor, law, a, b, term)` with
//!   `a < b` the particle ids. Each step the slots without a contact get a cheap
//!   bounding-volume test, and only those that pass get a geometry call.
//! - [`Contact`]: one per live contact (ids and flags, 24 bytes) in a dense list that the
//!   geometry and law passes walk in order. Its hot numbers, the L6Geom and onset data,
//!   its law state and what it pushes onto its bodies ([`Forces`]) are stored beside the
//!   list as column blocks of [`CHUNK`] contacts (see [`blocks`]), which a law reads and
//!   updates as they are stored and the gather reads. A slot
//!   points to its contact and the contact to its slot; a contact that ends is removed at
//!   the start of the next step (swapped with the last). The list's order thus depends on
//!   the history of the run (and on the broad phase's rebuilds), the gather's does not.
//!
//! A term's forces and energies count times the weight its functor reports with the
//! geometry. When the broad phase rebuilds, each contact is re-mapped by key to its new
//! slot and the list is put in slot order (that is, particle order), so that the law pass
//! reads the particles nearly in storage order.
//!
//! Lifecycle with hysteresis (reference 001): a contact is created when the functor
//! reports a gap below the law's interaction distance `D`, and kept while the gap stays
//! below `D + contact_eps`. At creation the pre-impact normal velocity is stored and a
//! `begin` event is logged (target `dem::contact`, level debug); removal logs `end`. On the
//! step a contact ends, its law is called once more with `is_last` set: no force is applied
//! from that call, only the dissipation of the final interval is booked.
//!
//! Each step (see [`Contacts::process`]): detection of new contacts (in parallel chunks),
//! the hand-over of contacts moving across a mesh, creation of the new contacts in slot
//! order, then geometry, lifecycle, L6Geom and law of every contact (in parallel chunks,
//! pure per contact; in scenes with mesh facets or polyhedra the geometry of the live
//! contacts is computed first, in a pass of its own: the hand-over needs it, and
//! polyhedron contacts, costly and uneven, are shared among the threads in small
//! items); forces are gathered onto each particle in slot order (the particles split in
//! ranges among the threads), so that the sums, and thus trajectories, depend neither on
//! the number of threads nor on the order of the list (see [`Contacts::gather`]).

mod batch;
mod columns;
mod detect;
mod forces;
mod gather;
mod geometry;
mod global;
mod handover;
mod held;
mod pair_cache;
mod rebuild;
mod saved;
pub mod sparsify;
mod step;

use crate::engines::dispatch::Dispatch;
use crate::engines::l6geom::L6Options;
use crate::engines::l6geom::{BodyKin, L6State};
use crate::model::blocks::{self, Blocks, HotBlocks, CHUNK};
use crate::model::particles::Particles;
use crate::support::error::DemError;
use crate::support::team::Team;
use dem_api::{Material, Onset, RawGeom};
use forces::ForceStore;
pub use forces::Forces;
pub use gather::ContactTotals;
use gather::Gather;
use held::Held;
pub use saved::{SavedContact, SavedEnd};
use std::ops::Range;

/// `Slot::contact` of a slot without a contact.
const NONE: u32 = u32::MAX;

/// One candidate pair (one contact term of it).
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Smaller particle id.
    pub a: u32,
    /// Larger particle id.
    pub b: u32,
    /// Sum of the radii when both bodies are spheres, m (NaN otherwise): the pre-check
    /// before the geometry call reads it instead of the shapes.
    radii: f64,
    /// Geometry functor index.
    pub geom: u16,
    /// Law index.
    pub law: u16,
    /// Contact term of the pair (`GeomInput::feature`), 0 for a one-term functor.
    pub feature: u8,
    /// True when the functor's body 1 is `b`.
    pub swap: bool,
}

impl Slot {
    fn key(&self) -> (u16, u16, u32, u32, u8) {
        (self.geom, self.law, self.a, self.b, self.feature)
    }

    /// Particle ids as the functor sees them: (body 1, body 2).
    pub fn bodies(&self) -> (usize, usize) {
        bodies(self.a, self.b, self.swap)
    }
}

fn bodies(a: u32, b: u32, swap: bool) -> (usize, usize) {
    if swap {
        (b as usize, a as usize)
    } else {
        (a as usize, b as usize)
    }
}

/// A contact: live, or ended in the last step (`ending`).
#[derive(Clone, Debug)]
pub struct Contact {
    /// Smaller particle id.
    pub a: u32,
    /// Larger particle id.
    pub b: u32,
    /// Geometry functor index.
    pub geom: u16,
    /// Law index.
    pub law: u16,
    /// Contact term of the pair.
    pub feature: u8,
    /// True when the functor's body 1 is `b`.
    pub swap: bool,
    /// Was the contact created this step?
    pub new: bool,
    /// Did the contact end this step (its last law call booked dissipation only)?
    pub ending: bool,
    /// Did the functor stop reporting it (ended without a last law call)?
    gone: bool,
    /// Index of its slot.
    slot: u32,
}

impl Contact {
    /// Particle ids as the functor sees them: (body 1, body 2).
    pub fn bodies(&self) -> (usize, usize) {
        bodies(self.a, self.b, self.swap)
    }

    /// Is this a contact that goes on (not one that ended in the last step)?
    pub fn active(&self) -> bool {
        !self.ending && !self.gone
    }

    fn key(&self) -> (u16, u16, u32, u32, u8) {
        (self.geom, self.law, self.a, self.b, self.feature)
    }
}

/// Everything needed to process the contacts of one step.
pub struct StepContext<'a> {
    /// The particles (read only).
    pub particles: &'a Particles,
    /// The same particles as the columns a geometry functor reads (see
    /// [`Particles::columns`]).
    pub bodies: dem_api::BodyColumns<'a>,
    /// The threads of the parallel phases.
    pub team: &'a Team,
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
    /// Contact sparsification of mesh contacts, if the scene asks for it.
    pub sparsify: Option<dem_api::convex::SparsifyParams>,
}

/// The candidate slots and the contacts, with law state stored `stride` values per
/// contact.
#[derive(Clone, Default)]
pub struct Contacts {
    /// The slots, sorted by key.
    pub slots: Vec<Slot>,
    /// The contact of each slot.
    held: Held,
    /// Runs of at most `CHUNK` slots of one (functor, law): the detection's chunks.
    chunks: Vec<Range<usize>>,
    /// The contacts, in processing order.
    list: Vec<Contact>,
    /// Their L6Geom and onset data, [`blocks::HOT`] fields per contact.
    hot: HotBlocks,
    /// Their state, `stride` values per contact: the law's (`law_stride` values), then
    /// the geometry functor's (see [`geometry::KeptState`]).
    state: Blocks,
    stride: usize,
    law_stride: usize,
    /// What they pushed onto their bodies in the last step.
    forces: ForceStore,
    /// Geometry of the current step, one per contact, in scenes with mesh facets (else
    /// empty: the law pass computes it chunk by chunk).
    raw: Vec<RawGeom>,
    /// Does any slot involve a mesh facet (so that contacts may be handed over)?
    pub(crate) has_facets: bool,
    /// Is the geometry of the live contacts computed in a pass of its own, before the
    /// detection (see [`Contacts::process`])? With mesh facets (the hand-over needs it)
    /// and with polyhedra (costly contacts of uneven cost, which the pass shares among
    /// the workers in small items).
    geometry_first: bool,
    /// What the law pass leaves for the gather.
    gather: Gather,
    /// Do the law pass's counts of ended contacts per chunk (`gather.totals`) still
    /// describe the list (no rebuild, renumbering or failed step since)?
    ended_known: bool,
    /// The geometry functors' pair caches (`Cg2Functor::cache_len`), `cache_stride`
    /// values per slot in slot order, zero for a new slot; the detection hands them to
    /// its calls. They change no result, only the time, so they are not saved in
    /// checkpoints (see [`pair_cache`]).
    cache: Vec<f64>,
    cache_stride: usize,
    /// Is the pair cache switched off ([`Contacts::set_pair_cache`])?
    no_cache: bool,
    /// Buffers of the detection, kept from step to step.
    found: Vec<Vec<(u32, RawGeom)>>,
    fresh: Vec<(u32, RawGeom)>,
    detect_buffers: detect::Buffers,
    /// Buffers of the geometry and law passes, kept from step to step.
    step_buffers: batch::Buffers,
}

fn kin(p: &Particles, i: usize) -> BodyKin {
    BodyKin {
        pos: p.pos[i],
        vel: p.vel[i],
        angvel: p.angvel[i],
    }
}

impl Contacts {
    /// Bytes stored per candidate slot.
    pub fn bytes_per_slot(&self) -> usize {
        std::mem::size_of::<Slot>()
    }

    /// Bytes stored per contact: the contact, its L6Geom and onset data, its law state,
    /// its forces and, in scenes with mesh facets or polyhedra, its geometry record.
    pub fn bytes_per_contact(&self) -> usize {
        let raw = if self.geometry_first {
            std::mem::size_of::<RawGeom>()
        } else {
            0
        };
        std::mem::size_of::<Contact>()
            + self.hot.bytes_per_contact()
            + self.state.bytes_per_contact()
            + self.forces.bytes_per_contact()
            + raw
    }

    /// The tracked geometry of contact `k` (an index of [`Contacts::list`]).
    pub fn geometry(&self, k: usize) -> L6State {
        let (block, at) = self.hot.block_of(k);
        crate::engines::l6geom::hot::load(block, at)
    }

    /// The onset data of contact `k` (an index of [`Contacts::list`]).
    pub fn onset(&self, k: usize) -> Onset {
        let (block, at) = self.hot.block_of(k);
        blocks::onset(block, at)
    }

    /// What contact `k` (an index of [`Contacts::list`]) pushed onto its bodies in the
    /// last step.
    pub fn forces(&self, k: usize) -> Forces {
        self.forces.load(k)
    }

    /// The live contacts with their tracked geometry and forces, in slot order: fixed by
    /// the particles' storage order, as the gather's (not by the list's history), so that
    /// what is written of them and summed over them is the same for any skin or number of
    /// ranks.
    pub fn live_with_geometry(&self) -> impl Iterator<Item = (&Contact, L6State, Forces)> {
        let mut order = Vec::with_capacity(self.list.len());
        self.held.each(|k| order.push(k as usize));
        order
            .into_iter()
            .filter(|&k| self.list[k].active())
            .map(|k| (&self.list[k], self.geometry(k), self.forces(k)))
    }

    /// Number of live contacts.
    pub fn active(&self) -> usize {
        self.list.iter().filter(|c| c.active()).count()
    }

    /// The live contacts, in processing order.
    pub fn live(&self) -> impl Iterator<Item = &Contact> {
        self.list.iter().filter(|c| c.active())
    }

    /// The live contacts with their forces, in processing order.
    pub fn live_forces(&self) -> impl Iterator<Item = (&Contact, Forces)> {
        let list = self.list.iter().enumerate();
        list.filter(|(_, c)| c.active())
            .map(|(k, c)| (c, self.forces(k)))
    }

    /// The live contact between particles `i` and `j`, if any.
    pub fn find(&self, i: u32, j: u32) -> Option<&Contact> {
        self.get(i, j).filter(|c| c.active())
    }

    /// The contact between particles `i` and `j`, live or ended in the last step (then
    /// `ending` is set and its [`Forces`] hold its last law call).
    pub fn get(&self, i: u32, j: u32) -> Option<&Contact> {
        self.position(i, j).map(|k| &self.list[k])
    }

    /// The tracked geometry of the live contact between particles `i` and `j`, if any.
    pub fn find_geometry(&self, i: u32, j: u32) -> Option<L6State> {
        let k = self.position(i, j)?;
        self.list[k].active().then(|| self.geometry(k))
    }

    /// Index in [`Contacts::list`] of the contact between particles `i` and `j`, live or
    /// ended in the last step.
    pub fn position(&self, i: u32, j: u32) -> Option<usize> {
        let (a, b) = (i.min(j), i.max(j));
        self.list
            .iter()
            .position(|c| c.a == a && c.b == b && !c.gone)
    }

    /// Room for `more` contacts. The buffers grow by an eighth at a time, not by
    /// doubling: the contacts are most of the memory of a large run, and a doubled buffer
    /// can be half empty at the peak.
    fn reserve(&mut self, more: usize) {
        let len = self.list.len();
        if len + more <= self.list.capacity() {
            return;
        }
        let extra = more.max(len / 8);
        self.list.reserve_exact(extra);
        self.hot.reserve(extra);
        self.state.reserve(extra);
        self.forces.reserve(extra);
    }

    /// Appends a live contact for slot `i` (law state zero).
    fn push(&mut self, i: usize, l6: L6State, onset: Onset, new: bool) {
        let s = &self.slots[i];
        self.held.set(i, self.list.len() as u32);
        self.list.push(Contact {
            a: s.a,
            b: s.b,
            geom: s.geom,
            law: s.law,
            feature: s.feature,
            swap: s.swap,
            new,
            ending: false,
            gone: false,
            slot: i as u32,
        });
        self.push_data(&l6, &onset);
    }

    /// The L6Geom and onset data of the contact just appended to the list (law state and
    /// forces zero).
    fn push_data(&mut self, l6: &L6State, onset: &Onset) {
        let k = self.list.len() - 1;
        self.hot.push_zero();
        let (block, at) = self.hot.block_of_mut(k);
        crate::engines::l6geom::hot::store(block, at, l6);
        blocks::set_onset(block, at, onset);
        self.state.push_zero();
        self.forces.push_zero();
    }

    /// Removes the contacts that ended in the last step: each is replaced by the last
    /// contact of the list (a deterministic order, without moving the others). Only the
    /// chunks where the law pass counted an ended contact are scanned, when its counts
    /// still hold.
    fn retire(&mut self) {
        let len = self.list.len();
        let chunks = len.div_ceil(CHUNK);
        let known = std::mem::take(&mut self.ended_known) && self.gather.totals.len() == chunks;
        for chunk in (0..chunks).rev() {
            if known && self.gather.totals[chunk].ended == 0 {
                continue;
            }
            self.retire_in(chunk * CHUNK..((chunk + 1) * CHUNK).min(len));
        }
        debug_assert!(
            self.list.iter().all(Contact::active),
            "an ended contact outside the chunks the law pass counted it in"
        );
    }

    /// [`Contacts::retire`] on the contacts at `range`, from the last.
    fn retire_in(&mut self, range: Range<usize>) {
        for k in range.rev() {
            if self.list[k].active() {
                continue;
            }
            let last = self.list.len() - 1;
            self.held.clear(self.list[k].slot as usize);
            self.list.swap_remove(k);
            if k != last {
                self.hot.copy(last, k);
                self.state.copy(last, k);
                self.forces.copy(last, k);
                self.held.set(self.list[k].slot as usize, k as u32);
            }
            self.hot.truncate(last);
            self.state.truncate(last);
            self.forces.truncate(last);
        }
    }

    /// Runs geometry, lifecycle, L6Geom and law for the step: geometry of the live
    /// contacts and detection of new ones, then the hand-over of contacts moving across a
    /// mesh (see [`handover`]), creation of the new contacts, then lifecycle,
    /// L6Geom and law of each. Returns the wall time of the geometry and law parts, s.
    pub fn process(&mut self, cx: &StepContext<'_>) -> Result<[f64; 2], DemError> {
        let mut clock = std::time::Instant::now();
        self.retire();
        // Without meshes nothing between here and the law pass needs the geometry of the
        // live contacts: the law pass computes it chunk by chunk, while the chunk's
        // contacts are in cache. The hand-over of mesh contacts needs it first; with
        // polyhedra it is most of the step, and its own pass shares it among the workers
        // in small items (the law pass's chunks of 512, a few in a pile of rocks, were
        // shared unevenly). The same geometry either way.
        let early = self.geometry_first;
        self.raw.clear();
        if early {
            self.raw.resize(self.list.len(), RawGeom::default());
            let state = (&mut self.state, self.law_stride);
            geometry::geometry(cx, &self.list, &mut self.raw, state, &mut self.step_buffers)?;
        }
        let mut fresh = std::mem::take(&mut self.fresh);
        detect::detect(
            cx,
            (&self.slots, self.held.all()),
            (&mut self.cache, self.cache_stride),
            &self.chunks,
            &mut self.found,
            &mut fresh,
            &mut self.detect_buffers,
        )?;
        if self.has_facets {
            handover::hand_over(self, &mut fresh, cx);
            // Contact sparsification (scene `contacts.sparsify`): drops redundant new
            // mesh contacts before they are created. See `crate::engines::contacts::sparsify`.
            if let Some(params) = &cx.sparsify {
                sparsify::apply(self, &mut fresh, cx, params);
            }
        }
        let old = self.list.len();
        self.reserve(fresh.len());
        for &(i, g) in &fresh {
            let s = self.slots[i as usize];
            let (b1, b2) = s.bodies();
            let l6 = L6State::create(&g, &kin(cx.particles, b1), &kin(cx.particles, b2), &cx.l6);
            let onset = Onset {
                time: cx.time,
                normal_velocity: l6.u_dot.x,
            };
            tracing::debug!(
                target: "dem::contact",
                event = "begin", a = s.a, b = s.b, t = cx.time, gap = g.gap,
                normal = ?[g.normal.x, g.normal.y, g.normal.z], point = ?[g.point.x, g.point.y, g.point.z],
                normal_velocity = onset.normal_velocity
            );
            self.push(i as usize, l6, onset, true);
            if early {
                self.raw.push(g);
            }
        }
        self.fresh = fresh;
        let geometry = crate::support::timing::lap(&mut clock);
        let given = if early {
            step::Geometry::Given(&self.raw)
        } else {
            step::Geometry::InPass(&self.fresh)
        };
        step::law(
            cx,
            &mut self.list,
            given,
            (
                &mut self.hot,
                (&mut self.state, self.law_stride),
                &mut self.forces,
            ),
            old,
            &mut self.gather,
            &mut self.step_buffers,
        )?;
        self.ended_known = true;
        Ok([geometry, crate::support::timing::lap(&mut clock)])
    }

    /// Moves contact `k` to slot `to` (same law and term), the slot of a pair that the
    /// functor reports this step with geometry `g`.
    pub(crate) fn move_contact(&mut self, k: usize, to: usize, g: RawGeom) {
        let from = self.list[k].slot as usize;
        self.held.clear(from);
        self.held.set(to, k as u32);
        let s = &self.slots[to];
        let c = &mut self.list[k];
        (c.a, c.b, c.geom, c.swap, c.slot) = (s.a, s.b, s.geom, s.swap, to as u32);
        self.raw[k] = g;
    }

    /// Every contact, live or ended in the last step, in processing order.
    pub fn list(&self) -> &[Contact] {
        &self.list
    }

    /// The contacts and their geometry this step (for the hand-over).
    pub(crate) fn with_geometry(&self) -> impl Iterator<Item = (usize, &Contact, &RawGeom)> {
        self.list
            .iter()
            .zip(&self.raw)
            .enumerate()
            .map(|(k, (c, g))| (k, c, g))
    }
}
