//! Mass properties (volume, centroid, inertia tensor) of the union of overlapping
//! spheres: each overlap counted once.
//!
//! # Method
//!
//! The union is cut in slices normal to z. The cut at height z is a union of discs, whose
//! area moments ([`super::disc_union`]) are exact to round-off. The moments along z,
//! `∫ A(z) (1, x, y, z, x², y², z², xy, xz, yz) dz`, are integrated by Gauss-Legendre
//! quadrature between breakpoints: the poles `z_i ± r_i` of every sphere and the lowest
//! and highest points of the circle where two spheres' surfaces meet (where two discs
//! of the cut become tangent), and the heights of the points where three surfaces meet
//! (where an arc of the cut shrinks to nothing). Between breakpoints the slice moments
//! are smooth except for square-root behaviour at the ends of the interval, which the
//! substitution `z = (a + b)/2 - (b - a)/2 cos s` removes (the integrand is smooth in
//! `s`). With [`POINTS`] points per interval the error against closed forms (dumbbells,
//! collinear spheres) and against rotated copies of an asymmetric cluster with triple
//! overlaps (tests/clumps.rs) is at round-off, about 1e-15 relative; the tests assert
//! 1e-10, the issue asks for 1e-4. Without the triple points the cluster's error was
//! 1e-8. The result is deterministic (a fixed sequence of floating-point operations for
//! given members). Cost: O(n^2) breakpoints (O(n^3) with triple points, few in practice)
//! times [`POINTS`] cuts, each O(k^2 log k) for the k members the cut meets.

use super::disc_union::{union_moments, Disc};
use super::quadrature::gauss_legendre;
use dem_api::convex::MassProperties;
use nalgebra::{Matrix3, Point3, Vector3};

/// Gauss-Legendre points per interval between breakpoints.
pub const POINTS: usize = 24;

/// A sphere of a clump template: centre (template frame) and radius, m.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Member {
    /// Centre in the template frame, m.
    pub center: Vector3<f64>,
    /// Radius, m.
    pub radius: f64,
}

/// Volume (m^3), centroid (m) and inertia tensor about the centroid for unit density
/// (m^5; multiply by the density for kg m^2) of the union of `members`.
pub fn union_mass_properties(members: &[Member]) -> MassProperties {
    // Moments are taken about the mean centre: about a far origin the parallel-axis
    // subtraction would cancel digits.
    let origin = members.iter().map(|m| m.center).sum::<Vector3<f64>>() / members.len() as f64;
    let shifted: Vec<Member> = members
        .iter()
        .map(|m| Member {
            center: m.center - origin,
            radius: m.radius,
        })
        .collect();
    let members = &shifted[..];
    // Breakpoints along z.
    let mut cuts: Vec<f64> = Vec::new();
    for (i, a) in members.iter().enumerate() {
        cuts.push(a.center.z - a.radius);
        cuts.push(a.center.z + a.radius);
        for b in &members[i + 1..] {
            if !cross(a, b) {
                continue;
            }
            let axis = b.center - a.center;
            let d = axis.norm();
            // The circle where the surfaces meet: centre at `s` from a along the axis,
            // radius `rho`; its z extent is rho times the sine of the axis' angle to z.
            let s = (d * d + a.radius * a.radius - b.radius * b.radius) / (2.0 * d);
            let rho = (a.radius * a.radius - s * s).max(0.0).sqrt();
            let n = axis / d;
            let zc = a.center.z + s * n.z;
            let half = rho * (1.0 - n.z * n.z).max(0.0).sqrt();
            cuts.push(zc - half);
            cuts.push(zc + half);
        }
    }
    triple_points(members, &mut cuts);
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();

    let rule = gauss_legendre(POINTS);
    let mut discs: Vec<Disc> = Vec::with_capacity(members.len());
    // Sums of ∫(1, x, y, z) dV and of ∫ r r^T dV.
    let (mut volume, mut first, mut second) = (0.0, Vector3::zeros(), Matrix3::zeros());
    for w in cuts.windows(2) {
        let (lo, hi) = (w[0], w[1]);
        if hi <= lo {
            continue;
        }
        let (mid, half) = (0.5 * (lo + hi), 0.5 * (hi - lo));
        for &(u, weight) in &rule {
            // s in [0, pi], u = 2 s / pi - 1: z = mid - half cos s, dz = half sin s ds.
            let s = 0.5 * std::f64::consts::PI * (u + 1.0);
            let z = mid - half * s.cos();
            let dz = half * s.sin() * weight * 0.5 * std::f64::consts::PI;
            discs.clear();
            discs.extend(members.iter().filter_map(|m| {
                let h = z - m.center.z;
                let r2 = m.radius * m.radius - h * h;
                (r2 > 0.0).then(|| Disc {
                    x: m.center.x,
                    y: m.center.y,
                    r: r2.sqrt(),
                })
            }));
            let a = union_moments(&discs);
            volume += a.area * dz;
            first += Vector3::new(a.x, a.y, z * a.area) * dz;
            second += Matrix3::new(
                a.xx,
                a.xy,
                z * a.x,
                a.xy,
                a.yy,
                z * a.y,
                z * a.x,
                z * a.y,
                z * z * a.area,
            ) * dz;
        }
    }
    let centroid = first / volume;
    let cov = second - volume * centroid * centroid.transpose();
    MassProperties {
        volume,
        centroid: Point3::from(centroid + origin),
        inertia: Matrix3::identity() * cov.trace() - cov,
    }
}

/// Do the surfaces of `a` and `b` cross (in a circle)?
fn cross(a: &Member, b: &Member) -> bool {
    let d = (b.center - a.center).norm();
    d > (a.radius - b.radius).abs() && d < a.radius + b.radius
}

/// Adds to `cuts` the heights of the points where three members' surfaces meet (where an
/// arc of the cut shrinks to nothing).
fn triple_points(members: &[Member], cuts: &mut Vec<f64>) {
    let n = members.len();
    for i in 0..n {
        for j in i + 1..n {
            if !cross(&members[i], &members[j]) {
                continue;
            }
            for k in j + 1..n {
                if !(cross(&members[i], &members[k]) && cross(&members[j], &members[k])) {
                    continue;
                }
                let (a, b, c) = (&members[i], &members[j], &members[k]);
                // |p - c_m|^2 = r_m^2 minus the same for a: two planes n_m . p = e_m.
                let plane = |m: &Member| {
                    (
                        (m.center - a.center) * 2.0,
                        m.center.norm_squared() - a.center.norm_squared() - m.radius * m.radius
                            + a.radius * a.radius,
                    )
                };
                let ((n1, e1), (n2, e2)) = (plane(b), plane(c));
                let dir = n1.cross(&n2);
                if dir.norm_squared() <= 1e-24 * n1.norm_squared() * n2.norm_squared() {
                    continue; // collinear centres: the surfaces meet in circles only
                }
                let m = Matrix3::from_rows(&[n1.transpose(), n2.transpose(), dir.transpose()]);
                let Some(p0) = m.lu().solve(&Vector3::new(e1, e2, dir.dot(&a.center))) else {
                    continue;
                };
                // |p0 + t dir - a|^2 = r_a^2.
                let w = p0 - a.center;
                let (qa, qb, qc) = (
                    dir.norm_squared(),
                    2.0 * dir.dot(&w),
                    w.norm_squared() - a.radius * a.radius,
                );
                let disc = qb * qb - 4.0 * qa * qc;
                if disc < 0.0 {
                    continue;
                }
                for t in [
                    (-qb - disc.sqrt()) / (2.0 * qa),
                    (-qb + disc.sqrt()) / (2.0 * qa),
                ] {
                    cuts.push(p0.z + t * dir.z);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    #[test]
    fn a_lone_sphere_is_exact() {
        let r = 0.3;
        let m = union_mass_properties(&[Member {
            center: Vector3::new(1.0, -2.0, 0.5),
            radius: r,
        }]);
        let v = 4.0 / 3.0 * PI * r.powi(3);
        assert!((m.volume / v - 1.0).abs() < 1e-14);
        assert!((m.centroid.coords - Vector3::new(1.0, -2.0, 0.5)).norm() < 1e-14);
        let i = 0.4 * v * r * r;
        assert!((m.inertia - Matrix3::identity() * i).norm() < 1e-14 * i);
    }
}
