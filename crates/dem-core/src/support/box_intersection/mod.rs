//! Intersecting pairs among axis-aligned boxes: the hybrid streamed segment tree of
//! Zomorodian & Edelsbrunner ("Fast software for box intersections", IJCGA 12, 2002) and the
//! plain one-way scan (sort along one axis and sweep), its base case.
//!
//! # Conventions
//! - Boxes are **closed**: `a` and `b` intersect when `a.lo[k] <= b.hi[k]` and
//!   `b.lo[k] <= a.hi[k]` on all three axes, so boxes touching at a face, an edge or a corner,
//!   and zero-size boxes lying on another box's boundary, intersect.
//! - Every intersecting pair of **distinct** boxes is reported **exactly once** (a box is never
//!   paired with itself). There is no de-duplication step: each pair is found by one and only
//!   one branch of the recursion (see [`BoxIntersection::self_pairs`]).
//! - Self-intersection ("complete" mode) reports `(a, b)` with `a < b` (ids of the two boxes);
//!   the bipartite form reports `(id in first set, id in second set)`.
//! - With [`BoxIntersection::sort_output`] (the default) the pairs come out sorted
//!   lexicographically, the same order as a sorted brute-force list. Without it the order is
//!   still deterministic: a function of the input (coordinates, ids and their order in the
//!   slice) and the settings only, not of earlier calls.
//! - Ids are the caller's: they should be unique within a call (for `a < b` to be strict);
//!   the algorithm itself breaks ties by position in the input slice, so it stays correct with
//!   repeated ids. Coordinates must not be NaN and `lo <= hi` on each axis; `-0.0` is treated
//!   as `0.0`; infinite coordinates are allowed.
//!
//! # Use in a broad phase
//! Keep one [`BoxIntersection`] alive and call [`BoxIntersection::self_pairs`] at every
//! rebuild with the (skin-inflated) bounding boxes of all bounded bodies, ids = particle
//! indices: after the first calls its buffers and the caller's output vector have grown to
//! size and nothing more is allocated. The scratch peaks at about 4 working copies (56 bytes
//! each) per box, plus 8 bytes per pair for sorting the output.
//! The hybrid costs O(n log^3 n + k) for n boxes and k pairs whatever the size distribution, so
//! it suits wide size distributions and polyhedra/facet boxes, where a uniform grid degrades.
//! Below [`DEFAULT_CUTOFF`] boxes it is a single scan. [`BoxIntersection::scan_self_pairs`] is
//! the simple sort-and-sweep alternative: its cost is the number of pairs overlapping along
//! the sweep axis, fine for a few thousand boxes or boxes strung along one axis, quadratic
//! when many boxes overlap along every axis.
//!
//! ```
//! use dem_core::support::box_intersection::{Aabb, BoxIntersection};
//! // Spheres (centre, radius) -> boxes inflated by half the Verlet skin.
//! let spheres = [([0.0, 0.0, 0.0], 0.5), ([0.9, 0.0, 0.0], 0.5), ([3.0, 0.0, 0.0], 0.5)];
//! let half_skin = 0.05;
//! let boxes: Vec<Aabb> = spheres
//!     .iter()
//!     .enumerate()
//!     .map(|(i, (c, r))| Aabb {
//!         lo: c.map(|x| x - r - half_skin),
//!         hi: c.map(|x| x + r + half_skin),
//!         id: i as u32,
//!     })
//!     .collect();
//! let mut finder = BoxIntersection::new(); // keep it between rebuilds
//! let mut pairs = Vec::new();
//! finder.self_pairs(&boxes, &mut pairs);
//! assert_eq!(pairs, [(0, 1)]);
//! ```

mod item;
mod scan;
mod stream;
#[cfg(test)]
mod tests;

use item::{Item, Out};
use std::ops::Range;

/// An axis-aligned box with the caller's id (e.g. a particle index).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub lo: [f64; 3],
    /// Upper corner (`hi[k] >= lo[k]`).
    pub hi: [f64; 3],
    /// Caller's id, reported in the pairs.
    pub id: u32,
}

/// Default [`BoxIntersection::cutoff`]: below this many boxes on either side a subproblem
/// is solved by a scan instead of being split further. Measured with
/// `cargo bench -p dem-core --bench box_intersection` (settle-like and 100:1 polydisperse
/// sphere boxes): at N = 1e4 512 is the best or within noise of it; at N = 1e5 1024-2048 are
/// 10-15 % faster than 512; 32 is 2-3 times slower and 4096 up to 2 times slower at 1e4.
/// Larger sets may set a larger cutoff.
pub const DEFAULT_CUTOFF: usize = 512;

/// Reusable settings and scratch buffers for box-intersection queries. Calls allocate only
/// while the buffers (and the caller's output vector) grow.
#[derive(Clone, Debug)]
pub struct BoxIntersection {
    /// Subproblems with fewer points or fewer intervals than this are solved by a scan
    /// (values below 2 act as 2). See [`DEFAULT_CUTOFF`].
    pub cutoff: usize,
    /// Axis swept by the scans (0, 1 or 2); `None` chooses, at each call, the axis along which
    /// the box centres spread most relative to the mean box width. The tree splits first
    /// along the better of the two others.
    pub sweep_axis: Option<usize>,
    /// Sort the pairs lexicographically before returning (default `true`).
    pub sort_output: bool,
    /// Seed of the sampling used to pick split values (reset at each call).
    pub seed: u64,
    scratch: stream::Scratch,
    sort_tmp: Vec<(u32, u32)>,
    sort_count: Vec<u32>,
}

impl Default for BoxIntersection {
    fn default() -> Self {
        Self::new()
    }
}

impl BoxIntersection {
    /// Default settings ([`DEFAULT_CUTOFF`], automatic sweep axis, sorted output), empty
    /// buffers.
    pub fn new() -> Self {
        Self {
            cutoff: DEFAULT_CUTOFF,
            sweep_axis: None,
            sort_output: true,
            seed: 0x5eed_b0c5,
            scratch: stream::Scratch::default(),
            sort_tmp: Vec::new(),
            sort_count: Vec::new(),
        }
    }

    /// All intersecting pairs among `boxes` with the hybrid algorithm, into `out` (cleared
    /// first), as `(a, b)` ids with `a < b`.
    ///
    /// The boxes are seen twice, as intervals and as points (their low corners). Along the
    /// top axis a segment tree over the points is streamed: at each node the intervals that
    /// span the node's whole segment are paired with the node's points by recursing one axis
    /// down (both ways round), the others are sent to the children they reach, and the points
    /// are split at an approximate median. Subproblems below [`Self::cutoff`] are scanned.
    /// "Point `p` lies in interval `i`" uses the strict order (low coordinate, position) on
    /// both ends, so for two overlapping boxes exactly one lies in the other: each pair is
    /// found once, and identical or touching boxes need no special case.
    pub fn self_pairs(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
        out.clear();
        let perm = self.axis_order(boxes, &[]);
        let (all, _) = self.load(boxes, &[], perm);
        let mut sink = Out {
            pairs: out,
            complete: true,
        };
        let mut tree = stream::Stream::new(self.cutoff, self.seed, &mut self.scratch);
        // The same boxes as points and as intervals.
        tree.run(all.clone(), all, 2, true, &mut sink);
        self.finish(out);
    }

    /// All intersecting pairs between `a` and `b` (no pairs within one set) with the hybrid
    /// algorithm, into `out` (cleared first), as `(id in a, id in b)`.
    pub fn bipartite_pairs(&mut self, a: &[Aabb], b: &[Aabb], out: &mut Vec<(u32, u32)>) {
        out.clear();
        let perm = self.axis_order(a, b);
        let (ra, rb) = self.load(a, b, perm);
        let mut sink = Out {
            pairs: out,
            complete: false,
        };
        let mut tree = stream::Stream::new(self.cutoff, self.seed, &mut self.scratch);
        // Pairs where a's box starts inside b's on the top axis, then the converse.
        tree.run(ra.clone(), rb.clone(), 2, true, &mut sink);
        tree.run(rb, ra, 2, false, &mut sink);
        self.finish(out);
    }

    /// All intersecting pairs among `boxes` by the one-way scan: sort by the low coordinate
    /// along the sweep axis and, for each box, test the boxes that start before it ends.
    /// Same output as [`Self::self_pairs`]; the cost is the number of pairs overlapping along
    /// the sweep axis.
    pub fn scan_self_pairs(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
        out.clear();
        let perm = self.axis_order(boxes, &[]);
        let (all, _) = self.load(boxes, &[], perm);
        let mut sink = Out {
            pairs: out,
            complete: true,
        };
        scan::sweep_complete(&self.scratch.arena[all], &mut sink);
        self.finish(out);
    }

    /// Bipartite form of [`Self::scan_self_pairs`]: pairs `(id in a, id in b)`.
    pub fn scan_bipartite_pairs(&mut self, a: &[Aabb], b: &[Aabb], out: &mut Vec<(u32, u32)>) {
        out.clear();
        let perm = self.axis_order(a, b);
        let (ra, rb) = self.load(a, b, perm);
        let mut sink = Out {
            pairs: out,
            complete: false,
        };
        let arena = &self.scratch.arena;
        scan::one_way(&arena[ra.clone()], &arena[rb.clone()], 2, true, &mut sink);
        scan::one_way(&arena[rb], &arena[ra], 2, false, &mut sink);
        self.finish(out);
    }

    /// Bytes held by the scratch buffers (not counting the caller's output vector): they
    /// grow to what the largest call so far needed and are kept for the next calls.
    pub fn capacity_bytes(&self) -> usize {
        self.scratch.capacity_bytes()
            + (self.sort_tmp.capacity() * size_of::<(u32, u32)>())
            + self.sort_count.capacity() * size_of::<u32>()
    }

    /// Working copies of `a` then `b` at the bottom of the arena, each sorted along the sweep
    /// axis; returns where they are. Sorts (coordinate, position) pairs, cheaper to move than
    /// boxes, then copies the boxes in that order.
    fn load(&mut self, a: &[Aabb], b: &[Aabb], perm: [usize; 3]) -> (Range<usize>, Range<usize>) {
        assert!(
            a.len() + b.len() <= u32::MAX as usize,
            "too many boxes for u32 keys"
        );
        let stream::Scratch { arena, keys } = &mut self.scratch;
        arena.clear();
        for (set, key0) in [(a, 0), (b, a.len())] {
            keys.clear();
            // `+ 0.0` turns -0.0 into 0.0, so that sorting by total_cmp agrees with `<`.
            keys.extend(
                set.iter()
                    .enumerate()
                    .map(|(n, x)| (x.lo[perm[0]] + 0.0, n as u32)),
            );
            keys.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            arena.extend(keys.iter().map(|&(_, n)| {
                let x = &set[n as usize];
                debug_assert!(
                    (0..3).all(|k| x.lo[k] <= x.hi[k]),
                    "box {} has lo > hi or NaN",
                    x.id
                );
                Item {
                    lo: perm.map(|k| x.lo[k] + 0.0),
                    hi: perm.map(|k| x.hi[k] + 0.0),
                    key: (key0 + n as usize) as u32,
                    id: x.id,
                }
            }));
        }
        (0..a.len(), a.len()..a.len() + b.len())
    }

    fn finish(&mut self, out: &mut Vec<(u32, u32)>) {
        if self.sort_output {
            radix_sort_pairs(out, &mut self.sort_tmp, &mut self.sort_count);
        }
    }

    /// Axis order for the working copies: the sweep axis first (where the boxes spread most
    /// relative to their width), the tree's top axis last (the next best: split first), the
    /// poorest axis in the middle (only ever reached by spanning sets).
    fn axis_order(&self, a: &[Aabb], b: &[Aabb]) -> [usize; 3] {
        let spread = spreads(&[a, b]);
        let mut rank = [0, 1, 2];
        // Stable: ties keep the natural order.
        rank.sort_by(|&x, &y| spread[y].total_cmp(&spread[x]));
        if let Some(s) = self.sweep_axis {
            assert!(s < 3, "sweep_axis must be 0, 1 or 2");
            // Move s to the front, the others keep their rank order.
            let at = rank.iter().position(|&k| k == s).unwrap_or(0);
            rank[..=at].rotate_right(1);
        }
        [rank[0], rank[2], rank[1]]
    }
}

/// All intersecting pairs among `boxes` (hybrid algorithm, default settings), sorted, `a < b`.
/// Allocates; keep a [`BoxIntersection`] for repeated calls.
pub fn self_intersections(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    BoxIntersection::new().self_pairs(boxes, &mut out);
    out
}

/// All intersecting pairs among `boxes` by the one-way scan (default settings), sorted,
/// `a < b`. Allocates; keep a [`BoxIntersection`] for repeated calls.
pub fn scan_self_intersections(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    BoxIntersection::new().scan_self_pairs(boxes, &mut out);
    out
}

/// Per axis, the extent of the box centres in mean box widths: the larger, the fewer boxes a
/// sweep along that axis sees at once. Boxes infinite along an axis are left out of that
/// axis' figures. Infinite for points spread out, 0 when not spread.
fn spreads(sets: &[&[Aabb]]) -> [f64; 3] {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut width = [0.0f64; 3];
    let mut count = [0.0f64; 3];
    for b in sets.iter().flat_map(|s| s.iter()) {
        for k in 0..3 {
            let w = b.hi[k] - b.lo[k];
            if !w.is_finite() {
                continue;
            }
            let c = 0.5 * (b.lo[k] + b.hi[k]);
            if c < lo[k] {
                lo[k] = c;
            }
            if c > hi[k] {
                hi[k] = c;
            }
            width[k] += w;
            count[k] += 1.0;
        }
    }
    [0, 1, 2].map(|k| {
        let extent = (hi[k] - lo[k]).max(0.0);
        if width[k] > 0.0 {
            extent * count[k] / width[k]
        } else if extent > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    })
}

/// Sort pairs lexicographically: LSD radix sort on four 16-bit digits, skipping digits that
/// are the same in every pair (the high halves when ids are below 65536); small inputs use
/// the library sort.
fn radix_sort_pairs(v: &mut Vec<(u32, u32)>, tmp: &mut Vec<(u32, u32)>, count: &mut Vec<u32>) {
    if v.len() < 4096 {
        v.sort_unstable();
        return;
    }
    tmp.clear();
    tmp.resize(v.len(), (0, 0));
    count.resize(1 << 16, 0);
    for pass in 0..4 {
        let digit = |x: &(u32, u32)| -> usize {
            (match pass {
                0 => x.1 & 0xffff,
                1 => x.1 >> 16,
                2 => x.0 & 0xffff,
                _ => x.0 >> 16,
            }) as usize
        };
        count.fill(0);
        for x in v.iter() {
            count[digit(x)] += 1;
        }
        if count[digit(&v[0])] as usize == v.len() {
            continue;
        }
        let mut sum = 0;
        for c in count.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for x in v.iter() {
            let d = digit(x);
            tmp[count[d] as usize] = *x;
            count[d] += 1;
        }
        std::mem::swap(v, tmp);
    }
}
