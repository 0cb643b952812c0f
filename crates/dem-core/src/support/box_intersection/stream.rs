//! The streamed segment tree: recursion on the top axis, splitting the points at an
//! approximate median and streaming the intervals down, with the intervals that span a
//! node's segment handed one axis down.
//!
//! Positions along an axis are keys (low coordinate, position in the input), all distinct,
//! so every set of two or more points can be split in two non-empty halves even when many
//! boxes share a coordinate (lattices, identical boxes): the recursion always progresses.
//!
//! All sets live in one arena used as a stack and are named by index ranges: a node never
//! reorders its input; it appends its children's points and intervals, filtered in order,
//! on top of the arena and truncates them when done. The arena starts with the working
//! copies sorted along axis 0, so every subset is sorted and the scans at the leaves need no
//! sorting. In self-intersection mode the points and the intervals are the same range.

use super::item::{Item, Out};
use super::scan::{one_way, two_way};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use std::ops::Range;

/// A key along one axis: (low coordinate, position).
pub(super) type Key = (f64, u32);

#[inline(always)]
fn key(b: &Item, d: usize) -> Key {
    (b.lo[d], b.key)
}

#[inline(always)]
fn key_lt(a: Key, b: Key) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// Reusable buffers of the recursion.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    /// The working copies, then the nodes' subsets on top (see the module text). Its peak
    /// length is about 4 times the number of boxes on random sphere boxes (settle-like and
    /// 100:1 polydisperse, 1e5 boxes).
    pub(super) arena: Vec<Item>,
    /// Keys of a point set, for an exact median; (coordinate, position) pairs when loading.
    pub(super) keys: Vec<Key>,
}

impl Scratch {
    /// Bytes held.
    pub(super) fn capacity_bytes(&self) -> usize {
        self.arena.capacity() * size_of::<Item>() + self.keys.capacity() * size_of::<Key>()
    }
}

/// Recursion state: the cutoff, the sampling generator, the buffers.
pub(super) struct Stream<'s> {
    cutoff: usize,
    rng: Pcg32,
    scratch: &'s mut Scratch,
}

impl<'s> Stream<'s> {
    pub(super) fn new(cutoff: usize, seed: u64, scratch: &'s mut Scratch) -> Self {
        Self {
            cutoff: cutoff.max(2),
            rng: Pcg32::seed_from_u64(seed),
            scratch,
        }
    }

    /// Report every pair (p, i) of the arena ranges `points` and `intervals` (each sorted
    /// along axis 0) with `i.holds(p, dim)` that overlaps on axes below `dim` (axes above
    /// `dim` are known to overlap).
    pub(super) fn run(
        &mut self,
        points: Range<usize>,
        intervals: Range<usize>,
        dim: usize,
        in_order: bool,
        out: &mut Out,
    ) {
        self.node(points, intervals, None, None, dim, in_order, out);
    }

    /// One node of the tree on axis `dim`: `points` have keys in `[lo, hi)` (`None`:
    /// unbounded), `intervals` are those that may hold one of them. Each level keeps at most
    /// 3/4 of the points (see [`Self::split`]), so the depth is at most
    /// 3 log_{4/3}(n / cutoff) + 3. Leaves the arena as it found it.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        points: Range<usize>,
        intervals: Range<usize>,
        lo: Option<Key>,
        hi: Option<Key>,
        dim: usize,
        in_order: bool,
        out: &mut Out,
    ) {
        if points.is_empty() || intervals.is_empty() {
            return;
        }
        let arena = &self.scratch.arena;
        if dim == 0 {
            one_way(&arena[points], &arena[intervals], 0, in_order, out);
            return;
        }
        if points.len() < self.cutoff || intervals.len() < self.cutoff {
            two_way(&arena[points], &arena[intervals], dim, in_order, out);
            return;
        }
        let top = arena.len();

        // Intervals holding every key in [lo, hi): they start before lo and end at or after
        // the coordinate of hi. Paired with all points here one axis down, both ways round
        // (on the next axis either may start inside the other); they go no further.
        let bounds = lo.zip(hi);
        let spans =
            |i: &Item| bounds.is_some_and(|(l, h)| key_lt(key(i, dim), l) && i.hi[dim] >= h.0);
        if bounds.is_some() {
            let spanning = self.push_if(intervals.clone(), spans);
            if !spanning.is_empty() {
                let (p, s) = (points.clone(), spanning);
                self.node(p.clone(), s.clone(), None, None, dim - 1, in_order, out);
                self.node(s, p, None, None, dim - 1, !in_order, out);
                self.scratch.arena.truncate(top);
            }
        }

        let m = self.split(points.clone(), dim);
        // Left child, keys in [lo, m): intervals starting before m.
        let p = self.push_if(points.clone(), |p| key_lt(key(p, dim), m));
        let i = self.push_if(intervals.clone(), |i| !spans(i) && key_lt(key(i, dim), m));
        self.node(p, i, lo, Some(m), dim, in_order, out);
        self.scratch.arena.truncate(top);
        // Right child, keys in [m, hi): intervals reaching m's coordinate.
        let p = self.push_if(points, |p| !key_lt(key(p, dim), m));
        let i = self.push_if(intervals, |i| !spans(i) && i.hi[dim] >= m.0);
        self.node(p, i, Some(m), hi, dim, in_order, out);
        self.scratch.arena.truncate(top);
    }

    /// Append the elements of `src` satisfying `pred` on top of the arena, in order; returns
    /// where they are.
    #[inline(always)]
    fn push_if(&mut self, src: Range<usize>, pred: impl Fn(&Item) -> bool) -> Range<usize> {
        let arena = &mut self.scratch.arena;
        // Grow by a quarter rather than doubling: the peak need is about 4 times the
        // number of boxes (measured), so doubling would leave up to half of it unused.
        if arena.capacity() - arena.len() < src.len() {
            arena.reserve_exact(src.len() + arena.capacity() / 4);
        }
        let start = arena.len();
        for j in src {
            let x = arena[j];
            if pred(&x) {
                arena.push(x);
            }
        }
        start..arena.len()
    }

    /// A split key for the arena range `points` (at least 2) leaving between a quarter and
    /// three quarters of them below it: the median of three medians of three random samples
    /// or, when that is too unbalanced, the exact median.
    fn split(&mut self, points: Range<usize>, dim: usize) -> Key {
        let points = &self.scratch.arena[points];
        let n = points.len();
        debug_assert!(n >= 2);
        let mut sample = [(0.0, 0); 9];
        for s in sample.iter_mut() {
            *s = key(&points[self.rng.random_range(0..n)], dim);
        }
        let m = median3(
            median3(sample[0], sample[1], sample[2]),
            median3(sample[3], sample[4], sample[5]),
            median3(sample[6], sample[7], sample[8]),
        );
        let below = points.iter().filter(|p| key_lt(key(p, dim), m)).count();
        let least = (n / 4).max(1);
        if below >= least && n - below >= least {
            return m;
        }
        let keys = &mut self.scratch.keys;
        keys.clear();
        keys.extend(points.iter().map(|p| key(p, dim)));
        let cmp = |a: &Key, b: &Key| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        *keys.select_nth_unstable_by(n / 2, cmp).1
    }
}

fn median3(a: Key, b: Key, c: Key) -> Key {
    if key_lt(a, b) {
        if key_lt(b, c) {
            b
        } else if key_lt(a, c) {
            c
        } else {
            a
        }
    } else if key_lt(a, c) {
        a
    } else if key_lt(b, c) {
        c
    } else {
        b
    }
}
