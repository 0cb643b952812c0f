//! `Cg2_Facet_Polyhedron_L6Geom`: a triangle of a mesh (body 1) and a convex polyhedron
//! (body 2).
//!
//! **Definition.** The facet acts as the wall of its triangle: the half-space behind its
//! surface (the plane of the triangle moved by the half-thickness `h` towards the
//! polyhedron), cut down to the triangle's column (the infinite prism over the triangle
//! along its normal). The *immersed part* is the polyhedron clipped by the four planes of
//! that region (the surface and the three edge planes; [`crate::clip`]). From it, as
//! `Cg2_Wall_Polyhedron_L6Geom` does for a wall:
//! - normal: the facet normal, oriented towards the polyhedron's centroid (a facet is
//!   two-sided);
//! - gap: the height of the lowest vertex of the immersed part above the surface
//!   (negative in overlap);
//! - area: the area of the immersed part's face on the surface (the section of the
//!   polyhedron by the surface, clipped to the triangle);
//! - point: the centroid of the immersed part, projected on the surface (the point where
//!   a pressure proportional to the local penetration acts; see `wall.rs` for why not the
//!   section centroid).
//!
//! Without an immersed part the gap is the GJK distance (`dem_api::convex::gjk_distance`)
//! from the polyhedron to the column (a prism from the surface down below the body), 0
//! when it is within the geometric epsilon, and the area 0.
//!
//! **Why this and not the thin prism with Solfec's volumetric contact.** The facet as a
//! prism of thickness `2 h` given to `dem_api::convex::contact` would weight the prism's
//! side faces into the normal: a polyhedron sliding onto the next facet of a flat floor
//! starts that contact with a sliver whose side face (on the shared edge) is larger than
//! its top face, so the normal turns sideways and the body snags on an edge that is not
//! there. It also needs `h > 0`, and fails once the body is deeper than `2 h`. The
//! column never turns the normal: over a flat mesh the immersed parts of neighbouring
//! facets add up to the immersed part under a wall, so with an area-proportional
//! stiffness (`kn_per_area`) the total force is the wall's and moves continuously from
//! facet to facet (`tests/polyhedron_contacts.rs`). **Why clipping and not the polar-dual
//! intersection** (`dem_api::convex::intersect`) of the polyhedron with the column: that
//! intersection calls a common part whose inscribed radius is below the geometric
//! epsilon "touching" and gives it no volume, so a body entering the next facet's column
//! loses a sliver up to `2 eps` wide: with `eps` = 8.5e-6 m (1e-6 of the test's model
//! size) a 0.1 m cube sliding over facet edges lost up to 1.6e-4 of its weight. Clipping
//! is exact for any sliver and needs no interior point.
//!
//! **Limits.** The facet always pushes along its normal: a polyhedron hitting a boundary
//! edge of a mesh from the side is pushed out through the surface, not sideways (edges
//! and vertices of the mesh are not rounded). Each facet under a body gives its own
//! contact: with a constant stiffness a body resting on `N` facets sinks by a factor `N`
//! less than on a wall (use `kn_per_area`, or contact sparsification). Within the
//! interaction distance but apart, the normal stays the facet's, whatever the direction
//! of the closest points.
//!
//! `radius1` is infinite (the facet is flat: the core takes the branch from the mesh's
//! reference point), `radius2` the polyhedron's volume-equivalent radius.

use crate::clip::{area, clip, Side};
use crate::epsilon;
use dem_api::convex::{gjk_distance, Polyhedron};
use dem_api::nalgebra::{Point3, Vector3};
use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};

/// Parameters of the facet-polyhedron functor.
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct FacetParams {
    /// Geometric epsilon, m (see [`crate::epsilon`]).
    pub geometric_epsilon: Option<f64>,
}

/// The facet-polyhedron functor.
pub struct FacetPolyhedron {
    epsilon: Option<f64>,
}

impl Geometry for FacetPolyhedron {
    type Params = FacetParams;
    const NAME: &'static str = "Cg2_Facet_Polyhedron_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::FACET, ShapeKind::POLYHEDRON];
    const DESCRIPTION: &'static str = "Mesh triangle and convex polyhedron: the facet as \
        the wall of its triangle (the half-space behind its surface, cut to the triangle's \
        column); the polyhedron's part in it (clipped by those planes) gives gap = its \
        lowest point, area = its face on the surface, point = its centroid projected on the \
        surface; normal = facet normal towards the polyhedron. radius2 is the polyhedron's \
        volume-equivalent radius.";
    const PARAMS: &'static [Param] = &[epsilon::PARAM];

    fn new(p: FacetParams) -> Result<Self, String> {
        epsilon::check(p.geometric_epsilon)?;
        Ok(FacetPolyhedron {
            epsilon: p.geometric_epsilon,
        })
    }

    fn geom(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        self.try_term(b1, b2, distance, 0).ok().flatten()
    }

    fn try_term(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        feature: u32,
    ) -> Result<Option<RawGeom>, String> {
        let (Some(f), Some(shape)) = (b1.shape.facet(), b2.shape.polyhedron()) else {
            return Err("not a facet and a polyhedron".into());
        };
        if feature != 0 {
            return Ok(None);
        }
        let q = b1.ori.unit();
        let v = f.vertices.map(|x| b1.pos.na() + q * x.na());
        let face_normal = q * f.normal.na();
        let centre = *b2.pos.na();
        let side = face_normal.dot(&(centre - v[0]));
        let n = if side < 0.0 {
            -face_normal
        } else {
            face_normal
        };
        // Cheap rejection: the bounding sphere above the surface.
        if side.abs() - f.halfthick - shape.bounding_radius >= distance {
            return Ok(None);
        }
        let top = v[0] + n * f.halfthick;
        let height = |x: &Vector3<f64>| n.dot(&(x - top));
        let poly = shape.to_convex(&b2.pos, &b2.ori);
        let lowest = poly
            .vertices()
            .iter()
            .map(|x| height(&x.coords))
            .fold(f64::INFINITY, f64::min);
        if lowest >= distance {
            return Ok(None);
        }
        let raw = |point: Vector3<f64>, gap: f64, area: f64| RawGeom {
            touching: 1,
            point: point.into(),
            normal: n.into(),
            gap,
            radius1: f64::INFINITY,
            radius2: shape.equivalent_radius(),
            area,
            weight: 1.0,
        };
        let part = clip(&poly, &column_planes(&v, &n, &top));
        if let Some((_, c)) = part.volume_centroid() {
            let gap = part
                .polygons
                .iter()
                .flat_map(|(_, p)| p.iter())
                .map(height)
                .fold(f64::INFINITY, f64::min)
                .min(0.0);
            if gap >= distance {
                return Ok(None);
            }
            // Plane 0 is the surface (see `column_planes`).
            let area: f64 = part
                .polygons
                .iter()
                .filter(|(s, _)| *s == Side::Plane(0))
                .map(|(_, p)| area(p))
                .sum();
            let c = c.coords;
            return Ok(Some(raw(c - n * height(&c), gap, area)));
        }
        // Nothing of the body inside the column behind the surface: apart, or touching.
        let r = shape.bounding_radius;
        let column = column(&v, &n, f.halfthick, lowest.min(0.0) - r)
            .map_err(|e| format!("facet column: {e}"))?;
        let prox = gjk_distance(&column, &poly);
        let eps = epsilon::absolute(self.epsilon, r + triangle_size(&v));
        let gap = if prox.distance <= eps {
            0.0
        } else {
            prox.distance
        };
        if gap >= distance {
            return Ok(None);
        }
        let mid = 0.5 * (prox.point_a.coords + prox.point_b.coords);
        Ok(Some(raw(mid - n * height(&mid), gap, 0.0)))
    }
}

/// The half-spaces `m · x <= d` of the column behind the surface: plane 0 the surface
/// through `top` (normal `n`), then the three planes through the triangle's edges,
/// perpendicular to it, facing out.
fn column_planes(
    v: &[Vector3<f64>; 3],
    n: &Vector3<f64>,
    top: &Vector3<f64>,
) -> [(Vector3<f64>, f64); 4] {
    let edge = |k: usize| {
        let (a, b, c) = (v[k], v[(k + 1) % 3], v[(k + 2) % 3]);
        let m = (b - a).cross(n).normalize();
        let m = if m.dot(&(c - a)) > 0.0 { -m } else { m };
        (m, m.dot(&a))
    };
    [(*n, n.dot(top)), edge(0), edge(1), edge(2)]
}

/// Longest edge of the triangle (m).
fn triangle_size(v: &[Vector3<f64>; 3]) -> f64 {
    (0..3)
        .map(|k| (v[(k + 1) % 3] - v[k]).norm())
        .fold(0.0, f64::max)
}

/// The triangle `v` moved by `h` along `n` (the surface), extruded down to height `depth`
/// (< 0, m) below it: a triangular prism whose face 0 is the top (outward normal `n`).
fn column(
    v: &[Vector3<f64>; 3],
    n: &Vector3<f64>,
    h: f64,
    depth: f64,
) -> Result<Polyhedron, dem_api::convex::ConvexError> {
    // Counter-clockwise seen along +n, so that the top's outward normal is n.
    let ccw = (v[1] - v[0]).cross(&(v[2] - v[0])).dot(n) > 0.0;
    let order = if ccw { [0, 1, 2] } else { [0, 2, 1] };
    let mut points: Vec<Point3<f64>> = order.iter().map(|&k| (v[k] + n * h).into()).collect();
    points.extend(order.iter().map(|&k| Point3::from(v[k] + n * (h + depth))));
    let faces = vec![
        vec![0, 1, 2],
        vec![3, 5, 4],
        vec![0, 3, 4, 1],
        vec![1, 4, 5, 2],
        vec![2, 5, 3, 0],
    ];
    Polyhedron::from_faces(points, faces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::convex::generate::cube;
    use dem_api::nalgebra::UnitQuaternion;
    use dem_api::{FacetShape, PolyhedronData, Quat, ShapeView, Vec3};

    /// The facet (0,0,0), (2,0,0), (0,2,0) with half-thickness `h`, alone.
    fn facet(h: f64) -> FacetShape {
        let v = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
        ];
        // SAFETY: no fans.
        unsafe {
            FacetShape::new(
                v,
                Vec3::new(0., 0., 1.),
                h,
                [Vec3::ZERO; 3],
                0b111_111,
                [&[], &[], &[]],
            )
        }
    }

    /// The unit cube centred on `x`, turned by `q`, against `f` seen from a mesh at
    /// `origin` with orientation `mesh`.
    fn geom(
        f: &FacetShape,
        origin: Vector3<f64>,
        mesh: UnitQuaternion<f64>,
        x: Vector3<f64>,
        q: UnitQuaternion<f64>,
        distance: f64,
    ) -> Option<RawGeom> {
        let data = PolyhedronData::of(&cube(1.0).unwrap().to_principal().0);
        let rec = unsafe { data.record() };
        let b1 = BodyView {
            pos: origin.into(),
            ori: Quat::from(mesh),
            vel: Vec3::ZERO,
            angvel: Vec3::ZERO,
            shape: ShapeView::of_facet(f),
        };
        let b2 = BodyView {
            pos: x.into(),
            ori: Quat::from(q),
            shape: ShapeView::of_polyhedron(&rec),
            ..b1
        };
        let g = FacetPolyhedron::new(FacetParams::default()).unwrap();
        g.try_term(&b1, &b2, distance, 0).unwrap()
    }

    fn v(x: f64, y: f64, z: f64) -> Vector3<f64> {
        Vector3::new(x, y, z)
    }

    fn id() -> UnitQuaternion<f64> {
        UnitQuaternion::identity()
    }

    #[test]
    fn a_cube_inside_the_triangle_acts_as_on_a_wall() {
        // Cube [-0.1, 0.9]^3, its bottom 0.1 below the facet's plane.
        let g = geom(
            &facet(0.0),
            v(0., 0., 0.),
            id(),
            v(0.4, 0.4, 0.4),
            id(),
            0.0,
        )
        .unwrap();
        // Fully inside: the square [-0.1, 0.9]^2 clipped to x, y >= 0 is [0, 0.9]^2, and
        // x + y <= 2 holds there.
        assert!((g.gap + 0.1).abs() < 1e-12, "{g:?}");
        assert!((g.area - 0.81).abs() < 1e-12, "{g:?}");
        assert_eq!(*g.normal.na(), v(0., 0., 1.));
        // The immersed part [0, 0.9]^2 x [-0.1, 0]: centroid (0.45, 0.45), on the plane.
        assert!((g.point.na() - v(0.45, 0.45, 0.0)).norm() < 1e-12, "{g:?}");
        assert!(g.radius1.is_infinite());
    }

    #[test]
    fn half_thickness_raises_the_surface_and_the_side_follows_the_centroid() {
        let f = facet(0.05);
        // Cube centre at 0.5 above the plane: bottom at 0, surface at 0.05: overlap 0.05.
        let g = geom(&f, v(0., 0., 0.), id(), v(0.5, 0.5, 0.5), id(), 0.0).unwrap();
        assert!((g.gap + 0.05).abs() < 1e-12 && (g.area - 1.0).abs() < 1e-12);
        assert!((g.point.na() - v(0.5, 0.5, 0.05)).norm() < 1e-12);
        // The same below the facet: the normal flips.
        let g = geom(&f, v(0., 0., 0.), id(), v(0.5, 0.5, -0.5), id(), 0.0).unwrap();
        assert!((g.gap + 0.05).abs() < 1e-12 && *g.normal.na() == v(0., 0., -1.));
    }

    #[test]
    fn the_triangle_clips_the_section() {
        // Cube [0.5, 1.5]^2 over the hypotenuse x + y = 2: the part with x + y <= 2 is the
        // triangle (0.5, 0.5), (1.5, 0.5), (0.5, 1.5), area 1/2, centroid (5/6, 5/6).
        let g = geom(
            &facet(0.0),
            v(0., 0., 0.),
            id(),
            v(1.0, 1.0, 0.4),
            id(),
            0.0,
        )
        .unwrap();
        assert!((g.area - 0.5).abs() < 1e-12, "{g:?}");
        assert!((g.gap + 0.1).abs() < 1e-12);
        assert!(
            (g.point.na() - v(5.0 / 6.0, 5.0 / 6.0, 0.0)).norm() < 1e-12,
            "{g:?}"
        );
    }

    #[test]
    fn a_sliver_in_the_column_has_its_exact_area() {
        // Cube x in [-1 + 1e-7, 1e-7], y in [0, 1], bottom 0.1 deep: 1e-7 m of it is over
        // the triangle (x >= 0), however thin (no epsilon band).
        let x = v(-0.5 + 1e-7, 0.5, 0.4);
        let g = geom(&facet(0.0), v(0., 0., 0.), id(), x, id(), 0.0).unwrap();
        assert!((g.area - 1e-7).abs() < 1e-16, "{g:?}");
        assert!((g.gap + 0.1).abs() < 1e-12);
        assert!((g.point.na() - v(0.5e-7, 0.5, 0.0)).norm() < 1e-12, "{g:?}");
    }

    #[test]
    fn apart_within_the_interaction_distance_and_far() {
        let x = v(0.5, 0.5, 0.6);
        assert!(geom(&facet(0.0), v(0., 0., 0.), id(), x, id(), 0.0).is_none());
        let g = geom(&facet(0.0), v(0., 0., 0.), id(), x, id(), 0.2).unwrap();
        assert!((g.gap - 0.1).abs() < 1e-12 && g.area == 0.0, "{g:?}");
        assert!(g.point.na().z.abs() < 1e-12);
        // Outside the triangle's column, beside it at the same height: no overlap.
        let beside = v(-0.6, 0.5, 0.0);
        assert!(geom(&facet(0.0), v(0., 0., 0.), id(), beside, id(), 0.0).is_none());
    }

    #[test]
    fn rigid_motion_moves_the_contact_with_the_pair() {
        let rot = UnitQuaternion::from_euler_angles(0.7, 0.2, -1.3);
        let turn = UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3);
        let shift = v(-2.0, 5.0, 1.0);
        for x in [v(0.4, 0.4, 0.4), v(1.0, 1.0, 0.4), v(0.5, 0.3, 0.3)] {
            let g0 = geom(&facet(0.02), v(0., 0., 0.), id(), x, turn, 0.0).unwrap();
            let g1 = geom(&facet(0.02), shift, rot, rot * x + shift, rot * turn, 0.0).unwrap();
            assert!((g1.gap - g0.gap).abs() < 1e-12, "{x:?}");
            assert!((g1.area - g0.area).abs() < 1e-12);
            assert!((g1.normal.na() - rot * g0.normal.na()).norm() < 1e-12);
            assert!((g1.point.na() - (rot * g0.point.na() + shift)).norm() < 1e-12);
        }
    }
}
