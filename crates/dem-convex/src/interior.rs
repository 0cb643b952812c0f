//! The Chebyshev centre of the common part of two convex bodies: the centre `x` and
//! radius `r` of the largest ball inside every face half-space of A and of B,
//!
//! ```text
//! maximise r  subject to  nᵢ·x + r <= dᵢ  for every face plane i of A and B.
//! ```
//!
//! A 4-variable linear programme, solved here through its dual in standard form
//! (`minimise Σ hᵢ λᵢ  s.t.  Σ λᵢ nᵢ = 0,  Σ λᵢ = 1,  λ >= 0`): four equality rows, one
//! column per plane, so a dense two-phase tableau simplex with Bland's rule is small,
//! allocation-light and cannot cycle. The multipliers λ also give, for touching
//! bodies, the normal of the separating plane (`Σ_{i∈A} λᵢ nᵢ`). Where Bland's rule
//! fails on round-off (a pivot near the tolerance, then a nearly singular basis: seen
//! on cubes whose square faces are two triangles), the LP is solved once more with
//! nearly parallel planes merged and the largest pivot among the tied rows; pairs that
//! solve the first time are untouched.
//!
//! `r > 0` means the bodies overlap with a ball of radius `r` inside both; `r <= eps`
//! means they touch (or are apart when `r < 0`). Planes are shifted to a reference
//! point near both bodies and scaled to unit size before solving, for conditioning.

use crate::polyhedron::Polyhedron;
use nalgebra::{Matrix4, Point3, Vector3, Vector4};

/// The deepest point common to two bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct ChebyshevCentre {
    /// Centre (length, world frame).
    pub point: Point3<f64>,
    /// Radius of the largest ball inside both bodies (length); negative when the
    /// half-space intersection is empty.
    pub radius: f64,
    /// Active planes with their dual multipliers: `(body, plane index, λ)`, body 0 = A.
    pub active: Vec<(u8, usize, f64)>,
}

impl ChebyshevCentre {
    /// Unit normal of the supporting plane between the bodies at the optimum,
    /// pointing from A into B: the multiplier-weighted sum of A's active normals.
    /// `None` if A has no active plane (one body deep inside the other).
    pub fn separating_normal(&self, a: &Polyhedron) -> Option<Vector3<f64>> {
        let mut n = Vector3::zeros();
        for &(body, i, l) in &self.active {
            if body == 0 {
                n += l * a.faces()[i].normal;
            }
        }
        let len = n.norm();
        (len > 1e-12).then(|| n / len)
    }
}

/// Why the LP could not be solved (should not happen for bounded bodies).
#[derive(Debug, Clone, PartialEq)]
pub struct LpFailure(pub String);

const PIVOT_TOL: f64 = 1e-12;

struct Tableau {
    /// Ratio-test rule: Bland's (smallest ratio, then smallest basis index) when false;
    /// when true, among the rows whose ratio is within round-off of the smallest, the
    /// one with the largest pivot (the retry of [`chebyshev_centre`]).
    largest_pivot: bool,
    rows: [Vec<f64>; 4],
    basis: [usize; 4],
    ncols: usize, // m + 4 (the last four are the artificials); rhs is column ncols
}

impl Tableau {
    fn pivot(&mut self, r: usize, k: usize, z: &mut [f64]) {
        let p = self.rows[r][k];
        for v in self.rows[r].iter_mut() {
            *v /= p;
        }
        // The pivot row is taken out while the others are updated (no copy).
        let pr = std::mem::take(&mut self.rows[r]);
        for (i, row) in self.rows.iter_mut().enumerate() {
            if i != r {
                let f = row[k];
                if f != 0.0 {
                    for (x, y) in row.iter_mut().zip(&pr) {
                        *x -= f * y;
                    }
                }
            }
        }
        let f = z[k];
        if f != 0.0 {
            for (x, y) in z.iter_mut().zip(&pr) {
                *x -= f * y;
            }
        }
        self.rows[r] = pr;
        self.basis[r] = k;
    }

    /// Bland's rule simplex on reduced-cost row `z` over the columns `< allowed`.
    fn run(&mut self, z: &mut [f64], allowed: usize) -> Result<(), LpFailure> {
        for _ in 0..10_000 {
            let Some(k) = (0..allowed).find(|&j| z[j] < -PIVOT_TOL) else {
                return Ok(());
            };
            let rhs = self.ncols;
            let mut best: Option<(f64, usize, usize)> = None;
            for r in 0..4 {
                let a = self.rows[r][k];
                if a > PIVOT_TOL {
                    let ratio = self.rows[r][rhs] / a;
                    let key = (ratio, self.basis[r]);
                    if best.is_none_or(|(br, bb, _)| key.0 < br || (key.0 == br && key.1 < bb)) {
                        best = Some((ratio, self.basis[r], r));
                    }
                }
            }
            if self.largest_pivot {
                if let Some((least, _, _)) = best {
                    let near = least + 1e-12 * (1.0 + least.abs());
                    let mut pick = None::<(f64, usize)>;
                    for r in 0..4 {
                        let a = self.rows[r][k];
                        if a > PIVOT_TOL
                            && self.rows[r][rhs] / a <= near
                            && pick.is_none_or(|(pa, _)| a > pa)
                        {
                            pick = Some((a, r));
                        }
                    }
                    if let Some((_, r)) = pick {
                        best = Some((least, self.basis[r], r));
                    }
                }
            }
            let Some((_, _, r)) = best else {
                return Err(LpFailure("dual unbounded: the bodies are empty".into()));
            };
            self.pivot(r, k, z);
        }
        Err(LpFailure("simplex iteration limit".into()))
    }
}

/// Chebyshev centre of A ∩ B (both in the same frame). Fails only for degenerate
/// bodies (e.g. non-finite planes).
pub fn chebyshev_centre(a: &Polyhedron, b: &Polyhedron) -> Result<ChebyshevCentre, LpFailure> {
    // Reference point and scale for conditioning.
    let (la, ha) = a.aabb();
    let (lb, hb) = b.aabb();
    let o: Vector3<f64> = (la.coords + ha.coords + lb.coords + hb.coords) * 0.25;
    let scale = a.diameter().max(b.diameter());
    if (scale.is_nan() || scale <= 0.0) || !scale.is_finite() {
        return Err(LpFailure("bodies without extent".into()));
    }
    let planes: Vec<Plane> = a
        .faces()
        .iter()
        .enumerate()
        .map(|(i, f)| (0u8, i, f.normal, f.offset))
        .chain(
            b.faces()
                .iter()
                .enumerate()
                .map(|(i, f)| (1u8, i, f.normal, f.offset)),
        )
        .map(|(body, i, n, d)| (body, i, n, (d - n.dot(&o)) / scale))
        .collect();
    solve(&planes, scale, o, false).or_else(|e| {
        // Nearly parallel planes (a square face split into two triangles whose normals
        // differ in the last bits, or a face of A nearly flush with one of B) can make
        // the basis nearly singular, and the simplex then fails although the optimum
        // exists. Solved again with each such group as its most restrictive plane: the
        // same region to round-off. Only pairs that failed take this path.
        let merged = merge_parallel(&planes);
        solve(&merged, scale, o, true).map_err(|_| e)
    })
}

/// Normals closer than this (unit vectors, Euclidean) are one plane for the retry of
/// [`chebyshev_centre`].
const PARALLEL_TOLERANCE: f64 = 1e-9;

/// `planes` with each group of nearly parallel ones (normals within
/// [`PARALLEL_TOLERANCE`] of the group's first) replaced by the one of least offset.
fn merge_parallel(planes: &[Plane]) -> Vec<Plane> {
    let mut out: Vec<Plane> = Vec::with_capacity(planes.len());
    for p in planes {
        match out
            .iter_mut()
            .find(|q| (q.2 - p.2).norm_squared() <= PARALLEL_TOLERANCE * PARALLEL_TOLERANCE)
        {
            Some(q) => {
                if p.3 < q.3 {
                    *q = *p;
                }
            }
            None => out.push(*p),
        }
    }
    out
}

/// A face plane for the LP: body (0 = A), face index, unit normal, offset relative to
/// the reference point in units of the scale.
type Plane = (u8, usize, Vector3<f64>, f64);

/// The LP on `planes` (see the module doc); `scale` and `o` map back to world units.
fn solve(
    planes: &[Plane],
    scale: f64,
    o: Vector3<f64>,
    largest_pivot: bool,
) -> Result<ChebyshevCentre, LpFailure> {
    let m = planes.len();
    let ncols = m + 4;
    let mut rows: [Vec<f64>; 4] = std::array::from_fn(|_| vec![0.0; ncols + 1]);
    for (j, (_, _, n, _)) in planes.iter().enumerate() {
        rows[0][j] = n.x;
        rows[1][j] = n.y;
        rows[2][j] = n.z;
        rows[3][j] = 1.0;
    }
    for (r, row) in rows.iter_mut().enumerate() {
        row[m + r] = 1.0;
    }
    rows[3][ncols] = 1.0; // rhs (0, 0, 0, 1)
    let mut t = Tableau {
        largest_pivot,
        rows,
        basis: [m, m + 1, m + 2, m + 3],
        ncols,
    };
    // Phase 1: minimise the sum of artificials.
    let mut z = vec![0.0; ncols + 1];
    for (j, zj) in z.iter_mut().enumerate() {
        if j < m || j == ncols {
            *zj = -(0..4).map(|r| t.rows[r][j]).sum::<f64>();
        }
    }
    t.run(&mut z, m)?;
    if -z[ncols] > 1e-9 {
        return Err(LpFailure(
            "dual infeasible: normals do not enclose the origin".into(),
        ));
    }
    // Drive remaining artificials out of the basis.
    for r in 0..4 {
        if t.basis[r] >= m {
            if let Some(k) = (0..m).find(|&k| t.rows[r][k].abs() > 1e-9) {
                t.pivot(r, k, &mut z);
            }
        }
    }
    // Phase 2: reduced costs of the real objective.
    let cost = |j: usize| if j < m { planes[j].3 } else { 0.0 };
    let mut z: Vec<f64> = (0..=ncols)
        .map(|j| {
            let cj = if j == ncols { 0.0 } else { cost(j) };
            cj - (0..4).map(|r| cost(t.basis[r]) * t.rows[r][j]).sum::<f64>()
        })
        .collect();
    t.run(&mut z, m)?;
    // Primal solution y = B⁻ᵀ c_B, read from the artificial columns (B⁻¹ lives there).
    let mut y = Vector4::zeros();
    for r in 0..4 {
        y[r] = (0..4)
            .map(|i| cost(t.basis[i]) * t.rows[i][m + r])
            .sum::<f64>();
    }
    // Polish: re-solve the 4×4 active system when the basis is all real planes.
    if t.basis.iter().all(|&j| j < m) {
        let mut bm = Matrix4::zeros();
        let mut rhs = Vector4::zeros();
        for (i, &j) in t.basis.iter().enumerate() {
            let n = planes[j].2;
            bm.set_row(i, &nalgebra::RowVector4::new(n.x, n.y, n.z, 1.0));
            rhs[i] = planes[j].3;
        }
        if let Some(sol) = bm.lu().solve(&rhs) {
            if sol.iter().all(|v| v.is_finite()) {
                y = sol;
            }
        }
    }
    let x = y.xyz();
    if !x.iter().all(|v| v.is_finite()) {
        return Err(LpFailure("non-finite centre".into()));
    }
    // The radius actually achieved at x (robust to LP round-off).
    let radius = planes
        .iter()
        .map(|(_, _, n, h)| h - n.dot(&x))
        .fold(f64::INFINITY, f64::min)
        * scale;
    let active = (0..4)
        .filter(|&r| t.basis[r] < m && t.rows[r][ncols] > 0.0)
        .map(|r| {
            let (body, i, _, _) = planes[t.basis[r]];
            (body, i, t.rows[r][ncols])
        })
        .collect();
    Ok(ChebyshevCentre {
        point: (x * scale + o).into(),
        radius,
        active,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{cube, rock};
    use nalgebra::{Isometry3, Vector3};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// Strong duality certifies the optimum: λ >= 0, Σλ nᵢ = 0, Σλ = 1 and
    /// Σλ dᵢ(x) equals the achieved radius.
    #[test]
    fn dual_certificate() {
        let mut rng = Pcg64::seed_from_u64(7);
        for trial in 0..2000 {
            let a = rock(
                rng.random(),
                rng.random_range(8..30),
                Vector3::new(1.0, 0.7, 0.4),
            )
            .unwrap();
            let b = if trial % 3 == 0 {
                cube(1.0).unwrap()
            } else {
                rock(
                    rng.random(),
                    rng.random_range(8..30),
                    Vector3::new(0.5, 0.7, 0.9),
                )
                .unwrap()
            };
            let t = Vector3::new(
                rng.random_range(-1.5..1.5),
                rng.random_range(-1.5..1.5),
                rng.random_range(-1.0..1.0),
            );
            let b = b.transformed(&Isometry3::new(
                t,
                Vector3::new(rng.random(), rng.random(), rng.random()),
            ));
            let c = chebyshev_centre(&a, &b).unwrap();
            let (mut sn, mut sl, mut sd) = (Vector3::zeros(), 0.0, 0.0);
            for &(body, i, l) in &c.active {
                let f = if body == 0 {
                    &a.faces()[i]
                } else {
                    &b.faces()[i]
                };
                assert!(l >= 0.0);
                sn += l * f.normal;
                sl += l;
                sd += l * (f.offset - f.normal.dot(&c.point.coords));
            }
            assert!(sn.norm() < 1e-9, "trial {trial}: Σλn = {sn}");
            assert!((sl - 1.0).abs() < 1e-9, "trial {trial}: Σλ = {sl}");
            assert!(
                (sd - c.radius).abs() < 1e-9,
                "trial {trial}: bound {sd} vs radius {}",
                c.radius
            );
        }
    }
}
