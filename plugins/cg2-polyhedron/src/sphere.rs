//! `Cg2_Sphere_Polyhedron_L6Geom`: a sphere (body 1) and a convex polyhedron (body 2).
//!
//! The shape pairs of this plugin are named and ordered as in the rest of dem: the flat
//! or environment body first (`Wall`, `Facet`), then `Sphere`, then `Polyhedron`.
//!
//! - **Centre outside** the polyhedron (GJK distance `d` from the centre `c` to the
//!   polyhedron above the geometric epsilon): the closest point `q` of the polyhedron
//!   (`dem_api::convex::gjk_distance` between the one-point body `{c}` and the
//!   polyhedron), the outward direction `m = (c - q) / d`, gap `d - r`. Faces, edges
//!   and vertices of the polyhedron are all handled by the same closest point, so a
//!   sphere over an edge or a corner sees a rounded contact, exactly as a sphere
//!   touching a sharp edge does.
//! - **Centre inside** (or within the epsilon of the surface): the deepest-face rule:
//!   the face of least penetration, the one whose plane is nearest to `c` (largest
//!   `n_f · c - offset_f`, minus the depth `t >= 0` of `c` below it), `m = n_f`, gap
//!   `-t - r`, `q = c + t m` (the projection of `c` on that plane). The face is the
//!   one the sphere most cheaply leaves through.
//!
//! Normal from body 1 (sphere) to body 2 (polyhedron): `n = -m`. Point: the middle of the
//! overlap along the normal, `q + m gap / 2` (as for two spheres). `radius1` = sphere
//! radius, `radius2` = the polyhedron's volume-equivalent radius (not a branch length:
//! scenes with polyhedra use `no_ratch: false`), area `pi r^2` as the sphere-wall
//! functor reports it.

use crate::epsilon;
use dem_api::convex::{gjk_distance, Polyhedron};
use dem_api::nalgebra::{Point3, Vector3};
use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Parameters of the sphere-polyhedron functor.
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct SphereParams {
    /// Geometric epsilon, m (see [`crate::epsilon`]).
    pub geometric_epsilon: Option<f64>,
}

/// The sphere-polyhedron functor.
pub struct SpherePolyhedron {
    epsilon: Option<f64>,
}

/// Closest point `q` (m) of `poly` to `c`, the unit direction `m` from the surface
/// towards `c` and the signed distance (m, negative inside), with the rules of the
/// module documentation; `eps` (m) is the geometric epsilon.
pub fn signed_closest(
    poly: &Polyhedron,
    c: &Point3<f64>,
    eps: f64,
) -> (Point3<f64>, Vector3<f64>, f64) {
    let point = Polyhedron::from_trusted_parts(vec![*c], Vec::new());
    let prox = gjk_distance(&point, poly);
    if prox.distance > eps {
        let m = (c - prox.point_b) / prox.distance;
        return (prox.point_b, m, prox.distance);
    }
    // Inside or on the surface: the face plane nearest to c.
    let (mut best, mut s) = (0, f64::NEG_INFINITY);
    for (k, f) in poly.faces().iter().enumerate() {
        let d = f.normal.dot(&c.coords) - f.offset;
        if d > s {
            (best, s) = (k, d);
        }
    }
    let m = poly.faces()[best].normal;
    (c - m * s, m, s.min(0.0))
}

impl Geometry for SpherePolyhedron {
    type Params = SphereParams;
    const NAME: &'static str = "Cg2_Sphere_Polyhedron_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::SPHERE, ShapeKind::POLYHEDRON];
    /// The polyhedron's orientation, not the sphere's.
    const READS: GeomReads = GeomReads::ORIENTATION_2;
    const DESCRIPTION: &'static str = "Sphere and convex polyhedron: the point of the \
        polyhedron closest to the sphere centre (GJK; faces, edges and corners alike), or, \
        for a centre inside, the face of least penetration; normal from the sphere into the \
        polyhedron, gap = signed centre distance - radius, point in the middle of the \
        overlap, area pi r^2. radius2 is the polyhedron's volume-equivalent radius.";
    const PARAMS: &'static [Param] = &[epsilon::PARAM];

    fn new(p: SphereParams) -> Result<Self, String> {
        epsilon::check(p.geometric_epsilon)?;
        Ok(SpherePolyhedron {
            epsilon: p.geometric_epsilon,
        })
    }

    fn geom(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        let r = b1.shape.sphere()?.radius;
        let shape = b2.shape.polyhedron()?;
        let c = Point3::from(*b1.pos.na());
        // Cheap rejection by the bounding sphere.
        if (c.coords - b2.pos.na()).norm() - shape.bounding_radius - r >= distance {
            return None;
        }
        let eps = epsilon::absolute(self.epsilon, r + shape.bounding_radius);
        let (q, m, s) = crate::posed::with_posed(shape, &b2.pos, &b2.ori, |poly| {
            signed_closest(poly, &c, eps)
        });
        let gap = s - r;
        if gap >= distance {
            return None;
        }
        Some(RawGeom {
            touching: 1,
            point: (q.coords + m * (0.5 * gap)).into(),
            normal: (-m).into(),
            gap,
            radius1: r,
            radius2: shape.equivalent_radius(),
            area: PI * r * r,
            weight: 1.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::convex::generate::cube;
    use dem_api::nalgebra::UnitQuaternion;
    use dem_api::{PolyhedronData, Quat, ShapeView, SphereShape, Vec3};

    /// The geometry of a sphere of radius `r` at `c` and the unit cube centred on `x`
    /// with orientation `q`, asked with interaction distance `distance`.
    fn geom(
        c: Vector3<f64>,
        r: f64,
        x: Vector3<f64>,
        q: UnitQuaternion<f64>,
        distance: f64,
    ) -> Option<RawGeom> {
        let data = PolyhedronData::of(&cube(1.0).unwrap().to_principal().0);
        let rec = unsafe { data.record() };
        let s = SphereShape { radius: r };
        let b1 = BodyView {
            pos: c.into(),
            ori: Quat::IDENTITY,
            vel: Vec3::ZERO,
            angvel: Vec3::ZERO,
            shape: ShapeView::of_sphere(&s),
        };
        let b2 = BodyView {
            pos: x.into(),
            ori: Quat::from(q),
            shape: ShapeView::of_polyhedron(&rec),
            ..b1
        };
        let f = SpherePolyhedron::new(SphereParams::default()).unwrap();
        f.geom(&b1, &b2, distance)
    }

    fn v(x: f64, y: f64, z: f64) -> Vector3<f64> {
        Vector3::new(x, y, z)
    }

    fn id() -> UnitQuaternion<f64> {
        UnitQuaternion::identity()
    }

    /// Checks normal, gap and point against the closed form.
    fn expect(g: &RawGeom, normal: Vector3<f64>, gap: f64, point: Vector3<f64>) {
        assert!((g.normal.na() - normal).norm() < 1e-12, "normal {g:?}");
        assert!((g.gap - gap).abs() < 1e-12, "gap {} != {gap}", g.gap);
        assert!((g.point.na() - point).norm() < 1e-12, "point {g:?}");
    }

    #[test]
    fn above_a_face() {
        // Cube [-0.5, 0.5]^3, sphere r = 0.2 at height 0.65: overlap 0.05.
        let g = geom(v(0.1, -0.2, 0.65), 0.2, v(0., 0., 0.), id(), 0.0).unwrap();
        expect(&g, v(0., 0., -1.), -0.05, v(0.1, -0.2, 0.475));
        assert_eq!((g.radius1, g.area), (0.2, PI * 0.04));
        // The equivalent radius of a unit cube: (3 / 4 pi)^(1/3).
        assert!((g.radius2 - (0.75 / PI).cbrt()).abs() < 1e-12);
    }

    #[test]
    fn over_an_edge_and_a_corner() {
        // Edge x = z = 0.5 (along y); centre 0.15 away at 45 degrees: overlap 0.05.
        let h = 0.15 / 2f64.sqrt();
        let g = geom(v(0.5 + h, 0.3, 0.5 + h), 0.2, v(0., 0., 0.), id(), 0.0).unwrap();
        let m = v(1., 0., 1.) / 2f64.sqrt();
        let q = v(0.5, 0.3, 0.5);
        expect(&g, -m, -0.05, q - m * 0.025);
        // Corner (0.5, 0.5, 0.5); centre 0.15 away along the diagonal.
        let d = v(1., 1., 1.) / 3f64.sqrt();
        let corner = v(0.5, 0.5, 0.5);
        let g = geom(corner + d * 0.15, 0.2, v(0., 0., 0.), id(), 0.0).unwrap();
        expect(&g, -d, -0.05, corner - d * 0.025);
    }

    #[test]
    fn centre_inside_takes_the_least_penetrated_face() {
        // Centre at depth 0.1 below the face x = 0.5 and 0.3 below z = 0.5: the x face.
        let g = geom(v(0.4, 0.0, 0.2), 0.2, v(0., 0., 0.), id(), 0.0).unwrap();
        expect(&g, v(-1., 0., 0.), -0.3, v(0.35, 0.0, 0.2));
        // Exactly on the face: gap -r, normal of that face.
        let g = geom(v(0.1, 0.2, 0.5), 0.2, v(0., 0., 0.), id(), 0.0).unwrap();
        expect(&g, v(0., 0., -1.), -0.2, v(0.1, 0.2, 0.4));
    }

    #[test]
    fn separated_within_the_interaction_distance() {
        // 0.1 between the sphere and the face.
        let c = v(0.0, 0.0, 0.8);
        assert!(geom(c, 0.2, v(0., 0., 0.), id(), 0.0).is_none());
        assert!(
            geom(c, 0.2, v(0., 0., 0.), id(), 0.1).is_none(),
            "gap = distance"
        );
        let g = geom(c, 0.2, v(0., 0., 0.), id(), 0.11).unwrap();
        expect(&g, v(0., 0., -1.), 0.1, v(0.0, 0.0, 0.55));
        // Far away: the bounding-sphere rejection.
        assert!(geom(v(5., 0., 0.), 0.2, v(0., 0., 0.), id(), 0.1).is_none());
    }

    #[test]
    fn rigid_motion_moves_the_contact_with_the_pair() {
        let cases = [
            v(0.1, -0.2, 0.65),
            v(0.6, 0.3, 0.6),
            v(0.62, 0.58, 0.61),
            v(0.4, 0.0, 0.2),
        ];
        let rot = UnitQuaternion::from_euler_angles(0.3, -1.1, 2.0);
        let shift = v(3.0, -7.0, 11.0);
        for c in cases {
            let g0 = geom(c, 0.2, v(0., 0., 0.), id(), 0.0).unwrap();
            let g1 = geom(rot * c + shift, 0.2, shift, rot, 0.0).unwrap();
            assert!((g1.gap - g0.gap).abs() < 1e-12, "{c:?}");
            assert!((g1.normal.na() - rot * g0.normal.na()).norm() < 1e-12);
            assert!((g1.point.na() - (rot * g0.point.na() + shift)).norm() < 1e-12);
        }
    }
}
