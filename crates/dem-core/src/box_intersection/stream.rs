//! The streamed segment tree: recursion on the top axis, splitting the points at an
//! approximate median and streaming the intervals down, with the intervals that span a
//! node's segment handed one axis down.
//!
//! Positions along an axis are keys (low coordinate, position in the input), all distinct,
//! so every set of two or more points can be split in two non-empty halves even when many
//! boxes share a coordinate (lattices, identical boxes): the recursion always progresses.
//!
//! A node never reorders its input: each child gets copies of its points and intervals,
//! filtered in order, in buffers kept per recursion depth (reused by siblings and across
//! calls). Both sets arrive sorted along axis 0, so every subset is sorted and the scans at
//! the leaves need no sorting.

use super::scan::{one_way, two_way};
use super::{Item, Out};
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

/// The sets one node hands to its recursions.
#[derive(Clone, Debug, Default)]
struct Level {
    spanning: Vec<Item>,
    left_points: Vec<Item>,
    left_intervals: Vec<Item>,
    right_points: Vec<Item>,
    right_intervals: Vec<Item>,
}

/// Reusable buffers of the recursion.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    /// By recursion depth.
    levels: Vec<Level>,
    /// Keys of a point set, for an exact median.
    keys: Vec<Key>,
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

    /// Report every pair (p, i) with `i.holds(p, dim)` that overlaps on axes below `dim`
    /// (axes above `dim` are known to overlap). Both sets sorted along axis 0.
    pub(super) fn run(
        &mut self,
        points: &[Item],
        intervals: &[Item],
        dim: usize,
        in_order: bool,
        out: &mut Out,
    ) {
        self.node(points, intervals, None, None, dim, in_order, 0, out);
    }

    /// One node of the tree on axis `dim`: `points` have keys in `[lo, hi)` (`None`:
    /// unbounded), `intervals` are those that may hold one of them. Each level keeps at most
    /// 3/4 of the points (see [`Self::split`]), so the depth is at most
    /// 3 log_{4/3}(n / cutoff) + 3.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        points: &[Item],
        intervals: &[Item],
        lo: Option<Key>,
        hi: Option<Key>,
        dim: usize,
        in_order: bool,
        depth: usize,
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
        if self.scratch.levels.len() <= depth {
            self.scratch.levels.resize_with(depth + 1, Level::default);
        }
        // This depth's buffers, out of the scratch while deeper nodes use theirs.
        let mut level = std::mem::take(&mut self.scratch.levels[depth]);
        let m = self.split(points, dim, &mut level);

        // Intervals holding every key in [lo, hi) (they start before lo and end at or after
        // the coordinate of hi) are paired with all points here one axis down, both ways
        // round (on the next axis either may start inside the other), and go no further.
        // The others go to the left child, keys in [lo, m), if they start before m, and to
        // the right child, keys in [m, hi), if they reach m's coordinate.
        level.spanning.clear();
        level.left_intervals.clear();
        level.right_intervals.clear();
        level.spanning.reserve(intervals.len());
        level.left_intervals.reserve(intervals.len());
        level.right_intervals.reserve(intervals.len());
        let bounds = lo.zip(hi);
        for i in intervals {
            if bounds.is_some_and(|(l, h)| key_lt(key(i, dim), l) && i.hi[dim] >= h.0) {
                level.spanning.push(*i);
                continue;
            }
            if key_lt(key(i, dim), m) {
                level.left_intervals.push(*i);
            }
            if i.hi[dim] >= m.0 {
                level.right_intervals.push(*i);
            }
        }
        if !level.spanning.is_empty() {
            let s = &level.spanning;
            self.node(points, s, None, None, dim - 1, in_order, depth + 1, out);
            self.node(s, points, None, None, dim - 1, !in_order, depth + 1, out);
        }
        let (p, i) = (&level.left_points, &level.left_intervals);
        self.node(p, i, lo, Some(m), dim, in_order, depth + 1, out);
        let (p, i) = (&level.right_points, &level.right_intervals);
        self.node(p, i, Some(m), hi, dim, in_order, depth + 1, out);

        self.scratch.levels[depth] = level;
    }

    /// Split `points` (at least 2) into `level.left_points` (keys below the returned split
    /// key) and `level.right_points`, in order, each with at least a quarter of them. The
    /// split key is the median of three medians of three random samples or, when that is too
    /// unbalanced, the exact median.
    fn split(&mut self, points: &[Item], dim: usize, level: &mut Level) -> Key {
        let n = points.len();
        debug_assert!(n >= 2);
        let mut sample = [(0.0, 0); 9];
        for s in sample.iter_mut() {
            *s = key(&points[self.rng.random_range(0..n)], dim);
        }
        let mut m = median3(
            median3(sample[0], sample[1], sample[2]),
            median3(sample[3], sample[4], sample[5]),
            median3(sample[6], sample[7], sample[8]),
        );
        let least = (n / 4).max(1);
        let below = |level: &mut Level, m: Key| {
            let (l, r) = (&mut level.left_points, &mut level.right_points);
            l.clear();
            r.clear();
            l.reserve(n);
            r.reserve(n);
            for p in points {
                if key_lt(key(p, dim), m) {
                    l.push(*p);
                } else {
                    r.push(*p);
                }
            }
            l.len()
        };
        let k = below(level, m);
        if k < least || n - k < least {
            let keys = &mut self.scratch.keys;
            keys.clear();
            keys.extend(points.iter().map(|p| key(p, dim)));
            let cmp = |a: &Key, b: &Key| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
            m = *keys.select_nth_unstable_by(n / 2, cmp).1;
            below(level, m);
        }
        m
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
