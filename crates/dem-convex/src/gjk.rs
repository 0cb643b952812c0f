//! GJK distance between two convex polyhedra (Gilbert, Johnson and Keerthi 1988).
//!
//! The simplex sub-problem (closest point of a simplex of up to four Minkowski
//! difference points to the origin) is solved by Johnson's enumeration: every face of
//! the simplex is tried, the affine minimum-norm point of each is found from its Gram
//! system, and the nearest one with non-negative barycentric coordinates wins. The
//! simplex keeps the support points of A and B, so the closest points on both bodies
//! come out of the same barycentric coordinates.

use crate::polyhedron::Polyhedron;
use nalgebra::{Point3, Vector3};

/// Result of a distance query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proximity {
    /// Distance between the bodies (length); zero when they overlap or touch.
    pub distance: f64,
    /// Closest point on A (length, world frame).
    pub point_a: Point3<f64>,
    /// Closest point on B (length, world frame).
    pub point_b: Point3<f64>,
    /// GJK iterations used.
    pub iterations: usize,
}

impl Proximity {
    /// Whether the bodies are apart by more than `eps` (length).
    pub fn separated(&self, eps: f64) -> bool {
        self.distance > eps
    }
}

#[derive(Clone, Copy)]
struct Vert {
    w: Vector3<f64>,
    a: Vector3<f64>,
    b: Vector3<f64>,
}

/// Closest point to the origin of the affine hull of `pts` (`pts.len()` in 1..=4);
/// returns barycentric coordinates if the system is regular.
#[inline(always)]
fn affine_min(pts: &[Vector3<f64>]) -> Option<[f64; 4]> {
    // Subsets that are (nearly) affinely dependent are rejected by their sine-volume:
    // an edge of zero length, a triangle with a sine below 1e-10, a tetrahedron
    // flatter than 1e-10. Their systems would give garbage weights.
    const FLAT: f64 = 1e-10;
    let y0 = pts[0];
    let lam = match pts.len() {
        1 => [1.0, 0.0, 0.0, 0.0],
        2 => {
            let e = pts[1] - y0;
            let ee = e.dot(&e);
            if ee.is_nan() || ee <= 0.0 {
                return None;
            }
            let t = -y0.dot(&e) / ee;
            [1.0 - t, t, 0.0, 0.0]
        }
        3 => {
            let (e1, e2) = (pts[1] - y0, pts[2] - y0);
            let c = e1.cross(&e2);
            if c.norm().is_nan() || c.norm() <= FLAT * e1.norm() * e2.norm() {
                return None;
            }
            // Normal equations of the plane, by Cramer's rule (det = |e1 × e2|²).
            let (g11, g12, g22) = (e1.dot(&e1), e1.dot(&e2), e2.dot(&e2));
            let (r1, r2) = (-e1.dot(&y0), -e2.dot(&y0));
            let det = c.norm_squared();
            let m1 = (r1 * g22 - r2 * g12) / det;
            let m2 = (g11 * r2 - g12 * r1) / det;
            [1.0 - m1 - m2, m1, m2, 0.0]
        }
        _ => {
            let (e1, e2, e3) = (pts[1] - y0, pts[2] - y0, pts[3] - y0);
            let d = e1.dot(&e2.cross(&e3));
            if d.is_nan() || d.abs() <= FLAT * e1.norm() * e2.norm() * e3.norm() {
                return None;
            }
            // Barycentric coordinates of the origin by Cramer's rule.
            let m1 = -y0.dot(&e2.cross(&e3)) / d;
            let m2 = -e1.dot(&y0.cross(&e3)) / d;
            let m3 = -e1.dot(&e2.cross(&y0)) / d;
            [1.0 - m1 - m2 - m3, m1, m2, m3]
        }
    };
    lam.iter().all(|x| x.is_finite()).then_some(lam)
}

/// The simplex: up to four Minkowski-difference points with their barycentric
/// weights, in fixed storage (no allocation per query), and what Johnson's enumeration
/// found for subsets of these points (see [`closest_on_simplex`]).
#[derive(Clone, Copy)]
struct Simplex {
    verts: [Vert; 4],
    weights: [f64; 4],
    len: usize,
    /// Bit `mask` set: `subsets[mask]` holds the outcome of that subset of `verts`.
    known: u16,
    /// Per subset mask: `None` if the subset was rejected (singular system or a
    /// negative weight), else the squared distance of its affine minimum and its weights.
    subsets: [Option<(f64, [f64; 4])>; 16],
}

/// Per subset mask of a 4-point simplex: its size and its point indices, increasing.
const SUBSETS: [(usize, [usize; 4]); 16] = {
    let mut table = [(0, [0; 4]); 16];
    let mut mask = 1;
    while mask < 16 {
        let mut i = 0;
        while i < 4 {
            if mask & (1 << i) != 0 {
                let m = table[mask].0;
                table[mask].1[m] = i;
                table[mask].0 = m + 1;
            }
            i += 1;
        }
        mask += 1;
    }
    table
};

/// `COMPRESS[mask][sub]`, for `sub` a subset of `mask`: the mask of `sub` among the
/// points of `mask` renumbered from 0 in order (the bits of `sub` at the positions of
/// `mask`'s bits, packed down).
const COMPRESS: [[u8; 16]; 16] = {
    let mut table = [[0u8; 16]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut sub = 0;
        while sub < 16 {
            let (mut to, mut k, mut i) = (0, 0, 0);
            while i < 4 {
                if mask & (1 << i) != 0 {
                    if sub & (1 << i) != 0 {
                        to |= 1 << k;
                    }
                    k += 1;
                }
                i += 1;
            }
            table[mask][sub] = to;
            sub += 1;
        }
        mask += 1;
    }
    table
};

impl Simplex {
    fn verts(&self) -> &[Vert] {
        &self.verts[..self.len]
    }
    fn push(&mut self, v: Vert) {
        self.verts[self.len] = v;
        self.len += 1;
    }
}

/// One subset of Johnson's enumeration ([`closest_on_simplex`]): its outcome, solved
/// or (with `reuse`) read back, and `best` updated if it is accepted and nearer.
#[inline(always)]
fn visit<const MASK: usize>(
    simplex: &mut Simplex,
    reuse: bool,
    best: &mut Option<(f64, u32, [f64; 4])>,
) {
    let outcome = if reuse && simplex.known & (1 << MASK) != 0 {
        simplex.subsets[MASK]
    } else {
        let (m, idx) = SUBSETS[MASK];
        let mut pts = [Vector3::zeros(); 4];
        for k in 0..m {
            pts[k] = simplex.verts[idx[k]].w;
        }
        let outcome = affine_min(&pts[..m])
            .filter(|lam| !lam[..m].iter().any(|&l| l < 0.0))
            .map(|lam| {
                let mut v = Vector3::zeros();
                for k in 0..m {
                    v += lam[k] * pts[k];
                }
                (v.norm_squared(), lam)
            });
        simplex.subsets[MASK] = outcome;
        outcome
    };
    if let Some((d, lam)) = outcome {
        if best.is_none_or(|(bd, _, _)| d < bd) {
            *best = Some((d, MASK as u32, lam));
        }
    }
}

/// Johnson's sub-algorithm by enumeration: keeps the best sub-simplex (and its
/// weights) in `simplex` and returns the closest point of the simplex to the origin.
///
/// The subsets of the points kept from the previous step (all but the point just
/// pushed, which is last) were solved then, with the same points in the same order:
/// their outcomes are read from `simplex.subsets`, bit for bit what solving them again
/// gives, and all subsets are still compared in mask order, so the choice is the same.
///
/// With `reuse` false every subset is solved again (the reference the tests compare
/// with).
fn closest_on_simplex(simplex: &mut Simplex, reuse: bool) -> Vector3<f64> {
    let n = simplex.len;
    let mut best: Option<(f64, u32, [f64; 4])> = None;
    // The masks 1..2^n in increasing order, each a constant, so that each subset's
    // system is solved by code specialised to its size.
    macro_rules! visit {
        ($($mask:literal),*) => { $( visit::<$mask>(simplex, reuse, &mut best); )* };
    }
    visit!(1);
    if n >= 2 {
        visit!(2, 3);
    }
    if n >= 3 {
        visit!(4, 5, 6, 7);
    }
    if n >= 4 {
        visit!(8, 9, 10, 11, 12, 13, 14, 15);
    }
    let (_, mask, lam) = best.unwrap_or((0.0, 1, [1.0, 0.0, 0.0, 0.0]));
    // Compact in place (kept indices only move down), the outcomes of the subsets of
    // the kept points with them: in increasing mask order, a subset's new mask is at
    // most its old one, so no outcome is overwritten before it is moved.
    simplex.len = 0;
    for i in 0..n {
        if mask & (1 << i) != 0 {
            let k = simplex.len;
            simplex.weights[k] = lam[k];
            simplex.verts[k] = simplex.verts[i];
            simplex.len += 1;
        }
    }
    // The subsets of the kept points, in increasing mask order (`(sub - mask) & mask`
    // steps through them), each to its mask among the kept points.
    let mut sub = 0u32;
    loop {
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            break;
        }
        let to = COMPRESS[mask as usize][sub as usize] as usize;
        if to != sub as usize {
            simplex.subsets[to] = simplex.subsets[sub as usize];
        }
    }
    // Every non-empty subset of the kept points is known.
    simplex.known = ((1u32 << (1u32 << simplex.len)) - 2) as u16;
    let mut v = Vector3::zeros();
    for (vert, &l) in simplex.verts().iter().zip(&simplex.weights) {
        v += l * vert.w;
    }
    v
}

/// GJK distance between two convex polyhedra given in the same frame.
pub fn gjk_distance(a: &Polyhedron, b: &Polyhedron) -> Proximity {
    gjk_distance_offset(a, b, &Vector3::zeros())
}

/// [`gjk_distance`] when the caller knows `size`, the larger bounding-box diagonal of
/// the two bodies (`a.diameter().max(b.diameter())`, bit for bit): the same result
/// without scanning the vertices for it again.
pub(crate) fn gjk_distance_sized(a: &Polyhedron, b: &Polyhedron, size: f64) -> Proximity {
    let offset = Vector3::zeros();
    let start = b.vertices()[0] + offset - a.vertices()[0];
    gjk_from_sized(a, b, &offset, &start, size)
}

/// [`gjk_distance_from`] with `size` known (see [`gjk_distance_sized`]).
pub(crate) fn gjk_from_sized(
    a: &Polyhedron,
    b: &Polyhedron,
    offset: &Vector3<f64>,
    towards: &Vector3<f64>,
    size: f64,
) -> Proximity {
    gjk_core(a, b, offset, towards, true, size)
}

/// GJK distance between A and B translated by `offset` (length), without building
/// the translated body; the closest point on B is returned in the translated place.
pub fn gjk_distance_offset(a: &Polyhedron, b: &Polyhedron, offset: &Vector3<f64>) -> Proximity {
    let start = b.vertices()[0] + offset - a.vertices()[0];
    gjk_distance_from(a, b, offset, &start)
}

/// [`gjk_distance_offset`] starting from the support points along `towards` (from A to
/// B): a direction close to the separating one (a contact normal) saves iterations.
pub fn gjk_distance_from(
    a: &Polyhedron,
    b: &Polyhedron,
    offset: &Vector3<f64>,
    towards: &Vector3<f64>,
) -> Proximity {
    gjk_run(a, b, offset, towards, true)
}

/// [`gjk_distance_from`], with (`reuse`) or without the subset outcomes carried from
/// step to step ([`closest_on_simplex`]).
fn gjk_run(
    a: &Polyhedron,
    b: &Polyhedron,
    offset: &Vector3<f64>,
    towards: &Vector3<f64>,
    reuse: bool,
) -> Proximity {
    gjk_core(a, b, offset, towards, reuse, a.diameter().max(b.diameter()))
}

/// [`gjk_run`] with `size` the larger bounding-box diagonal of the two bodies.
fn gjk_core(
    a: &Polyhedron,
    b: &Polyhedron,
    offset: &Vector3<f64>,
    towards: &Vector3<f64>,
    reuse: bool,
    size: f64,
) -> Proximity {
    // Work relative to a vertex of A and in units of the larger body, so that tiny or
    // huge models neither underflow nor overflow the Gram systems.
    let o = a.vertices()[0].coords;
    let inv = if size > 0.0 && size.is_finite() {
        1.0 / size
    } else {
        1.0
    };
    let scale = 1.0f64;
    let support = |d: &Vector3<f64>| {
        let pa = (a.support(d).1.coords - o) * inv;
        let pb = (b.support(&-d).1.coords + offset - o) * inv;
        Vert {
            w: pa - pb,
            a: pa,
            b: pb,
        }
    };
    let first = support(towards);
    let mut simplex = Simplex {
        verts: [first; 4],
        weights: [1.0, 0.0, 0.0, 0.0],
        len: 1,
        known: 0,
        subsets: [None; 16],
    };
    let mut v = first.w;
    let rel = 1e-13;
    let mut iterations = 0;
    for it in 0..128 {
        iterations = it + 1;
        let vv = v.norm_squared();
        if vv <= (1e-15 * scale).powi(2) {
            break;
        }
        let w = support(&-v);
        // Lower bound on the distance reached: stop when the gap closes.
        if vv - v.dot(&w.w) <= rel * vv.max(1e-30 * scale * scale) {
            break;
        }
        if simplex.verts().iter().any(|s| s.w == w.w) {
            break;
        }
        simplex.push(w);
        let nv = closest_on_simplex(&mut simplex, reuse);
        if simplex.len == 4 {
            // Origin inside the tetrahedron: the bodies overlap.
            v = nv;
            break;
        }
        if nv.norm_squared() >= vv {
            // No progress (round-off): keep the previous answer.
            v = nv;
            break;
        }
        v = nv;
    }
    let mut pa = Vector3::zeros();
    let mut pb = Vector3::zeros();
    for (s, &l) in simplex.verts().iter().zip(&simplex.weights) {
        pa += l * s.a;
        pb += l * s.b;
    }
    let distance = if simplex.len == 4 {
        0.0
    } else {
        v.norm() / inv
    };
    Proximity {
        distance,
        point_a: (pa / inv + o).into(),
        point_b: (pb / inv + o).into(),
        iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{cube, rock};
    use nalgebra::{Isometry3, UnitQuaternion};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// Johnson's enumeration with the subset outcomes carried from step to step gives
    /// bitwise the distance, points and iteration count of solving every subset again,
    /// on rock and cube pairs overlapping, touching-close and apart.
    #[test]
    fn reused_subsets_change_no_bit() {
        let mut rng = Pcg64::seed_from_u64(7);
        for trial in 0..600 {
            let shape = |rng: &mut Pcg64| {
                if rng.random_bool(0.3) {
                    cube(1.0).unwrap()
                } else {
                    rock(
                        rng.random(),
                        rng.random_range(6..40),
                        Vector3::new(0.6, 0.5, 0.4),
                    )
                    .unwrap()
                }
            };
            let a = shape(&mut rng);
            let pose = Isometry3::from_parts(
                (Vector3::new(rng.random(), rng.random(), rng.random()) * 1.6).into(),
                UnitQuaternion::from_scaled_axis(
                    Vector3::new(rng.random(), rng.random(), rng.random()) * 3.0,
                ),
            );
            let b = shape(&mut rng).transformed(&pose);
            let offset = Vector3::new(rng.random(), rng.random(), rng.random()) * 0.3;
            let towards = Vector3::new(rng.random(), rng.random(), rng.random());
            let (with, without) = (
                gjk_run(&a, &b, &offset, &towards, true),
                gjk_run(&a, &b, &offset, &towards, false),
            );
            assert_eq!(format!("{with:?}"), format!("{without:?}"), "trial {trial}");
        }
    }
}
