//! The part of a convex polyhedron behind a plane: its volume and centroid.

use dem_api::convex::Polyhedron;
use dem_api::nalgebra::{Point3, Vector3};

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
        assert!(immersed(&c, &s, &far).is_some_and(|(v, _)| (v - 1.0).abs() < 1e-12));
    }
}
