//! `Cg2_Facet_Superquadric_L6Geom`: a triangle of a mesh (body 1) and a superquadric
//! (body 2).
//!
//! **Definition.** The facet acts as the wall of its column (the infinite prism over the
//! triangle along its normal), as `Cg2_Facet_Polyhedron_L6Geom` does: the plane of the
//! triangle, moved by the half-thickness towards the body, is a wall
//! ([`crate::wall::plane_contact`]: the deepest point is the support point against the
//! normal, the gap its signed distance from the plane), and the facet reports the contact
//! only when that deepest point lies over the triangle. The normal is the facet's,
//! oriented towards the body's centre (a facet is two-sided).
//!
//! **Shared edges.** Over a flat mesh the columns tile the plane, so exactly one facet
//! reports the deepest point: a point over a shared edge belongs to the facet owning the
//! edge, a point over a shared vertex to the facet owning the vertex (the mesh's
//! ownership bits, `FacetShape::owns`). A body sliding over a flat mesh feels one wall:
//! when its deepest point crosses an edge, one facet stops reporting and the next starts,
//! and the solver hands the contact's state over (the same contact, its tangential spring
//! kept), so the trajectory is that on a wall (`tests/superquadrics.rs`).
//!
//! **Limits.** Edges and vertices are not rounded: a body meeting a mesh's boundary edge
//! from the side is not pushed back by it, and a body whose deepest point leaves the mesh
//! (overhanging a boundary edge) loses the contact. Behind a convex edge between facets
//! at an angle, the deepest points against the two planes may both lie over their
//! triangles: both report (as on two walls); in a concave corner a body may press on
//! both faces. A meshed curved surface of small angles between facets behaves as a
//! smooth one.

use crate::pair::superquadric;
use crate::posed::Posed;
use crate::wall::plane_contact;
use dem_api::nalgebra::Vector3;
use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};

/// Parameters (none).
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {}

/// The facet-superquadric functor.
pub struct FacetSuperquadric;

impl Geometry for FacetSuperquadric {
    type Params = Params;
    const NAME: &'static str = "Cg2_Facet_Superquadric_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::FACET, ShapeKind::NAMED];
    const SHAPE_NAMES: [&'static str; 2] = ["Facet", "Superquadric"];
    const READS: GeomReads = GeomReads::ORIENTATION_1.union(GeomReads::ORIENTATION_2);
    const DESCRIPTION: &'static str = "Mesh triangle and superquadric: the triangle's plane \
        (moved by the half-thickness) as a wall, reported when the superquadric's deepest \
        point against it lies over the triangle (over a shared edge or vertex, for the \
        facet owning it); normal from the facet towards the superquadric's centre.";
    const PARAMS: &'static [Param] = &[];

    fn new(_: Params) -> Result<Self, String> {
        Ok(FacetSuperquadric)
    }

    fn geom(&self, facet: &BodyView<'_>, body: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        self.try_term(facet, body, distance, 0).ok().flatten()
    }

    fn try_term(
        &self,
        facet: &BodyView<'_>,
        body: &BodyView<'_>,
        distance: f64,
        _: u32,
    ) -> Result<Option<RawGeom>, String> {
        let f = facet
            .shape
            .facet()
            .ok_or("body 1 of Cg2_Facet_Superquadric_L6Geom is not a facet")?;
        let s = superquadric(body)?;
        let q = facet.ori.unit();
        let v = f.vertices.map(|x| facet.pos.na() + q * x.na());
        let plane: Vector3<f64> = q * f.normal.na();
        let at = body.pos.na();
        let side = plane.dot(&(at - v[0]));
        let normal = if side < 0.0 { -plane } else { plane };
        // Cheap rejection by the bounding sphere.
        if side.abs() - f.halfthick - s.bounding_radius >= distance {
            return Ok(None);
        }
        let on_plane = v[0] + normal * f.halfthick;
        let Some((geom, deepest)) =
            plane_contact(&Posed::of(s, body), at, &on_plane, &normal, distance)
        else {
            return Ok(None);
        };
        Ok(over_triangle(&deepest, &v, &plane, f).then_some(geom))
    }
}

/// Does `x` lie over the triangle `v` (of unit normal `plane`, right-handed), in its
/// column? On an edge or a vertex: only if the facet owns it.
fn over_triangle(
    x: &Vector3<f64>,
    v: &[Vector3<f64>; 3],
    plane: &Vector3<f64>,
    f: &dem_api::FacetShape,
) -> bool {
    // Distance-like coordinate of `x` inside edge `k` (vertex k to k + 1): positive on
    // the triangle's side.
    let inside = |k: usize| plane.cross(&(v[(k + 1) % 3] - v[k])).dot(&(x - v[k]));
    let s = [inside(0), inside(1), inside(2)];
    if s.iter().any(|&c| c < 0.0) {
        return false;
    }
    match s.iter().filter(|&&c| c == 0.0).count() {
        0 => true,
        // On edge k.
        1 => f.owns_edge(s.iter().position(|&c| c == 0.0).expect("one zero")),
        // At the vertex between the two edges: edges k and k + 1 meet at vertex k + 1.
        2 => {
            let free = s.iter().position(|&c| c != 0.0).expect("one nonzero");
            f.owns_vertex((free + 2) % 3)
        }
        // A degenerate triangle.
        _ => false,
    }
}
