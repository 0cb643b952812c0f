//! The section of a convex polyhedron by a plane: the polygon where the plane cuts it,
//! with its area and centroid.

use dem_api::convex::contact::hull2;
use dem_api::convex::Polyhedron;
use dem_api::nalgebra::{Point3, Vector2, Vector3};

/// Area (m^2) and centroid (global frame, on the plane) of the section of `poly` by the
/// plane through `origin` with unit normal `n`; `s[i]` is the signed distance of vertex
/// `i` from the plane. `None` when the plane does not cut the body (no positive area).
pub fn section(
    poly: &Polyhedron,
    s: &[f64],
    origin: &Vector3<f64>,
    n: &Vector3<f64>,
) -> Option<(f64, Point3<f64>)> {
    let u = if n.x.abs() < 0.9 {
        Vector3::x().cross(n).normalize()
    } else {
        Vector3::y().cross(n).normalize()
    };
    let w = n.cross(&u);
    let v = poly.vertices();
    let mut pts: Vec<Vector2<f64>> = Vec::new();
    let mut add = |x: Vector3<f64>| {
        let d = x - origin;
        pts.push(Vector2::new(u.dot(&d), w.dot(&d)));
    };
    for f in poly.faces() {
        let m = f.vertices.len();
        for k in 0..m {
            let (i, j) = (f.vertices[k], f.vertices[(k + 1) % m]);
            if s[i] == 0.0 {
                add(v[i].coords);
            } else if (s[i] < 0.0) != (s[j] < 0.0) && s[j] != 0.0 {
                let t = s[i] / (s[i] - s[j]);
                add(v[i].coords + t * (v[j].coords - v[i].coords));
            }
        }
    }
    let hull = hull2(pts);
    if hull.len() < 3 {
        return None;
    }
    // Shoelace area and centroid about the first vertex (no cancellation far away).
    let o = hull[0];
    let (mut area2, mut c) = (0.0, Vector2::zeros());
    for k in 1..hull.len() - 1 {
        let (a, b) = (hull[k] - o, hull[k + 1] - o);
        let cr = a.x * b.y - a.y * b.x;
        area2 += cr;
        c += cr * (a + b) / 3.0;
    }
    if area2.is_nan() || area2 <= 0.0 {
        return None;
    }
    let c = o + c / area2;
    Some((0.5 * area2, Point3::from(origin + c.x * u + c.y * w)))
}

/// Volume (m^3) and centroid (global frame) of the part of `poly` behind the plane
/// through `apex` with unit normal `n` (`s[i] <= 0`, `s[i]` the signed distance of vertex
/// `i`): each face clipped to that side, fanned from `apex`, a point of the plane (so the
/// section face itself adds nothing). `None` when nothing is behind the plane.
pub fn immersed(poly: &Polyhedron, s: &[f64], apex: &Vector3<f64>) -> Option<(f64, Point3<f64>)> {
    let v = poly.vertices();
    let (mut vol, mut moment) = (0.0, Vector3::zeros());
    let mut clipped: Vec<Vector3<f64>> = Vec::new();
    for f in poly.faces() {
        clipped.clear();
        let m = f.vertices.len();
        for k in 0..m {
            let (i, j) = (f.vertices[k], f.vertices[(k + 1) % m]);
            if s[i] <= 0.0 {
                clipped.push(v[i].coords - apex);
            }
            if (s[i] < 0.0 && s[j] > 0.0) || (s[i] > 0.0 && s[j] < 0.0) {
                let t = s[i] / (s[i] - s[j]);
                clipped.push(v[i].coords + t * (v[j].coords - v[i].coords) - apex);
            }
        }
        for k in 1..clipped.len().saturating_sub(1) {
            let (a, b, c) = (clipped[0], clipped[k], clipped[k + 1]);
            let dv = a.dot(&b.cross(&c)) / 6.0;
            vol += dv;
            moment += dv * (a + b + c) / 4.0;
        }
    }
    if vol.is_nan() || vol <= 0.0 {
        return None;
    }
    Some((vol, Point3::from(apex + moment / vol)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::convex::generate::cube;

    #[test]
    fn a_unit_cube_cut_through_its_middle() {
        let c = cube(1.0).unwrap();
        let (lo, hi) = c.aabb();
        let mid = 0.5 * (lo.coords + hi.coords);
        let origin = mid + Vector3::new(0.0, 0.0, 0.1);
        let n = Vector3::z();
        let s: Vec<f64> = c
            .vertices()
            .iter()
            .map(|v| n.dot(&(v.coords - origin)))
            .collect();
        let (area, point) = section(&c, &s, &origin, &n).unwrap();
        assert!((area - 1.0).abs() < 1e-12);
        assert!((point.coords - origin).norm() < 1e-12);
        // Below the cut: 1 x 1 x 0.6, centroid 0.3 below it.
        let (vol, c) = immersed(&c, &s, &origin).unwrap();
        assert!((vol - 0.6).abs() < 1e-12);
        assert!((c.coords - origin + Vector3::new(0.0, 0.0, 0.3)).norm() < 1e-12);
        let c = cube(1.0).unwrap();
        let far = origin + Vector3::new(0.0, 0.0, 5.0);
        let s: Vec<f64> = c
            .vertices()
            .iter()
            .map(|v| n.dot(&(v.coords - far)))
            .collect();
        assert!(section(&c, &s, &far, &n).is_none());
    }
}
