//! Broad phase: a uniform cell grid over the bounded particles with a Verlet skin, a
//! direct test of every wall against every bounded particle, and for each mesh facet a
//! test of the particles in the cells its box covers. The list of candidate pairs is kept
//! until some particles have moved, together, more than the skin (a facet's displacement
//! is the largest displacement of its vertices, so rotating meshes are tracked).

use crate::engines::facet_grid::{cell_range, FacetGrid};
use crate::model::particles::{Facet, Particles, Shape};
use crate::support::box_intersection::{Aabb, BoxIntersection};
use crate::support::cell_bins::{cell_count, cell_of, CellBins};
use crate::support::team::Team;
use nalgebra::{UnitQuaternion, Vector3};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Broad-phase method for pairs of bounded particles (both give the same pairs).
#[derive(Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BroadPhase {
    /// A uniform cell grid of the largest particle's size: best for narrow size
    /// distributions.
    #[default]
    Grid,
    /// Zomorodian and Edelsbrunner's hybrid box intersection of the particles' bounding
    /// boxes: for wide size distributions, where a grid sized for the largest particle
    /// holds many small ones per cell.
    BoxIntersection,
}

/// Candidate pairs and what is needed to know when they go stale (saved whole in a
/// checkpoint: the next rebuild must happen at the same step as in an uninterrupted run).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerletList {
    /// Candidate pairs `(a, b)` with `a < b`, sorted.
    pub pairs: Vec<(u32, u32)>,
    /// Positions at the last rebuild.
    anchor: Vec<Vector3<f64>>,
    /// Orientations at the last rebuild.
    anchor_ori: Vec<UnitQuaternion<f64>>,
    /// Skin used at the last rebuild, m.
    skin: f64,
    /// Number of rebuilds so far.
    pub rebuilds: u64,
    /// Facets that stood still at the last rebuild, by cell: a cache, not saved in a
    /// checkpoint (rebuilt at the next rebuild, giving the same pairs).
    #[serde(skip)]
    facets: FacetGrid,
    /// How pairs of bounded particles are found (both methods give the same list, so it
    /// is a setting of the scene, not part of a checkpoint).
    #[serde(skip)]
    pub method: BroadPhase,
    /// Buffers of the grid and of the box intersection, kept between rebuilds.
    #[serde(skip)]
    scratch: Scratch,
    /// The mesh facets (a cache of the particles' shapes, set at each rebuild and when
    /// a checkpoint is read).
    #[serde(skip)]
    facet_ids: FacetIds,
}

/// Indices of the facet particles: no part of the list's value (always equal).
#[derive(Clone, Debug, Default)]
struct FacetIds(Vec<u32>);

impl PartialEq for FacetIds {
    fn eq(&self, _: &FacetIds) -> bool {
        true
    }
}

/// The grid's and the box intersection's buffers: no part of the list's value (always
/// equal).
#[derive(Clone, Debug, Default)]
struct Scratch {
    bins: CellBins,
    boxes: BoxIntersection,
}

impl PartialEq for Scratch {
    fn eq(&self, _: &Scratch) -> bool {
        true
    }
}

/// Particles per parallel chunk of the staleness test.
const STALE_CHUNK: usize = 2048;

/// Particles per parallel chunk of the grid's pair search.
const PAIR_CHUNK: usize = 512;

/// The two largest of the values `a` and `b` hold (each its two largest, largest first).
pub fn merge_tops(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    let mut best = a;
    top(&mut best, b[0]);
    top(&mut best, b[1]);
    best
}

/// Keeps in `best` the two largest values seen, largest first.
fn top(best: &mut [f64; 2], d: f64) {
    if d > best[0] {
        best[1] = best[0];
        best[0] = d;
    } else if d > best[1] {
        best[1] = d;
    }
}

/// [`top`] of the squared displacement of each particle of a run, from its position `now`
/// and its anchor `then` (the first is particle `first`), skipping the `facets` (ids in
/// order, from the run's first on). Compiled for each CPU level (the same bits).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
fn run_tops(
    best: &mut [f64; 2],
    (now, then): (&[Vector3<f64>], &[Vector3<f64>]),
    first: usize,
    facets: &[u32],
) {
    let mut facets = facets.iter().peekable();
    for (i, (x, x0)) in now.iter().zip(then).enumerate() {
        if facets.next_if_eq(&&((first + i) as u32)).is_none() {
            top(best, (x - x0).norm_squared());
        }
    }
}

/// A particle whose bounding radius exceeds this many times the median of the bounded
/// particles' is large: the grid is not sized for it, nor is the skin.
pub const LARGE_RADIUS_RATIO: f64 = 4.0;

/// The largest bounding radius above which a particle of `p` is large (see
/// [`LARGE_RADIUS_RATIO`]); infinite when there are no bounded particles.
pub fn large_radius(p: &Particles) -> f64 {
    let mut r: Vec<f64> = p.shape.iter().filter_map(|s| s.bounding_radius()).collect();
    if r.is_empty() {
        return f64::INFINITY;
    }
    let mid = r.len() / 2;
    let (_, median, _) = r.select_nth_unstable_by(mid, f64::total_cmp);
    LARGE_RADIUS_RATIO * *median
}

/// The bounding radius the skin and the grid are sized for: the largest that is not
/// large, m (0 without bounded particles).
pub fn typical_radius(p: &Particles) -> f64 {
    let limit = large_radius(p);
    p.shape
        .iter()
        .filter_map(|s| s.bounding_radius())
        .filter(|&r| r <= limit)
        .fold(0.0, f64::max)
}

/// `bounded` split into the particles the grid is sized for and the large ones.
fn split_large(p: &Particles, bounded: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let limit = large_radius(p);
    bounded
        .iter()
        .partition(|&&i| p.shape[i].bounding_radius().is_some_and(|r| r <= limit))
}

/// Smallest distance between the surfaces of the bounding volumes of two particles, m
/// (negative in overlap). `None` when neither is bounded (walls never pair with walls).
pub(crate) fn bound_gap(p: &Particles, a: usize, b: usize) -> Option<f64> {
    match (&p.shape[a], &p.shape[b]) {
        (Shape::Wall(_) | Shape::Facet(_), Shape::Wall(_) | Shape::Facet(_)) => None,
        (Shape::Facet(f), s) | (s, Shape::Facet(f)) => {
            let (fi, si) = if matches!(p.shape[a], Shape::Facet(_)) {
                (a, b)
            } else {
                (b, a)
            };
            Some(facet_box_distance(f, p, fi, &p.pos[si]) - s.bounding_radius()?)
        }
        (Shape::Wall(w), s) | (s, Shape::Wall(w)) => {
            let (wi, si) = if matches!(p.shape[a], Shape::Wall(_)) {
                (a, b)
            } else {
                (b, a)
            };
            // Most walls never turn: the rotation of their normal is skipped then.
            let q = &p.ori[wi];
            let n = if *q == UnitQuaternion::identity() {
                *w.normal.na()
            } else {
                q * w.normal.na()
            };
            Some(wall_gap(
                &n,
                w.sense,
                &p.pos[wi],
                &p.pos[si],
                s.bounding_radius()?,
            ))
        }
        (sa, sb) => {
            Some((p.pos[a] - p.pos[b]).norm() - sa.bounding_radius()? - sb.bounding_radius()?)
        }
    }
}

/// Gap between a wall through `at` with global unit normal `n` (one-sided by `sense`, see
/// `WallShape::sense`) and a sphere of radius `r` centred at `x`, m. A one-sided wall acts
/// on everything behind it: that counts as overlap.
fn wall_gap(n: &Vector3<f64>, sense: i32, at: &Vector3<f64>, x: &Vector3<f64>, r: f64) -> f64 {
    let side = n.dot(&(x - at));
    let d = if sense == 0 {
        side.abs()
    } else {
        side * sense.signum() as f64
    };
    d - r
}

/// Distance from `x` to the bounding box of facet `i`, less its half-thickness, m
/// (negative inside). The same box, grown, decides which grid cells the facet covers.
fn facet_box_distance(f: &Facet, p: &Particles, i: usize, x: &Vector3<f64>) -> f64 {
    let v = f.vertices(&p.pos[i], &p.ori[i]);
    let lo = v.iter().fold(v[0], |m, y| m.inf(y));
    let hi = v.iter().fold(v[0], |m, y| m.sup(y));
    let outside = (lo - x).sup(&(x - hi)).sup(&Vector3::zeros());
    outside.norm() - f.shape.halfthick
}

/// How far particle `i` (any point of it, for a facet) moved from the anchor pose, m.
fn displacement(p: &Particles, i: usize, x0: &Vector3<f64>, q0: &UnitQuaternion<f64>) -> f64 {
    match &p.shape[i] {
        Shape::Facet(f) if p.ori[i] != *q0 => {
            let (now, then) = (f.vertices(&p.pos[i], &p.ori[i]), f.vertices(x0, q0));
            (0..3)
                .map(|k| (now[k] - then[k]).norm())
                .fold(0.0, f64::max)
        }
        _ => (p.pos[i] - x0).norm(),
    }
}

impl VerletList {
    /// An empty list that will find pairs of bounded particles with `method`.
    pub fn with_method(method: BroadPhase) -> VerletList {
        VerletList {
            method,
            ..VerletList::default()
        }
    }

    /// True when the list must be rebuilt before use: never built, or the two largest
    /// displacements since the last build sum to more than the skin.
    pub fn stale(&self, p: &Particles) -> bool {
        self.stale_in(p, &Team::default())
    }

    /// [`VerletList::stale`] with the positions shared among the members of `team`.
    pub fn stale_in(&self, p: &Particles, team: &Team) -> bool {
        !self.built_for(p) || self.beyond_skin(self.tops_in(p, team, 0..p.len()))
    }

    /// Was the list built for as many particles as `p` holds?
    pub fn built_for(&self, p: &Particles) -> bool {
        self.anchor.len() == p.len()
    }

    /// Do the two largest squared displacements `tops` (m²) call for a rebuild?
    pub fn beyond_skin(&self, tops: [f64; 2]) -> bool {
        tops[0].sqrt() + tops[1].sqrt() > self.skin
    }

    /// The two largest squared displacements since the last rebuild (m², largest first)
    /// among the particles of `range`; the list must be
    /// [built for](Self::built_for) `p`. The two largest of a set do not depend on how
    /// it is split, so the parts' tops [merged](merge_tops) give the whole's.
    pub fn tops_in(&self, p: &Particles, team: &Team, range: Range<usize>) -> [f64; 2] {
        // Each member its run of chunks; the facets, which may have turned, after.
        let facets = &self.facet_ids.0;
        let chunks = range.len().div_ceil(STALE_CHUNK);
        let tops = std::sync::Mutex::new([0.0; 2]);
        team.run(|t| {
            let mut best = [0.0; 2];
            for k in team.range(chunks, t) {
                let from = range.start + k * STALE_CHUNK;
                let r = from..(from + STALE_CHUNK).min(range.end);
                let start = facets.partition_point(|&f| f < r.start as u32);
                let (now, then) = (&p.pos[r.clone()], &self.anchor[r.clone()]);
                run_tops(&mut best, (now, then), r.start, &facets[start..]);
            }
            let mut all = tops.lock().expect("stale tops");
            *all = merge_tops(*all, best);
        });
        let mut best = tops.into_inner().expect("stale tops");
        let (lo, hi) = (range.start as u32, range.end as u32);
        for &f in &facets[facets.partition_point(|&f| f < lo)..facets.partition_point(|&f| f < hi)]
        {
            let f = f as usize;
            let d = displacement(p, f, &self.anchor[f], &self.anchor_ori[f]);
            top(&mut best, d * d);
        }
        best
    }

    /// [`VerletList::tops_in`] of the particles `ids`, one after the other.
    pub fn tops_of(&self, p: &Particles, ids: &[u32]) -> [f64; 2] {
        let mut best = [0.0; 2];
        for &i in ids {
            let i = i as usize;
            // As `tops_in` measures each.
            let d2 = match p.shape[i] {
                Shape::Facet(_) => {
                    let d = displacement(p, i, &self.anchor[i], &self.anchor_ori[i]);
                    d * d
                }
                _ => (p.pos[i] - self.anchor[i]).norm_squared(),
            };
            top(&mut best, d2);
        }
        best
    }

    /// Notes which particles are mesh facets (whose displacement [`Self::stale`] measures
    /// at their vertices).
    pub fn find_facets(&mut self, p: &Particles) {
        self.facet_ids.0 = (0..p.len() as u32)
            .filter(|&i| matches!(p.shape[i as usize], Shape::Facet(_)))
            .collect();
    }

    /// Rebuilds the list: every pair whose bounding volumes are closer than
    /// `reach + skin` (`reach`: largest interaction distance plus hysteresis), m.
    pub fn rebuild(&mut self, p: &Particles, reach: f64, skin: f64) {
        let margin = reach + skin;
        let mut pairs = Vec::new();
        let bounded: Vec<usize> = (0..p.len())
            .filter(|&i| p.shape[i].bounding_radius().is_some())
            .collect();
        let walls: Vec<usize> = (0..p.len())
            .filter(|&i| matches!(p.shape[i], Shape::Wall(_)))
            .collect();
        // The grid's cells are sized for the ordinary particles; the few large ones (a
        // boulder among grains) are tested against the cells their reach covers. The box
        // intersection handles any size spread itself.
        let (small, large) = match self.method {
            BroadPhase::Grid => split_large(p, &bounded),
            BroadPhase::BoxIntersection => (bounded.clone(), Vec::new()),
        };
        let rmax = small
            .iter()
            .map(|&i| p.shape[i].bounding_radius().unwrap_or(0.0))
            .fold(0.0, f64::max);
        let cell = (2.0 * rmax + margin).max(f64::MIN_POSITIVE);
        // Taken out of the list for the rebuild (so that `self` stays free) and put back.
        let mut bins = std::mem::take(&mut self.scratch.bins);
        bins.build(&small, &p.pos, cell);
        // The members of the buckets covering the cells from `lo` to `hi`, or every
        // binned particle when that range holds more cells than there are of them.
        let covered = |lo, hi, visit: &mut dyn FnMut(usize)| {
            if cell_count(lo, hi) > small.len() as f64 {
                small.iter().for_each(|&i| visit(i));
                return;
            }
            let mut buckets = Vec::new();
            bins.buckets_in(lo, hi, &mut buckets);
            for b in buckets {
                bins.bucket(b).iter().for_each(|&i| visit(i as usize));
            }
        };
        if self.method == BroadPhase::BoxIntersection {
            // Boxes grown by half the margin each: two overlap when their spheres are
            // within the margin along every axis; the exact test follows.
            let boxes: Vec<Aabb> = bounded
                .iter()
                .map(|&i| {
                    let h = p.shape[i].bounding_radius().unwrap_or(0.0) + 0.5 * margin;
                    let x = p.pos[i];
                    Aabb {
                        lo: [x.x - h, x.y - h, x.z - h],
                        hi: [x.x + h, x.y + h, x.z + h],
                        id: i as u32,
                    }
                })
                .collect();
            let mut found = Vec::new();
            self.scratch.boxes.self_pairs(&boxes, &mut found);
            pairs.extend(found.into_iter().filter(|&(a, b)| {
                bound_gap(p, a as usize, b as usize).is_some_and(|g| g < margin)
            }));
        }
        if self.method == BroadPhase::Grid {
            // Each particle against the members of the buckets of the 27 cells around it,
            // in parallel chunks, joined in chunk order.
            let found: Vec<Vec<(u32, u32)>> = small
                .par_chunks(PAIR_CHUNK)
                .with_min_len(crate::support::parallel::run_len(
                    small.len().div_ceil(PAIR_CHUNK),
                ))
                .map_init(Vec::new, |around, chunk| {
                    let mut out = Vec::new();
                    for &i in chunk {
                        bins.buckets_around(&p.pos[i], around);
                        for &b in around.iter() {
                            for &j in bins.bucket(b) {
                                let j = j as usize;
                                if j > i && bound_gap(p, i, j).is_some_and(|g| g < margin) {
                                    out.push((i as u32, j as u32));
                                }
                            }
                        }
                    }
                    out
                })
                .collect();
            pairs.reserve_exact(found.iter().map(Vec::len).sum());
            pairs.extend(found.into_iter().flatten());
            for (k, &l) in large.iter().enumerate() {
                let r = p.shape[l].bounding_radius().unwrap_or(0.0) + rmax + margin;
                let x = p.pos[l];
                let (lo, hi) = (x.add_scalar(-r), x.add_scalar(r));
                covered(cell_of(&lo, cell), cell_of(&hi, cell), &mut |i| {
                    if bound_gap(p, l, i).is_some_and(|g| g < margin) {
                        pairs.push((l.min(i) as u32, l.max(i) as u32));
                    }
                });
                for &m in &large[k + 1..] {
                    if bound_gap(p, l, m).is_some_and(|g| g < margin) {
                        pairs.push((l.min(m) as u32, l.max(m) as u32));
                    }
                }
            }
        }
        for &w in &walls {
            let Shape::Wall(wall) = &p.shape[w] else {
                continue;
            };
            let n = p.ori[w] * wall.normal.na();
            for &i in &bounded {
                let r = p.shape[i].bounding_radius().unwrap_or(0.0);
                if wall_gap(&n, wall.sense, &p.pos[w], &p.pos[i], r) < margin {
                    pairs.push((w.min(i) as u32, w.max(i) as u32));
                }
            }
        }
        // Facets standing still since the last rebuild go through the cached facet grid;
        // moving ones, and those too large for the grid, scan the cells their box covers.
        let grow = rmax + margin;
        let (mut still, mut moving) = (Vec::new(), Vec::new());
        for f in (0..p.len()).filter(|&f| matches!(p.shape[f], Shape::Facet(_))) {
            let same = self.anchor.len() == p.len()
                && self.anchor[f] == p.pos[f]
                && self.anchor_ori[f] == p.ori[f];
            if same {
                still.push(f)
            } else {
                moving.push(f)
            }
        }
        self.find_facets(p);
        let max_cells = small.len().max(64);
        self.facets.update(p, still, cell, grow, max_cells);
        for &i in &small {
            for &f in self.facets.near(&p.pos[i]) {
                if bound_gap(p, f as usize, i).is_some_and(|g| g < margin) {
                    pairs.push(((f as usize).min(i) as u32, (f as usize).max(i) as u32));
                }
            }
        }
        moving.extend_from_slice(self.facets.wide());
        for f in moving {
            let Shape::Facet(facet) = &p.shape[f] else {
                continue;
            };
            let [lo, hi] = cell_range(facet, p, f, grow + facet.shape.halfthick, cell);
            covered(lo, hi, &mut |i| {
                if bound_gap(p, f, i).is_some_and(|g| g < margin) {
                    pairs.push((f.min(i) as u32, f.max(i) as u32));
                }
            });
        }
        // The large particles against every facet: they are few.
        for &l in &large {
            for &f in &self.facet_ids.0 {
                let f = f as usize;
                if bound_gap(p, f, l).is_some_and(|g| g < margin) {
                    pairs.push((f.min(l) as u32, f.max(l) as u32));
                }
            }
        }
        self.scratch.bins = bins;
        pairs.par_sort_unstable();
        pairs.shrink_to_fit();
        self.pairs = pairs;
        // In place: no second copy of the positions while the old one is freed.
        self.anchor.clear();
        self.anchor.extend_from_slice(&p.pos);
        self.anchor_ori.clear();
        self.anchor_ori.extend_from_slice(&p.ori);
        self.skin = skin;
        self.rebuilds += 1;
    }
}

/// Every pair closer than `margin` by exhaustive search (for verification).
pub fn brute_force_pairs(p: &Particles, margin: f64) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for a in 0..p.len() {
        for b in a + 1..p.len() {
            if bound_gap(p, a, b).is_some_and(|g| g < margin) {
                out.push((a as u32, b as u32));
            }
        }
    }
    out
}
