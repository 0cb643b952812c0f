//! Extent of a posed polyhedron along a world direction, read from its body-frame
//! vertices: the direction is turned into the body frame once, so no posed copy of the
//! body is built. The pair functor uses it to reject pairs that are apart before it
//! builds the posed bodies and runs GJK.

use dem_api::nalgebra::Vector3;
use dem_api::{PolyhedronShape, Quat, Vec3};

/// Largest (`upper`) or smallest `n · x` (m) over the vertices `x` of `shape` placed at
/// `pos` (m) with orientation `ori`; `n` is a world direction (unit for distances). Only
/// the bound asked for is computed: a gap needs the top of one shadow and the bottom of
/// the other.
pub fn bound(
    shape: &PolyhedronShape,
    pos: &Vec3,
    ori: &Quat,
    n: &Vector3<f64>,
    upper: bool,
) -> f64 {
    let local = ori.unit().inverse_transform_vector(n);
    let vertices = shape.vertices().iter().map(|v| local.dot(v.na()));
    let b = if upper {
        vertices.fold(f64::NEG_INFINITY, f64::max)
    } else {
        vertices.fold(f64::INFINITY, f64::min)
    };
    n.dot(pos.na()) + b
}

/// Gap (m) between two posed polyhedra along the line from the first centre to the
/// second: a lower bound of their distance (negative when their shadows on that
/// line overlap); `None` for coincident centres.
pub fn centre_line_gap(
    s1: &PolyhedronShape,
    (pos1, ori1): (&Vec3, &Quat),
    s2: &PolyhedronShape,
    (pos2, ori2): (&Vec3, &Quat),
) -> Option<f64> {
    let d = pos2.na() - pos1.na();
    let len = d.norm();
    if len.is_nan() || len <= 0.0 {
        return None;
    }
    Some(gap_along(s1, (pos1, ori1), s2, (pos2, ori2), &(d / len)))
}

/// Gap (m) between the shadows of two posed polyhedra on the world direction `n`
/// (unit, pointing from the first body to the second): a lower bound of their distance,
/// negative when the shadows overlap.
pub fn gap_along(
    s1: &PolyhedronShape,
    (pos1, ori1): (&Vec3, &Quat),
    s2: &PolyhedronShape,
    (pos2, ori2): (&Vec3, &Quat),
    n: &Vector3<f64>,
) -> f64 {
    bound(s2, pos2, ori2, n, false) - bound(s1, pos1, ori1, n, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::convex::generate::rock;
    use dem_api::nalgebra::UnitQuaternion;
    use dem_api::PolyhedronData;

    /// Each bound is the extreme of `n · x` over the posed body's vertices (posed in the
    /// world frame by `to_convex`, to round-off), and the gap is their difference.
    #[test]
    fn bounds_are_the_extremes_of_the_posed_vertices() {
        let data = PolyhedronData::of(&rock(2, 20, Vector3::new(0.6, 0.5, 0.4)).unwrap());
        let rec = unsafe { data.record() };
        for k in 0..20 {
            let t = k as f64;
            let u = UnitQuaternion::from_scaled_axis(Vector3::new(0.7, -0.4, 1.1) * t);
            let ori = Quat {
                i: u.i,
                j: u.j,
                k: u.k,
                w: u.w,
            };
            let pos = Vec3::new(1.0 + t, -2.0, 0.5 * t);
            let n = Vector3::new(t.sin(), t.cos(), 0.3).normalize();
            let posed = rec.to_convex(&pos, &ori);
            let s = posed.vertices().iter().map(|v| n.dot(&v.coords));
            let (lo, hi) = s.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                (l.min(x), h.max(x))
            });
            assert!(
                (bound(&rec, &pos, &ori, &n, true) - hi).abs() < 1e-12,
                "{k}"
            );
            assert!(
                (bound(&rec, &pos, &ori, &n, false) - lo).abs() < 1e-12,
                "{k}"
            );
            let gap = gap_along(&rec, (&pos, &ori), &rec, (&pos, &ori), &n);
            assert!((gap - (lo - hi)).abs() < 1e-12 && gap < 0.0, "{k}");
        }
    }
}
