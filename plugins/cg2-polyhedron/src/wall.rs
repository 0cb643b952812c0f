//! `Cg2_Wall_Polyhedron_L6Geom`: an infinite plane (body 1) and a convex polyhedron
//! (body 2).
//!
//! The polyhedron is clipped by the wall plane (oriented by `sense` as for spheres: a
//! one-sided wall acts as a half-space, a two-sided one pushes towards the side of the
//! polyhedron's centroid). The part of the body behind the plane, volume `V`, centroid
//! `x̄` at depth `s̄` below the plane, stores the Winkler (buoyancy) energy
//! `E = k ∫ s dV = k V s̄` ([`crate::potential`] with the wall plane as the only plane):
//! its exact force is `k V` along the wall normal at `x̄`. The functor reports
//!
//! - normal: the wall normal; point: `x̄` projected on the plane;
//! - gap: `-2 s̄` (m); area: `V / (2 s̄)` (m^2),
//!
//! so that a linear law with stiffness per area (`k_n = kn_per_area * area`) gives the
//! force `k V` and stores `k V s̄`: the force is the gradient of the stored energy and the
//! ledger closes. For a face flat in the wall at depth `d`, gap = `-d` and area = the face
//! area; at a vertex, gap is half the vertex depth.
//!
//! Why the overlap centroid as the point: the moment of the buoyancy force rights a
//! tilted body resting on a face (a point on the section centroid makes a flat face
//! rock over like a pencil on its tip). Before this formulation the gap was the deepest
//! vertex with the force at `x̄`: the force was not the gradient of any stored energy,
//! and a cube tipping off an edge onto a face closed its ledger to 19 % only.
//!
//! Without a section (the body is within the interaction distance but not yet cutting
//! the plane, or, in an extreme case, entirely behind it) the point is the mean of the
//! nearest vertices projected on the plane, the gap the smallest signed vertex distance
//! and the area 0.

use crate::potential::buoyancy;
use crate::section::immersed;
use dem_api::nalgebra::{Point3, Vector3};
use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};

/// Parameters (none yet).
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct WallParams {}

/// The wall-polyhedron functor.
pub struct WallPolyhedron;

impl Geometry for WallPolyhedron {
    type Params = WallParams;
    const NAME: &'static str = "Cg2_Wall_Polyhedron_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::WALL, ShapeKind::POLYHEDRON];
    /// Both orientations (the wall's normal and the polyhedron's pose).
    const READS: GeomReads = GeomReads::ORIENTATION_1.union(GeomReads::ORIENTATION_2);
    const DESCRIPTION: &'static str = "Infinite plane and convex polyhedron: the polyhedron \
        clipped by the plane, Winkler (buoyancy) potential; point = centroid of the part \
        behind the plane (volume V, depth s) projected on it, normal = wall normal, gap = \
        -2 s, area = V / 2 s (energy-consistent with kn_per_area). radius2 is the \
        polyhedron's volume-equivalent radius.";
    const PARAMS: &'static [Param] = &[];

    fn new(_: WallParams) -> Result<Self, String> {
        Ok(WallPolyhedron)
    }

    fn geom(&self, wall: &BodyView<'_>, body: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        self.term(wall, body, distance, true)
    }
}

/// Margin of the lowest-vertex rejection, relative to the body's bounding radius plus the
/// distances of its centre and of the wall's origin from the origin (the scale of the
/// world coordinates' round-off): the two ways of computing a vertex's height above the
/// plane differ by a few ulps of that.
const CULL_MARGIN: f64 = 1e-9;

impl WallPolyhedron {
    /// The term, with (`cull`) or without the rejection by the lowest vertex found from
    /// the body-frame vertices (the same result either way: see the test).
    fn term(
        &self,
        wall: &BodyView<'_>,
        body: &BodyView<'_>,
        distance: f64,
        cull: bool,
    ) -> Option<RawGeom> {
        let w = wall.shape.wall()?;
        let shape = body.shape.polyhedron()?;
        let plane_normal = wall.ori.unit() * w.normal.na();
        let origin = wall.pos.na();
        let side = plane_normal.dot(&(body.pos.na() - origin));
        let sense = match w.sense {
            0 if side < 0.0 => -1.0,
            0 => 1.0,
            s => s.signum() as f64,
        };
        let n = plane_normal * sense;
        // Cheap rejection by the bounding sphere.
        if side * sense - shape.bounding_radius >= distance {
            return None;
        }
        // Exact rejection by the height of the lowest vertex over the plane, from the
        // body-frame vertices (no posed body): beyond `distance` by a margin far above
        // the round-off, the posed body's lowest vertex is beyond it too, and the
        // computation below returns `None`.
        if cull {
            let lowest =
                crate::support::bound(shape, &body.pos, &body.ori, &n, false) - n.dot(origin);
            let margin =
                CULL_MARGIN * (shape.bounding_radius + body.pos.na().norm() + origin.norm());
            if lowest >= distance + margin {
                return None;
            }
        }
        crate::posed::with_posed(shape, &body.pos, &body.ori, |poly| {
            let s: Vec<f64> = poly
                .vertices()
                .iter()
                .map(|v| n.dot(&(v.coords - origin)))
                .collect();
            let gap = s.iter().copied().fold(f64::INFINITY, f64::min);
            if gap >= distance {
                return None;
            }
            let behind = immersed(poly, &s, &(body.pos.na() - n * side * sense));
            let term = behind.and_then(|(vol, c)| buoyancy(vol, &c.coords, &n, origin));
            let (area, point, gap) = match term {
                Some((point, gap, area)) => (area, point, gap),
                _ => {
                    let tol = 1e-9 * shape.bounding_radius;
                    let near: Vec<&Point3<f64>> = poly
                        .vertices()
                        .iter()
                        .zip(&s)
                        .filter(|(_, &d)| d <= gap + tol)
                        .map(|(v, _)| v)
                        .collect();
                    let mean: Vector3<f64> =
                        near.iter().map(|v| v.coords).sum::<Vector3<f64>>() / near.len() as f64;
                    (0.0, Point3::from(mean - n * n.dot(&(mean - origin))), gap)
                }
            };
            Some(RawGeom {
                touching: 1,
                point: point.coords.into(),
                normal: n.into(),
                gap,
                radius1: f64::INFINITY,
                radius2: shape.equivalent_radius(),
                area,
                weight: 1.0,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::convex::generate::rock;
    use dem_api::nalgebra::UnitQuaternion;
    use dem_api::{PolyhedronData, Quat, ShapeView, Vec3, WallShape};

    /// Rocks turning and moving through a wall (one-sided and two-sided, tilted, away
    /// from the origin): the term is the same to the bit with and without the rejection
    /// by the lowest vertex, and the rejection does fire.
    #[test]
    fn the_lowest_vertex_rejection_changes_no_result() {
        let data = PolyhedronData::of(
            &rock(7, 20, Vector3::new(0.6, 0.5, 0.4))
                .unwrap()
                .to_principal()
                .0,
        );
        let rec = unsafe { data.record() };
        let (mut rejected, mut terms) = (0, 0);
        for sense in [1, 0, -1] {
            let normal = Vector3::new(0.1, -0.2, 1.0).normalize();
            let w = WallShape {
                normal: Vec3::new(normal.x, normal.y, normal.z),
                sense,
            };
            let wall = BodyView {
                pos: Vec3::new(5.0, -2.0, 1.0),
                ori: Quat::IDENTITY,
                vel: Vec3::ZERO,
                angvel: Vec3::ZERO,
                shape: ShapeView::of_wall(&w),
            };
            for i in 0..400 {
                let t = i as f64;
                let u = UnitQuaternion::from_scaled_axis(Vector3::new(0.9, -0.3, 0.5) * t);
                let h = 0.7 * (0.05 * t).sin();
                let p = Vector3::new(5.0 + (0.3 * t).sin(), -2.0, 1.0) + normal * h;
                let body = BodyView {
                    pos: Vec3::new(p.x, p.y, p.z),
                    ori: Quat {
                        i: u.i,
                        j: u.j,
                        k: u.k,
                        w: u.w,
                    },
                    shape: ShapeView::of_polyhedron(&rec),
                    ..wall
                };
                for distance in [0.0, 0.05] {
                    let with = WallPolyhedron.term(&wall, &body, distance, true);
                    let without = WallPolyhedron.term(&wall, &body, distance, false);
                    assert_eq!(format!("{with:?}"), format!("{without:?}"), "{sense} {i}");
                    terms += usize::from(with.is_some());
                    // The rejection's own test, for the wall facing along `normal`.
                    let lowest = crate::support::bound(&rec, &body.pos, &body.ori, &normal, false)
                        - normal.dot(wall.pos.na());
                    let side = normal.dot(&(p - wall.pos.na()));
                    rejected += usize::from(
                        sense == 1
                            && side < rec.bounding_radius + distance
                            && lowest > distance + 1e-6,
                    );
                }
            }
        }
        println!("{terms} terms, {rejected} rejected");
        assert!(terms > 300, "{terms} terms");
        assert!(
            rejected > 50,
            "{rejected} rejected within the bounding sphere"
        );
    }
}
