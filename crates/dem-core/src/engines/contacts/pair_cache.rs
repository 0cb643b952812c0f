//! The geometry functors' pair caches (temporal coherence): `Cg2Functor::cache_len`
//! values per candidate slot, which a functor reads and updates at each of the slot's
//! detection calls (e.g. the polyhedron functor keeps the direction along which the pair
//! was last found apart, and rejects the pair along it without GJK while it stays apart).
//!
//! A cache may only change how fast a functor finds its result, never the result (the
//! contract of `Cg2Functor::geom_batch_kept`), so the solver is free to drop it: it is
//! zero for a new slot and after a checkpoint is restored, cleared when the particles are
//! renumbered, and carried over by key when the broad phase rebuilds the slots. Runs give
//! the same bits with or without it, on any number of threads (each slot's cache is
//! written only by the call of that slot).

use super::contact::Slot;
use super::Contacts;
use crate::engines::dispatch::Dispatch;

impl Contacts {
    /// Switches the pair caches on (the default) or off; off, every detection call takes
    /// the functors' full path (for tests that compare both, and for measurements).
    pub fn set_pair_cache(&mut self, on: bool) {
        self.no_cache = !on;
        if !on {
            self.cache = Vec::new();
            self.cache_stride = 0;
        }
    }

    /// Values per slot of the pair caches: the largest cache of the functors (0 when
    /// switched off).
    pub(super) fn cache_stride(&self, d: &Dispatch) -> usize {
        if self.no_cache {
            return 0;
        }
        d.geoms.iter().map(|g| g.cache_len).max().unwrap_or(0)
    }

    /// Sets the caches for the new `slots` (sorted by key), `stride` values each: those
    /// of the same pair and term in `old` (the previous slots, sorted by key, with the
    /// current caches) are kept, the others are zero.
    pub(super) fn carry_cache(&mut self, old: &[Slot], slots: &[Slot], stride: usize) {
        let mut cache = std::mem::take(&mut self.cache);
        let kept = stride > 0 && stride == self.cache_stride && cache.len() == old.len() * stride;
        let mut fresh = vec![0.0; slots.len() * stride];
        if kept {
            // Both lists are sorted by key: one merge walk.
            let mut j = 0;
            for (i, s) in slots.iter().enumerate() {
                while j < old.len() && old[j].key() < s.key() {
                    j += 1;
                }
                if j < old.len() && old[j].key() == s.key() {
                    fresh[i * stride..(i + 1) * stride]
                        .copy_from_slice(&cache[j * stride..(j + 1) * stride]);
                }
            }
        }
        cache.clear();
        self.cache = fresh;
        self.cache_stride = stride;
    }

    /// Number of slots whose pair cache holds something (not all zero).
    pub fn cached_pairs(&self) -> usize {
        if self.cache_stride == 0 {
            return 0;
        }
        self.cache
            .chunks_exact(self.cache_stride)
            .filter(|c| c.iter().any(|&x| x != 0.0))
            .count()
    }
}
