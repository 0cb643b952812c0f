//! A body's polyhedron placed at its pose, built into buffers kept per thread: the
//! allocation-free counterpart of `PolyhedronShape::to_convex`, with the same
//! arithmetic (so the same bits; see the test). The pair functor poses two bodies per
//! call, the wall and sphere functors one; with `to_convex` that was a vertex list and
//! one index list per face allocated and freed for each body each time (about 45k
//! instructions for two 30-point rocks).
//! The buffers are overwritten whole on every call, so results do not depend on which
//! thread ran which pair before.

use dem_api::convex::Polyhedron;
use dem_api::nalgebra::Point3;
use dem_api::{PolyhedronShape, Quat, Vec3};
use std::cell::RefCell;

/// Place `shape` at `pos` (m) with orientation `ori` into `out`, reusing its buffers.
pub fn pose_into(shape: &PolyhedronShape, pos: &Vec3, ori: &Quat, out: &mut Polyhedron) {
    let (x, q) = (pos.na(), ori.unit());
    // The record's slices once (each face's list is the `shape.face(k)` slice).
    let (planes, face_vertices) = (shape.planes(), shape.face_vertices());
    out.refill_trusted(
        shape
            .vertices()
            .iter()
            .map(|v| Point3::from(x + q * v.na())),
        planes.len(),
        |k, indices| {
            let p = &planes[k];
            let normal = q * p.normal.na();
            let first = p.first as usize;
            indices.extend(
                face_vertices[first..first + p.count as usize]
                    .iter()
                    .map(|&i| i as usize),
            );
            (normal, p.offset + normal.dot(x))
        },
    );
}

thread_local! {
    static POSED: RefCell<[Polyhedron; 2]> = RefCell::new([
        Polyhedron::from_trusted_parts(Vec::new(), Vec::new()),
        Polyhedron::from_trusted_parts(Vec::new(), Vec::new()),
    ]);
}

/// Run `f` on the body placed at its pose (this thread's buffer).
pub fn with_posed<R>(
    shape: &PolyhedronShape,
    pos: &Vec3,
    ori: &Quat,
    f: impl FnOnce(&Polyhedron) -> R,
) -> R {
    POSED.with(|cell| match cell.try_borrow_mut() {
        Ok(mut pair) => {
            pose_into(shape, pos, ori, &mut pair[0]);
            f(&pair[0])
        }
        // Re-entered (not done by the functors): a fresh body.
        Err(_) => f(&shape.to_convex(pos, ori)),
    })
}

/// Run `f` on the two bodies placed at their poses (this thread's buffers).
pub fn with_posed_pair<R>(
    (s1, pos1, ori1): (&PolyhedronShape, &Vec3, &Quat),
    (s2, pos2, ori2): (&PolyhedronShape, &Vec3, &Quat),
    f: impl FnOnce(&Polyhedron, &Polyhedron) -> R,
) -> R {
    POSED.with(|cell| match cell.try_borrow_mut() {
        Ok(mut pair) => {
            let [a, b] = &mut *pair;
            pose_into(s1, pos1, ori1, a);
            pose_into(s2, pos2, ori2, b);
            f(a, b)
        }
        // Re-entered (not done by the functors): fresh bodies.
        Err(_) => f(&s1.to_convex(pos1, ori1), &s2.to_convex(pos2, ori2)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::convex::generate::{cube, rock};
    use dem_api::nalgebra::{UnitQuaternion, Vector3};
    use dem_api::PolyhedronData;

    #[test]
    fn posing_in_place_gives_the_bits_of_to_convex() {
        let shapes = [
            PolyhedronData::of(&rock(5, 30, Vector3::new(0.6, 0.5, 0.4)).unwrap()),
            PolyhedronData::of(&cube(1.0).unwrap()),
            PolyhedronData::of(&rock(6, 12, Vector3::new(0.2, 0.5, 0.1)).unwrap()),
        ];
        // Reused buffer: larger, smaller and larger bodies in turn.
        let mut out = Polyhedron::from_trusted_parts(Vec::new(), Vec::new());
        for k in 0..9 {
            let rec = unsafe { shapes[k % 3].record() };
            let u = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -1.1, 0.7) * k as f64);
            let ori = Quat {
                i: u.i,
                j: u.j,
                k: u.k,
                w: u.w,
            };
            let pos = Vec3::new(1e3 + 0.1 * k as f64, -2.5, 7.0 / (k + 1) as f64);
            pose_into(&rec, &pos, &ori, &mut out);
            assert_eq!(
                format!("{out:?}"),
                format!("{:?}", rec.to_convex(&pos, &ori)),
                "pose {k}"
            );
        }
    }
}
