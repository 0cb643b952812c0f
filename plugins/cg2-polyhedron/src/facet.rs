//! `Cg2_Facet_Polyhedron_L6Geom`: a triangle of a mesh (body 1) and a convex polyhedron
//! (body 2).
//!
//! **Definition.** The facet acts as the wall of its triangle: the half-space behind its
//! surface (the plane of the triangle moved by the half-thickness `h` towards the
//! polyhedron), cut down to the triangle's column (the infinite prism over the triangle
//! along its normal). The *immersed part* is the polyhedron clipped by the four planes of
//! that region (the surface and the three edge planes; [`crate::clip`]). From it, as
//! `Cg2_Wall_Polyhedron_L6Geom` does for a wall (the depth-field potential of
//! [`crate::potential`] with the surface as the only plane, shared code
//! [`crate::potential::buoyancy`]): the immersed part, volume `V` (m^3), centroid `x̄`
//! at depth `s̄` (m) below the surface, stores the Winkler energy `E = k V s̄` and is
//! pushed by the force `k V` along the normal at `x̄`. The functor reports
//! - normal: the facet normal, oriented towards the polyhedron's centroid (a facet is
//!   two-sided);
//! - gap: `-2 s̄` (m);
//! - area: `V / (2 s̄)` (m^2);
//! - point: `x̄` projected on the surface;
//!
//! so that a linear law with `kn_per_area` gives the force `k V` and stores `k V s̄`. For
//! a face flat in the surface at depth `d` this is gap `-d` and area = the face's part
//! over the triangle, as before; at a vertex or an edge the gap is no longer the lowest
//! point nor the area the section (a cube's corner at depth `d`: force `k V`,
//! `V = sqrt(3)/2 d^3`, where the lowest point and the section, `3 sqrt(3)/2 d^2`, gave
//! `3 k V`).
//!
//! **Shared edges.** The column clip splits the immersed volume between the facets of a
//! mesh: over a flat mesh the columns tile the half-space, so the `V_i`, the energies
//! `V_i s̄_i` and the moments `V_i x̄_i` of the facets under a body add up to the wall's
//! `V`, `V s̄` and `V x̄`: the total force, moment and stored energy are the wall's, and
//! the total force is the gradient of the total energy. A single term is not the gradient
//! of its own energy: moving the body sideways moves volume through the edge planes,
//! which changes `V_i s̄_i` with no force in the term (the pressure `k s` on the body's
//! section by an edge plane); the neighbour's term has the same pressure with the
//! opposite sign, so the two cancel exactly (unit test
//! `a_cube_corner_on_a_shared_edge_splits_the_wall_term`, and the ledger of a cube dropped
//! on a shared edge in `tests/polyhedra_energy.rs`).
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
//! and vertices of the mesh are not rounded). At a **boundary edge** (no neighbour) the
//! edge-plane pressure has no partner: a body overhanging the edge gains or loses energy
//! `k ∫ s dA` (over its section by the edge plane) per unit of sideways motion that no
//! force accounts for, so the ledger is not closed while a body straddles a boundary
//! edge (the error is of the order of that energy, `k V s̄` of the part crossing the
//! edge). At an edge between **non-flat** facets the columns (perpendicular to their own
//! triangles) do not share the edge plane: behind a ridge (convex edge) they overlap and
//! a wedge is counted twice, behind a valley (concave edge) they leave a wedge uncounted
//! (a part behind both surfaces but in neither column), and the two edge-plane
//! pressures neither lie in one plane nor cancel; the sum is then the gradient of no
//! energy, with an error that grows with the angle between the facets and the depth (a
//! mesh of a curved surface with small angles is nearly flat). Each facet under a body
//! gives its own contact: with a constant stiffness a body resting on `N` facets sinks
//! by a factor `N` less than on a wall (use `kn_per_area`, or contact sparsification).
//! Within the interaction distance but apart, the normal stays the facet's, whatever the
//! direction of the closest points.
//!
//! `radius1` is infinite (the facet is flat: the core takes the branch from the mesh's
//! reference point), `radius2` the polyhedron's volume-equivalent radius.

use crate::clip::clip;
use crate::epsilon;
use crate::potential::buoyancy;
use dem_api::convex::{gjk_distance, Polyhedron};
use dem_api::nalgebra::{Point3, Vector3};
use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
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
    /// Both orientations (the mesh's pose and the polyhedron's).
    const READS: GeomReads = GeomReads::ORIENTATION_1.union(GeomReads::ORIENTATION_2);
    const DESCRIPTION: &'static str = "Mesh triangle and convex polyhedron: the facet as \
        the wall of its triangle (the half-space behind its surface, cut to the triangle's \
        column); the polyhedron's part in it (clipped by those planes; volume V, centroid \
        depth s) gives the Winkler (buoyancy) potential: gap = -2 s, area = V / 2 s, point \
        = its centroid projected on the surface (energy-consistent with kn_per_area, summed \
        over a flat mesh); normal = facet normal towards the polyhedron. radius2 is the \
        polyhedron's volume-equivalent radius.";
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
        let term = part
            .volume_centroid()
            .and_then(|(vol, c)| buoyancy(vol, &c.coords, &n, &top));
        if let Some((point, gap, area)) = term {
            if gap >= distance {
                return Ok(None);
            }
            return Ok(Some(raw(point.coords, gap, area)));
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
        triangle(
            [
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(2.0, 0.0, 0.0),
                Vec3::new(0.0, 2.0, 0.0),
            ],
            h,
        )
    }

    /// The facet `v` in the plane z = 0 (normal +z) with half-thickness `h`.
    fn triangle(v: [Vec3; 3], h: f64) -> FacetShape {
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
    fn a_sliver_in_the_column_has_its_exact_volume() {
        // Cube x in [-1 + 1e-7, 1e-7], y in [0, 1], bottom 0.1 deep: 1e-7 m of it is over
        // the triangle (x >= 0), however thin (no epsilon band): V = 1e-8 m^3, centroid
        // 0.05 deep (gap -0.1, area 1e-7). The cube's corners at x = 1e-7 and the clipped
        // points at x = 0 carry the round-off of unit coordinates, ~1e-16 m, i.e. 1e-9 of
        // the sliver's width: V to 1e-16 m^3 (the round-off of the unit cube's volume
        // cut to 0.1 m deep) and the centroid depth, a ratio of such sums, to 1e-11 m.
        let x = v(-0.5 + 1e-7, 0.5, 0.4);
        let g = geom(&facet(0.0), v(0., 0., 0.), id(), x, id(), 0.0).unwrap();
        let (vol, _, _) = winkler(&g);
        assert!((vol - 1e-8).abs() < 1e-16, "{g:?}");
        assert!((g.gap + 0.1).abs() < 1e-11, "{g:?}");
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

    /// Volume `V` (m^3), energy per unit stiffness `V s̄` (m^4) and moment `V x̄` (m^4)
    /// of a reported term: `V = -area gap`, `s̄ = -gap / 2`.
    fn winkler(g: &RawGeom) -> (f64, f64, Vector3<f64>) {
        let vol = -g.area * g.gap;
        (vol, -0.5 * vol * g.gap, vol * g.point.na())
    }

    #[test]
    fn a_cube_corner_on_a_shared_edge_splits_the_wall_term() {
        // A unit cube, a corner straight down at depth d on the diagonal x + y = 2 shared
        // by the facets below and above it, turned about z so that no cube edge lies in
        // the edge plane. Under a wall the corner's immersed tetrahedron (three
        // right-angled faces) has V = sqrt(3)/2 d^3 and its centroid d/4 deep, on the
        // vertical through the corner; the two column terms must add up to that force,
        // that energy and that moment.
        let lower = facet(0.0);
        let upper = triangle(
            [
                Vec3::new(2.0, 0.0, 0.0),
                Vec3::new(2.0, 2.0, 0.0),
                Vec3::new(0.0, 2.0, 0.0),
            ],
            0.0,
        );
        let rot = UnitQuaternion::rotation_between(&v(-1., -1., -1.), &v(0., 0., -1.)).unwrap();
        let rot = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.3) * rot;
        let d = 0.05;
        let tip = v(0.9, 1.1, -d);
        let x = tip - rot * v(-0.5, -0.5, -0.5);
        let (mut vol, mut e, mut m) = (0.0, 0.0, Vector3::zeros());
        for f in [&lower, &upper] {
            let g = geom(f, v(0., 0., 0.), id(), x, rot, 0.0).unwrap();
            assert_eq!(*g.normal.na(), v(0., 0., 1.));
            assert!(g.point.na().z.abs() < 1e-15, "{g:?}");
            let (dv, de, dm) = winkler(&g);
            assert!(dv > 0.05 * d.powi(3), "both facets carry a share: {g:?}");
            vol += dv;
            e += de;
            m += dm;
        }
        let v0 = 3f64.sqrt() / 2.0 * d.powi(3);
        assert!((vol / v0 - 1.0).abs() < 1e-9, "{vol} vs {v0}");
        assert!((e / (v0 * d / 4.0) - 1.0).abs() < 1e-9, "{e}");
        let mx = v0 * v(tip.x, tip.y, 0.0);
        assert!((m - mx).norm() < 1e-9 * mx.norm(), "{m:?} vs {mx:?}");
    }

    #[test]
    fn a_tilted_cube_gets_the_winkler_term_of_its_immersed_part() {
        // Unit cube turned by 30 degrees about y, its lowest edge d = 0.1 deep, well
        // inside the triangle: the immersed part is a prism of length 1 (along y) whose
        // section is a right triangle with legs d / cos 30 and d / sin 30 (hypotenuse on
        // the surface, area A = d^2 / (2 sin 30 cos 30)), centroid d/3 deep: the term is
        // the wall's Winkler term, gap = -2 d/3, area = V / (2 d/3) (not the lowest point
        // and the face on the surface).
        let q = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 30f64.to_radians());
        let d = 0.1;
        let low = (0..8)
            .map(|k| {
                let c = v(
                    if k & 1 == 0 { -0.5 } else { 0.5 },
                    if k & 2 == 0 { -0.5 } else { 0.5 },
                    if k & 4 == 0 { -0.5 } else { 0.5 },
                );
                (q * c).z
            })
            .fold(f64::INFINITY, f64::min);
        let x = v(0.5, 0.55, -low - d);
        let g = geom(&facet(0.0), v(0., 0., 0.), id(), x, q, 0.0).unwrap();
        let (s, c) = (30f64.to_radians().sin(), 30f64.to_radians().cos());
        let vol = d * d / (2.0 * s * c);
        assert!((g.gap + 2.0 * d / 3.0).abs() < 1e-12, "{g:?}");
        assert!((g.area - vol / (2.0 * d / 3.0)).abs() < 1e-12, "{g:?}");
    }
}
