//! Extent of a posed polyhedron along a world direction, read from its body-frame
//! vertices: the direction is turned into the body frame once, so no posed copy of the
//! body is built. The pair functor uses it to reject pairs that are apart before it
//! builds the posed bodies and runs GJK.

use dem_api::nalgebra::Vector3;
use dem_api::{PolyhedronShape, Quat, Vec3};

/// `(min, max)` of `n · x` (m) over the vertices `x` of `shape` placed at `pos`
/// (m) with orientation `ori`; `n` is a world direction (unit for distances).
pub fn extent(shape: &PolyhedronShape, pos: &Vec3, ori: &Quat, n: &Vector3<f64>) -> (f64, f64) {
    let local = ori.unit().inverse_transform_vector(n);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in shape.vertices() {
        let s = local.dot(v.na());
        lo = lo.min(s);
        hi = hi.max(s);
    }
    let c = n.dot(pos.na());
    (c + lo, c + hi)
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
    let (_, hi1) = extent(s1, pos1, ori1, n);
    let (lo2, _) = extent(s2, pos2, ori2, n);
    lo2 - hi1
}
