//! The facet-sphere pair as the terms of IPC's convergent formulation (Li et al. 2023;
//! reference 004), selected by `Cg2_Facet_Sphere_L6Geom(convergent: true)`.
//!
//! The barrier potential of a point `x` (the sphere centre) against a triangle mesh is
//! approximated by
//!
//! ```text
//! Psi(x) = sum over faces t  b(d(x, t))
//!        - sum over interior edges e  b(d(x, e))
//!        + sum over interior vertices v  b(d(x, v))
//! ```
//!
//! where `d` is the distance to the closed triangle, segment or point, and an edge or
//! vertex is interior when every edge at it is shared by two facets. Where the mesh is
//! locally convex (flat included) the terms cancel to the single largest one, so a sphere
//! over a shared edge or vertex feels one surface; in a concave crease the two faces add
//! and the crease's edge term is subtracted.
//!
//! Each pair (facet, sphere) has seven contact terms (`GeomInput::feature`):
//! - 0: the face, distance to the closed triangle, weight `+1`;
//! - 1, 2, 3: edge `feature - 1`, when this facet owns it and it is interior, weight `-1`;
//! - 4, 5, 6: vertex `feature - 4`, when this facet owns it and it is interior, weight `+1`.
//!
//! The solver multiplies each term's force and energies by its weight. The gap of each
//! term is its distance less the sphere radius and the half-thickness; the normal points
//! from the closest point of the primitive to the centre. With a law that is a function of
//! the gap alone (the IPC barrier), the forces are the gradient of `Psi`.

use crate::closest::{closest_point, Feature};
use crate::placed::Placed;
use dem_api::nalgebra::Vector3;
use dem_api::{BodyView, RawGeom};

/// Contact terms per pair.
pub const TERMS: u32 = 7;

/// Closest point of segment `a`-`b` to `p`.
fn closest_on_segment(p: &Vector3<f64>, a: &Vector3<f64>, b: &Vector3<f64>) -> Vector3<f64> {
    let e = b - a;
    let t = (e.dot(&(p - a)) / e.norm_squared()).clamp(0.0, 1.0);
    a + e * t
}

/// Term `feature` of the pair (`facet`, `sphere`), or `None` when this facet has no such
/// term or its gap is not below `distance` (m).
pub fn term(
    facet: &BodyView<'_>,
    sphere: &BodyView<'_>,
    distance: f64,
    feature: u32,
) -> Option<RawGeom> {
    let x = Placed::new(facet, sphere)?;
    let (f, p, v) = (x.facet, x.p, &x.v);
    let (normal, gap, weight) = match feature {
        0 => match closest_point(&p, v) {
            (_, Feature::Face) => {
                let (n, g) = x.plane();
                (n, g, 1.0)
            }
            (closest, _) => {
                let (n, g) = x.rounded(&closest);
                (n, g, 1.0)
            }
        },
        1..=3 => {
            let k = feature as usize - 1;
            if !f.owns_edge(k) || !f.edge_is_interior(k) {
                return None;
            }
            let (n, g) = x.rounded(&closest_on_segment(&p, &v[k], &v[(k + 1) % 3]));
            (n, g, -1.0)
        }
        4..=6 => {
            let k = feature as usize - 4;
            if !f.owns_vertex(k) || !f.vertex_is_interior(k) {
                return None;
            }
            let (n, g) = x.rounded(&v[k]);
            (n, g, 1.0)
        }
        _ => return None,
    };
    x.contact(normal, gap, weight, distance)
}
