//! A convex polyhedron clipped by half-spaces: its boundary polygons, each tagged with
//! where it lies (a face of the polyhedron or one of the clipping planes), and the volume
//! and centroid of the clipped body.
//!
//! Each half-space `n · x <= d` in turn clips every polygon (Sutherland-Hodgman against
//! one plane) and closes the body with a cap: the 2-D hull (dem-convex's `hull2`) of the
//! points where the polygons cross the plane. A cap made by one plane is a polygon like any
//! other for the next planes, so the result is the exact convex body, however thin: no
//! interior point and no tolerance are needed.

use dem_api::convex::contact::hull2;
use dem_api::convex::Polyhedron;
use dem_api::nalgebra::{Point3, Vector2, Vector3};

/// Where a boundary polygon of the clipped body lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// On face `k` of the polyhedron.
    Face(usize),
    /// On clipping plane `k`.
    Plane(usize),
}

/// The clipped body as boundary polygons (vertices in m, counter-clockwise seen from
/// outside for the caps; faces keep the polyhedron's order).
#[derive(Debug, Clone, Default)]
pub struct Clipped {
    /// The polygons, each with at least three vertices.
    pub polygons: Vec<(Side, Vec<Vector3<f64>>)>,
}

/// `poly` clipped by the half-spaces `n · x <= d` given as `(n, d)` (`n` unit, m).
pub fn clip(poly: &Polyhedron, planes: &[(Vector3<f64>, f64)]) -> Clipped {
    let v = poly.vertices();
    let mut polygons: Vec<(Side, Vec<Vector3<f64>>)> = poly
        .faces()
        .iter()
        .enumerate()
        .map(|(k, f)| {
            (
                Side::Face(k),
                f.vertices.iter().map(|&i| v[i].coords).collect(),
            )
        })
        .collect();
    for (k, (n, d)) in planes.iter().enumerate() {
        let mut cut: Vec<Vector3<f64>> = Vec::new();
        let mut kept = Vec::with_capacity(polygons.len() + 1);
        // A polygon lying in the plane already is the body's section there: no cap.
        let mut flush = false;
        for (side, pts) in polygons {
            let s: Vec<f64> = pts.iter().map(|x| n.dot(x) - d).collect();
            flush |= s.iter().all(|&x| x == 0.0);
            if s.iter().all(|&x| x <= 0.0) {
                cut.extend(
                    pts.iter()
                        .zip(&s)
                        .filter(|(_, &x)| x == 0.0)
                        .map(|(p, _)| *p),
                );
                kept.push((side, pts));
                continue;
            }
            let mut out = Vec::with_capacity(pts.len() + 1);
            for i in 0..pts.len() {
                let j = (i + 1) % pts.len();
                if s[i] <= 0.0 {
                    out.push(pts[i]);
                    if s[i] == 0.0 {
                        cut.push(pts[i]);
                    }
                }
                if (s[i] < 0.0 && s[j] > 0.0) || (s[i] > 0.0 && s[j] < 0.0) {
                    let t = s[i] / (s[i] - s[j]);
                    let x = pts[i] + t * (pts[j] - pts[i]);
                    out.push(x);
                    cut.push(x);
                }
            }
            if out.len() >= 3 {
                kept.push((side, out));
            }
        }
        polygons = kept;
        if flush {
            continue;
        }
        if let Some(cap) = cap(&cut, n) {
            polygons.push((Side::Plane(k), cap));
        }
    }
    Clipped { polygons }
}

/// The convex polygon (counter-clockwise seen along `n`) of the points `pts` lying in one
/// plane of normal `n`; `None` without area.
fn cap(pts: &[Vector3<f64>], n: &Vector3<f64>) -> Option<Vec<Vector3<f64>>> {
    if pts.len() < 3 {
        return None;
    }
    let u = if n.x.abs() < 0.9 {
        Vector3::x().cross(n).normalize()
    } else {
        Vector3::y().cross(n).normalize()
    };
    let w = n.cross(&u);
    let o = pts[0];
    let flat: Vec<Vector2<f64>> = pts
        .iter()
        .map(|p| Vector2::new(u.dot(&(p - o)), w.dot(&(p - o))))
        .collect();
    let hull = hull2(flat);
    if hull.len() < 3 {
        return None;
    }
    Some(hull.iter().map(|q| o + q.x * u + q.y * w).collect())
}

/// Area (m^2) of a planar convex polygon.
pub fn area(pts: &[Vector3<f64>]) -> f64 {
    let mut a = Vector3::zeros();
    for k in 1..pts.len().saturating_sub(1) {
        a += (pts[k] - pts[0]).cross(&(pts[k + 1] - pts[0]));
    }
    0.5 * a.norm()
}

impl Clipped {
    /// Is the clipped body empty (no polygon)?
    pub fn is_empty(&self) -> bool {
        self.polygons.is_empty()
    }

    /// Volume (m^3) and centroid (m): tetrahedra fanned from the mean vertex (inside the
    /// convex body), each counted with its absolute volume. `None` without volume.
    pub fn volume_centroid(&self) -> Option<(f64, Point3<f64>)> {
        let count: usize = self.polygons.iter().map(|(_, p)| p.len()).sum();
        if count == 0 {
            return None;
        }
        let apex = self
            .polygons
            .iter()
            .flat_map(|(_, p)| p.iter())
            .sum::<Vector3<f64>>()
            / count as f64;
        let (mut vol, mut moment) = (0.0, Vector3::zeros());
        for (_, p) in &self.polygons {
            for k in 1..p.len() - 1 {
                let (a, b, c) = (p[0] - apex, p[k] - apex, p[k + 1] - apex);
                let dv = (a.dot(&b.cross(&c)) / 6.0).abs();
                vol += dv;
                moment += dv * (a + b + c) / 4.0;
            }
        }
        (vol > 0.0 && vol.is_finite()).then(|| (vol, Point3::from(apex + moment / vol)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::convex::generate::cube;

    #[test]
    fn a_cube_cut_by_three_planes() {
        // [0, 1]^3 (relative to its lowest corner) with z <= 0.25, x <= 0.5 and
        // x + y <= 1: a prism whose base {x <= 0.5, x + y <= 1} is the trapezoid
        // (0,0), (0.5,0), (0.5,0.5), (0,1): area 0.375, centroid x = 2/9, y = 7/18 (by
        // parts: square [0,0.5]^2 area 0.25 centroid (0.25, 0.25); triangle (0,0.5),
        // (0.5,0.5), (0,1) area 0.125 centroid (1/6, 2/3)).
        let c = cube(1.0).unwrap();
        let (lo, _) = c.aabb();
        let o = lo.coords;
        let h = 2f64.sqrt() / 2.0;
        let planes = [
            (Vector3::z(), o.z + 0.25),
            (Vector3::x(), o.x + 0.5),
            (Vector3::new(h, h, 0.0), h * (o.x + o.y + 1.0)),
        ];
        let cl = clip(&c, &planes);
        let (vol, cen) = cl.volume_centroid().unwrap();
        assert!((vol - 0.375 * 0.25).abs() < 1e-14, "{vol}");
        let x = (0.25 * 0.25 + 0.125 / 6.0) / 0.375;
        let y = (0.25 * 0.25 + 0.125 * 2.0 / 3.0) / 0.375;
        assert!(
            (cen.coords - o - Vector3::new(x, y, 0.125)).norm() < 1e-14,
            "{cen}"
        );
        // The cap on z = 0.25 is the trapezoid.
        let top: Vec<_> = cl
            .polygons
            .iter()
            .filter(|(s, _)| *s == Side::Plane(0))
            .collect();
        assert_eq!(top.len(), 1);
        assert!((area(&top[0].1) - 0.375).abs() < 1e-14);
        // Cut away entirely.
        let gone = clip(&c, &[(Vector3::z(), o.z - 1.0)]);
        assert!(gone.is_empty() && gone.volume_centroid().is_none());
        // A plane along a face changes nothing (no second polygon there).
        let same = clip(&c, &[(-Vector3::x(), -o.x)]);
        assert_eq!(same.polygons.len(), 6);
        let (vol, cen) = same.volume_centroid().unwrap();
        assert!(
            (vol - 1.0).abs() < 1e-14 && (cen.coords - o - Vector3::repeat(0.5)).norm() < 1e-14
        );
    }

    #[test]
    fn a_sliver_keeps_its_exact_size() {
        // A slab 1e-9 thick: no tolerance swallows it.
        let c = cube(1.0).unwrap();
        let (lo, _) = c.aabb();
        let cl = clip(&c, &[(-Vector3::x(), -(lo.x + 1.0 - 1e-9))]);
        let (vol, _) = cl.volume_centroid().unwrap();
        assert!((vol - 1e-9).abs() < 1e-15, "{vol}");
    }
}
