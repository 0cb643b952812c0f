//! What the batched plugin calls of a step share: a chunk of the law pass ([`Work`]),
//! each worker's buffers, kept from step to step, the selection of a batch's members (by
//! functor or law), the geometry output made ready for a call, and the error of a failed
//! call. Used by the geometry calls ([`super::geometry`]) and the law pass
//! ([`super::step`]).

use super::columns::LawColumns;
use super::contact::Contact;
use super::context::StepContext;
use super::totals::ContactTotals;
use crate::model::blocks::CHUNK;
use crate::support::error::DemError;
use crate::support::workers::{room, PerWorker};
use dem_api::RawGeom;

/// One chunk of the law pass: its contacts and what goes with them.
pub(super) struct Work<'w> {
    /// Index of the first contact.
    pub(super) first: usize,
    pub(super) list: &'w mut [Contact],
    /// The chunk's block of L6Geom and onset data.
    pub(super) hot: &'w mut [f64],
    /// The chunk's block of law state.
    pub(super) state: &'w mut [f64],
    /// The chunk's forces (see [`super::forces`]).
    pub(super) forces: &'w mut [f64],
    pub(super) total: &'w mut ContactTotals,
    pub(super) bodies: &'w mut [[u32; 2]],
}

/// Makes `raw` `n` long, each entry marked not touching (what a functor that wrote nothing
/// there would mean), without zeroing the rest: the functor writes every entry.
pub(super) fn unwritten(raw: &mut Vec<RawGeom>, n: usize) {
    raw.resize(n, RawGeom::default());
    for g in raw.iter_mut() {
        g.touching = 0;
    }
}

/// The error of a plugin call on the pair `(a, b)`, naming the plugin and the functor.
pub(super) fn call_error(
    cx: &StepContext<'_>,
    (a, b): (u32, u32),
    plugin: &str,
    functor: &str,
    message: String,
) -> DemError {
    DemError::PluginCall {
        step: cx.step,
        plugin: plugin.into(),
        functor: functor.into(),
        a,
        b,
        message,
    }
}

/// The distinct values of `key` over `items`, in order of first appearance (most chunks
/// hold one functor and one law).
pub(super) fn kinds<T>(items: &[T], key: impl Fn(&T) -> u16, out: &mut Vec<u16>) {
    out.clear();
    for x in items {
        let k = key(x);
        // Runs of one kind are the rule: the last kind is tested first.
        if out.last() != Some(&k) && !out.contains(&k) {
            out.push(k);
        }
    }
}

/// The indices `0..n` that `keep`, into `out`.
pub(super) fn pick(n: usize, keep: impl Fn(usize) -> bool, out: &mut Vec<usize>) {
    out.clear();
    out.extend((0..n).filter(|&i| keep(i)));
}

/// Buffers of one worker, reused from chunk to chunk and kept from step to step.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) kinds: Vec<u16>,
    pub(super) picked: Vec<usize>,
    pub(super) pairs: Vec<[u32; 2]>,
    pub(super) features: Vec<u32>,
    pub(super) out: Vec<RawGeom>,
    pub(super) law: LawColumns,
    /// The contacts whose L6Geom is updated.
    pub(super) ks: Vec<usize>,
    /// The bodies (body 1, body 2) and the term of each contact of the chunk (see
    /// [`super::geometry::pairs_of`]).
    chunk_pairs: Vec<[u32; 2]>,
    chunk_features: Vec<u32>,
    /// The chunk's geometry when the law pass computes it.
    pub(super) raw: Vec<RawGeom>,
    /// What the L6Geom update reads of the chunk's geometry and bodies (see
    /// [`crate::engines::l6geom::update::update_block`]).
    pub(super) gathered: Vec<f64>,
    /// The geometry functors' contact state of picked contacts or asked pairs, as rows.
    pub(super) kept: Vec<f64>,
}

impl Scratch {
    /// Room for a full chunk (growing the buffers item by item cost more than the law).
    pub(super) fn room(&mut self) {
        room(&mut self.kinds, 4);
        room(&mut self.picked, CHUNK);
        room(&mut self.pairs, CHUNK);
        room(&mut self.features, CHUNK);
        room(&mut self.out, CHUNK);
        room(&mut self.raw, CHUNK);
        room(&mut self.ks, CHUNK);
        room(&mut self.chunk_pairs, CHUNK);
        room(&mut self.chunk_features, CHUNK);
        let gathered = crate::engines::l6geom::update::GATHERED * crate::model::blocks::PITCH;
        if self.gathered.len() < gathered {
            self.gathered.resize(gathered, 0.0);
        }
    }
}

impl Scratch {
    /// The chunk's bodies and terms buffers, out of the scratch while it is in use.
    pub(super) fn take_pairs(&mut self) -> (Vec<[u32; 2]>, Vec<u32>) {
        (
            std::mem::take(&mut self.chunk_pairs),
            std::mem::take(&mut self.chunk_features),
        )
    }

    /// Gives back the buffers of [`Scratch::take_pairs`].
    pub(super) fn put_pairs(&mut self, pairs: Vec<[u32; 2]>, features: Vec<u32>) {
        (self.chunk_pairs, self.chunk_features) = (pairs, features);
    }
}

/// What the geometry and law passes keep from step to step, so that a step allocates
/// nothing: each worker's buffers and the list of the law pass's chunks.
#[derive(Default)]
pub(super) struct Buffers {
    pub(super) workers: PerWorker<Scratch>,
    pub(super) work: Vec<Work<'static>>,
}

/// A copy starts without buffers.
impl Clone for Buffers {
    fn clone(&self) -> Self {
        Buffers::default()
    }
}

impl Buffers {
    /// Runs `f` with the calling worker's scratch.
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut Scratch) -> R) -> R {
        self.workers.with(|kept| {
            kept.room();
            f(kept)
        })
    }
}
