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
//! reads the particles nearly in storage order; between rebuilds it is put back in order
//! when it has drifted (see [`order`]).
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
mod contact;
mod context;
mod detect;
mod forces;
mod gather;
mod geometry;
mod global;
mod handover;
mod held;
mod order;
mod pair_cache;
mod pass;
mod rebuild;
mod saved;
pub mod sparsify;
mod step;
mod totals;

use crate::engines::l6geom::L6State;
use crate::model::blocks::{self, Blocks, HotBlocks, CHUNK};
pub use contact::{Contact, Slot};
pub use context::StepContext;
use dem_api::{L6Geom, Onset, RawGeom};
use forces::ForceStore;
pub use forces::Forces;
use held::Held;
pub use saved::{SavedContact, SavedEnd};
use std::ops::Range;
pub use totals::ContactTotals;
use totals::Gather;

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
    /// Buffers of the sort of the list into slot order.
    reorder: order::Reorder,
    /// The moves of the last [`Contacts::retire`], kept from step to step.
    retired: Vec<(u32, u32)>,
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

    /// The law state of contact `k` (an index of [`Contacts::list`]): its law's
    /// `state_len` slots (see [`crate::engines::dispatch::LawEntry::state_names`]).
    pub fn law_state(&self, k: usize, state_len: usize) -> Vec<f64> {
        let mut v = vec![0.0; self.stride];
        self.state.read(k, &mut v);
        v.truncate(state_len);
        v
    }

    /// The law state of each live contact (its law's `state_len(law)` slots), in the order
    /// of [`Contacts::live_with_geometry`].
    pub fn live_law_states<'a>(
        &'a self,
        state_len: impl Fn(u16) -> usize + 'a,
    ) -> impl Iterator<Item = Vec<f64>> + 'a {
        self.live_in_slot_order()
            .map(move |k| self.law_state(k, state_len(self.list[k].law)))
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
        self.live_in_slot_order()
            .map(|k| (&self.list[k], self.geometry(k), self.forces(k)))
    }

    /// Calls `f` with each live contact, its geometry as a law reads it and its onset
    /// data, in processing order (the list's: fixed by the run's history, not by the
    /// number of threads, and kept by checkpoints; read block by block, so that the
    /// columns' lines are read once for eight contacts), until `f` fails.
    pub fn try_each_live_for_law<E>(
        &self,
        mut f: impl FnMut(&Contact, &L6Geom, Onset) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut g = L6Geom::default();
        for (k, c) in self.list.iter().enumerate() {
            if !c.active() {
                continue;
            }
            let (block, at) = self.hot.block_of(k);
            crate::engines::l6geom::hot::load_api(block, at, &mut g);
            f(c, &g, blocks::onset(block, at))?;
        }
        Ok(())
    }

    /// Calls `f` with each live contact, its geometry as a law reads it and its onset
    /// data, in slot order (by functor, law, pair in storage order and term: an order
    /// fixed by the particles' storage order alone, so that a sum over a particle's
    /// contacts in it is the same on a rank that holds only some contacts, all of that
    /// particle's), until `f` fails.
    pub fn try_each_live_in_slot_order<E>(
        &self,
        mut f: impl FnMut(&Contact, &L6Geom, Onset) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut g = L6Geom::default();
        for k in self.live_in_slot_order() {
            let (block, at) = self.hot.block_of(k);
            crate::engines::l6geom::hot::load_api(block, at, &mut g);
            f(&self.list[k], &g, blocks::onset(block, at))?;
        }
        Ok(())
    }

    /// The onset (creation time and normal velocity) of each live contact, in the order of
    /// [`Contacts::live_with_geometry`]. With the pair and its term, the creation time
    /// names a contact for its whole life, across checkpoints: a pair that separates and
    /// touches again makes a new contact, with a later onset.
    pub fn live_onsets(&self) -> impl Iterator<Item = Onset> + '_ {
        self.live_in_slot_order().map(|k| self.onset(k))
    }

    /// Indices of the live contacts, in slot order.
    fn live_in_slot_order(&self) -> impl Iterator<Item = usize> + '_ {
        let mut order = Vec::with_capacity(self.list.len());
        self.held.each(|k| order.push(k as usize));
        order.into_iter().filter(|&k| self.list[k].active())
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

    /// The live contacts with their forces, in slot order (see
    /// [`Contacts::try_each_live_in_slot_order`]).
    pub fn live_forces_in_slot_order(&self) -> impl Iterator<Item = (&Contact, Forces)> {
        self.live_in_slot_order()
            .map(|k| (&self.list[k], self.forces(k)))
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

    /// Puts the list in slot order (see [`order`]), carrying the forces of the last step
    /// along with `forces`, with the members of `team`.
    fn sort_by_slot(&mut self, forces: bool, team: Option<&crate::support::team::Team>) {
        let stores = order::Stores {
            list: &mut self.list,
            held: &mut self.held,
            hot: &mut self.hot,
            state: &mut self.state,
            forces: &mut self.forces,
        };
        self.reorder.sort(stores, forces, team);
    }

    /// Removes the contacts that ended in the last step: each is replaced by the last
    /// contact of the list (a deterministic order, without moving the others). Only the
    /// chunks where the law pass counted an ended contact are scanned, when its counts
    /// still hold. What the contacts pushed moves with them when `forces` (else it is left
    /// for a caller about to compute it anew for every contact: 18 values a contact less
    /// to move). The members of `team` share the fields of the L6Geom and state: a move
    /// touches a line of memory per field, 48 of them. (Done by one member while the other
    /// waited, this was 1.7 % of a 2-thread run's samples on the dense bed at
    /// N = 100,000.)
    fn retire(&mut self, forces: bool, team: Option<&crate::support::team::Team>) {
        let len = self.list.len();
        let chunks = len.div_ceil(CHUNK);
        let known = std::mem::take(&mut self.ended_known) && self.gather.totals.len() == chunks;
        let mut moves = std::mem::take(&mut self.retired);
        moves.clear();
        for chunk in (0..chunks).rev() {
            if known && self.gather.totals[chunk].ended == 0 {
                continue;
            }
            self.retire_in(chunk * CHUNK..((chunk + 1) * CHUNK).min(len), &mut moves);
        }
        debug_assert!(
            self.list.iter().all(Contact::active),
            "an ended contact outside the chunks the law pass counted it in"
        );
        if !moves.is_empty() {
            let (hot, state) = (self.hot.fields_mut(), self.state.fields_mut());
            let (h, jobs) = (hot.count(), hot.count() + state.count());
            let field = |j: usize| {
                // SAFETY: each field is moved by one call (one member) only.
                unsafe {
                    if j < h {
                        hot.copy_moves(j, &moves)
                    } else {
                        state.copy_moves(j - h, &moves)
                    }
                }
            };
            match team {
                Some(team) if team.active() > 1 => {
                    team.run(|t| team.range(jobs, t).for_each(field))
                }
                _ => (0..jobs).for_each(field),
            }
            if forces {
                for &(from, to) in &moves {
                    self.forces.copy(from as usize, to as usize);
                }
            }
        }
        let n = self.list.len();
        self.hot.truncate(n);
        self.state.truncate(n);
        self.forces.truncate(n);
        self.retired = moves;
    }

    /// [`Contacts::retire`] of the list and the slots on the contacts at `range`, from
    /// the last; the moves of the stores' values, `(from, to)`, go to `moves` in order.
    fn retire_in(&mut self, range: Range<usize>, moves: &mut Vec<(u32, u32)>) {
        for k in range.rev() {
            if self.list[k].active() {
                continue;
            }
            let last = self.list.len() - 1;
            self.held.clear(self.list[k].slot as usize);
            self.list.swap_remove(k);
            if k != last {
                moves.push((last as u32, k as u32));
                self.held.set(self.list[k].slot as usize, k as u32);
            }
        }
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
