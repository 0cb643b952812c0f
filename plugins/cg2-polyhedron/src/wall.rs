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
use dem_api::{BodyView, RawGeom, ShapeKind};
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
