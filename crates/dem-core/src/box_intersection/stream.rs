//! The streamed segment tree: recursion on the top axis, splitting the points at an
//! approximate median and streaming the intervals down, with the intervals that span a
//! node's segment handed one axis down.
//!
//! Positions along an axis are keys (low coordinate, position in the input), all distinct,
//! so every set of two or more points can be split in two non-empty halves even when many
//! boxes share a coordinate (lattices, identical boxes): the recursion always progresses.

use super::scan::{one_way, two_way};
use super::{cmp_along, Item, Out};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;

/// A key along one axis: (low coordinate, position).
type Key = (f64, u32);

#[inline(always)]
fn key(b: &Item, d: usize) -> Key {
    (b.lo[d], b.key)
}

#[inline(always)]
fn key_lt(a: Key, b: Key) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// Recursion state: the cutoff and the sampling generator.
pub(super) struct Stream {
    cutoff: usize,
    rng: Pcg32,
}

impl Stream {
    pub(super) fn new(cutoff: usize, seed: u64) -> Self {
        Self {
            cutoff: cutoff.max(2),
            rng: Pcg32::seed_from_u64(seed),
        }
    }

    /// Report every pair (p, i) with `i.holds(p, dim)` that overlaps on axes below `dim`
    /// (axes above `dim` are known to overlap).
    pub(super) fn run(
        &mut self,
        points: &mut [Item],
        intervals: &mut [Item],
        dim: usize,
        in_order: bool,
        out: &mut Out,
    ) {
        self.node(points, intervals, None, None, dim, in_order, out);
    }

    /// One node of the tree on axis `dim`: `points` have keys in `[lo, hi)` (`None`:
    /// unbounded), `intervals` are those that may hold one of them. Recursion depth: each
    /// level keeps at most 3/4 of the points (see [`Self::split`]), so at most
    /// 3 log_{4/3}(n / cutoff) + 3 levels.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        points: &mut [Item],
        intervals: &mut [Item],
        lo: Option<Key>,
        hi: Option<Key>,
        dim: usize,
        in_order: bool,
        out: &mut Out,
    ) {
        if points.is_empty() || intervals.is_empty() {
            return;
        }
        if dim == 0 {
            one_way(points, intervals, 0, in_order, out);
            return;
        }
        if points.len() < self.cutoff || intervals.len() < self.cutoff {
            two_way(points, intervals, dim, in_order, out);
            return;
        }
        // Intervals holding every key in [lo, hi): they start before lo and end at or after
        // the coordinate of hi. Paired with all points here one axis down, both ways round
        // (on the next axis either may start inside the other); they take no further part.
        let span_end = match (lo, hi) {
            (Some(l), Some(h)) => {
                partition(intervals, |i| key_lt(key(i, dim), l) && i.hi[dim] >= h.0)
            }
            _ => 0,
        };
        let (spanning, rest) = intervals.split_at_mut(span_end);
        if !spanning.is_empty() {
            self.node(points, spanning, None, None, dim - 1, in_order, out);
            self.node(spanning, points, None, None, dim - 1, !in_order, out);
        }
        let (mid, m) = self.split(points, dim);
        let (left, right) = points.split_at_mut(mid);
        // Left child, keys in [lo, m): intervals starting before m.
        let n = partition(rest, |i| key_lt(key(i, dim), m));
        self.node(left, &mut rest[..n], lo, Some(m), dim, in_order, out);
        // Right child, keys in [m, hi): intervals reaching m's coordinate.
        let n = partition(rest, |i| i.hi[dim] >= m.0);
        self.node(right, &mut rest[..n], Some(m), hi, dim, in_order, out);
    }

    /// Reorder `points` (at least 2) so that those with key below the returned split key
    /// come first; returns their count, between a quarter and three quarters of the points.
    /// The split key is the median of three medians of three random samples; when that is
    /// too unbalanced, the exact median.
    fn split(&mut self, points: &mut [Item], dim: usize) -> (usize, Key) {
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
        let mid = partition(points, |p| key_lt(key(p, dim), m));
        let least = (n / 4).max(1);
        if mid >= least && n - mid >= least {
            return (mid, m);
        }
        let half = n / 2;
        points.select_nth_unstable_by(half, |a, b| cmp_along(a, b, dim));
        (half, key(&points[half], dim))
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

/// Move the elements satisfying `pred` to the front; returns their count.
fn partition(v: &mut [Item], pred: impl Fn(&Item) -> bool) -> usize {
    let (mut i, mut j) = (0, v.len());
    loop {
        while i < j && pred(&v[i]) {
            i += 1;
        }
        while i < j && !pred(&v[j - 1]) {
            j -= 1;
        }
        if i >= j {
            return i;
        }
        v.swap(i, j - 1);
        i += 1;
        j -= 1;
    }
}
