//! `Cg2_Facet_Sphere_L6Geom`: a triangle of a mesh (body 1) and a sphere (body 2).
//!
//! The contact point and normal come from the feature of the triangle closest to the
//! sphere centre: the face, one of three edges or one of three vertices (edges and
//! vertices are thus rounded: the normal points from the closest point to the centre).
//! With a half-thickness `h` the facet is the set of points within `h` of the triangle, and
//! the gap is `|centre - closest| - r - h`. A facet is two-sided.
//!
//! Shared edges and vertices: a sphere near an edge or vertex shared by several facets of
//! a mesh must feel one smooth surface, so only a contact at a local minimum of the
//! distance from the centre to the mesh is reported, and only by the feature's owner:
//! - face: always reported (a concave crease gives one contact per face, as it should);
//! - edge `k`: reported by its owner only, and only if the centre does not project into the
//!   neighbouring facet (`(centre - closest) . inward_neighbour <= 0`): otherwise the
//!   neighbour's face is closer and reports the contact itself;
//! - vertex `k`: reported by its owner only, and only if no mesh edge leaving the vertex
//!   points towards the centre (`(centre - vertex) . d <= 0` for every fan direction `d`).
//!
//! With `convergent: true` the pair is instead split into the terms of IPC's convergent
//! formulation, for barrier laws (see `convergent.rs`).
//!
//! The equivalent radius of the facet is infinite (laws see a flat partner), so the core's
//! L6Geom update takes the facet's branch vector from the mesh's reference point to the
//! contact point: the velocity of a rotating mesh at the contact is exact.
//!
//! Floors, bottom first: `closest` and `placed`; `convergent`; this file on top.

mod closest;
mod convergent;
mod placed;

use closest::{closest_point, Feature};
use placed::Placed;

use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};

/// Parameters (the half-thickness belongs to the mesh).
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Report the terms of IPC's convergent formulation (seven per pair: face, owned
    /// interior edges with weight -1, owned interior vertices) instead of the closest
    /// feature.
    pub convergent: bool,
}

/// The facet-sphere functor.
pub struct FacetSphere {
    convergent: bool,
}

impl Geometry for FacetSphere {
    type Params = Params;
    const NAME: &'static str = "Cg2_Facet_Sphere_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::FACET, ShapeKind::SPHERE];
    /// The facet's orientation (its mesh's pose), not the sphere's.
    const READS: GeomReads = GeomReads::ORIENTATION_1;
    const DESCRIPTION: &'static str = "Mesh triangle and sphere: contact at the closest \
        feature (face, rounded edge or rounded vertex), normal from it to the sphere centre, \
        gap = distance - radius - half-thickness; at shared edges and vertices only the \
        owning facet reports, and only at a local minimum of the distance to the mesh.";
    const PARAMS: &'static [Param] = &[Param {
        name: "convergent",
        unit: "flag",
        doc: "IPC's convergent formulation for barrier laws: per pair, the face term \
              (distance to the closed triangle), each owned interior edge (weight -1) and \
              each owned interior vertex (weight +1), each a contact of its own; over flat \
              or convex parts of the mesh they cancel to one surface",
    }];

    fn new(p: Params) -> Result<Self, String> {
        Ok(FacetSphere {
            convergent: p.convergent,
        })
    }

    fn features(&self) -> u32 {
        if self.convergent {
            convergent::TERMS
        } else {
            1
        }
    }

    fn term(
        &self,
        facet: &BodyView<'_>,
        sphere: &BodyView<'_>,
        distance: f64,
        feature: u32,
    ) -> Option<RawGeom> {
        if self.convergent {
            convergent::term(facet, sphere, distance, feature)
        } else if feature == 0 {
            self.geom(facet, sphere, distance)
        } else {
            None
        }
    }

    fn geom(&self, facet: &BodyView<'_>, sphere: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        let x = Placed::new(facet, sphere)?;
        let (f, p, q) = (x.facet, x.p, x.q);
        let (closest, feature) = closest_point(&p, &x.v);
        let (normal, gap) = match feature {
            Feature::Face => x.plane(),
            Feature::Edge(k) => {
                let inward = q * f.neighbour_inward[k].na();
                if !f.owns_edge(k) || (p - closest).dot(&inward) > 0.0 {
                    return None;
                }
                x.rounded(&closest)
            }
            Feature::Vertex(k) => {
                let towards = |d: &dem_api::Vec3| (p - x.v[k]).dot(&(q * d.na())) > 0.0;
                if !f.owns_vertex(k) || f.fan(k).iter().any(towards) {
                    return None;
                }
                x.rounded(&closest)
            }
        };
        x.contact(normal, gap, 1.0, distance)
    }
}

dem_api::export_plugin! { geometry: [FacetSphere], laws: [] }

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::nalgebra::Vector3;
    use dem_api::{FacetShape, Quat, ShapeView, SphereShape, Vec3};

    /// The triangle (0,0,0), (1,0,0), (0,1,0) with the given neighbour data and ownership.
    fn facet(inward: [Vec3; 3], owns: u32, fans: [&[Vec3]; 3]) -> FacetShape {
        let v = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        // SAFETY: the fans are borrowed for the whole test.
        unsafe { FacetShape::new(v, Vec3::new(0.0, 0.0, 1.0), 0.0, inward, owns, fans) }
    }

    fn geom(f: &FacetShape, centre: Vec3) -> Option<RawGeom> {
        let s = SphereShape { radius: 0.5 };
        let b1 = BodyView {
            pos: Vec3::ZERO,
            ori: Quat::IDENTITY,
            vel: Vec3::ZERO,
            angvel: Vec3::ZERO,
            shape: ShapeView::of_facet(f),
        };
        let b2 = BodyView {
            pos: centre,
            shape: ShapeView::of_sphere(&s),
            ..b1
        };
        FacetSphere { convergent: false }.geom(&b1, &b2, 0.0)
    }

    #[test]
    fn rounded_edge_and_vertex_point_to_the_centre() {
        let f = facet([Vec3::ZERO; 3], 0b111_111, [&[], &[], &[]]);
        // Beside edge 0 (the x axis), 45 degrees below the plane: normal from (0.5,0,0).
        let g = geom(&f, Vec3::new(0.5, -0.3, -0.3)).unwrap();
        let h = 0.5f64.sqrt();
        assert!((g.normal.na() - Vector3::new(0.0, -h, -h)).norm() < 1e-15);
        assert!((g.gap - (0.18f64.sqrt() - 0.5)).abs() < 1e-15);
        // Beyond vertex 1 (no fan given: a lone vertex).
        let g = geom(&f, Vec3::new(1.24, -0.32, 0.0)).unwrap();
        assert!((g.normal.na() - Vector3::new(0.6, -0.8, 0.0)).norm() < 1e-15);
        assert!((g.gap + 0.1).abs() < 1e-15);
        // Face: the plane distance, on the side of the centre.
        let g = geom(&f, Vec3::new(0.2, 0.2, -0.4)).unwrap();
        assert!(g.normal.z == -1.0 && (g.gap + 0.1).abs() < 1e-15);
    }

    #[test]
    fn half_thickness_thickens_face_edge_and_vertex() {
        let mut f = facet([Vec3::ZERO; 3], 0b111_111, [&[], &[], &[]]);
        f.halfthick = 0.05;
        for (centre, thin_gap) in [
            (Vec3::new(0.2, 0.2, 0.52), 0.02),
            (Vec3::new(0.5, -0.3, 0.4), 0.0),
            (Vec3::new(-0.3, -0.4, 0.0), 0.0),
        ] {
            let g = geom(&f, centre).unwrap();
            assert!(
                (g.gap - (thin_gap - 0.05)).abs() < 1e-15,
                "{centre:?}: {}",
                g.gap
            );
        }
    }

    #[test]
    fn shared_features_are_reported_once() {
        // A neighbour across edge 0 lying in the plane (a flat floor continues along -y).
        let flat = [Vec3::new(0.0, -1.0, 0.0), Vec3::ZERO, Vec3::ZERO];
        let above_edge = Vec3::new(0.5, -0.1, 0.4);
        // The centre projects into the neighbour: its face reports, this facet does not.
        assert!(geom(&facet(flat, 0b111_111, [&[], &[], &[]]), above_edge).is_none());
        // Edge 0 folded down (a convex ridge): the edge region, reported by the owner only.
        let ridge = [Vec3::new(0.0, -0.6, -0.8), Vec3::ZERO, Vec3::ZERO];
        assert!(geom(&facet(ridge, 0b111_111, [&[], &[], &[]]), above_edge).is_some());
        assert!(geom(&facet(ridge, 0b111_110, [&[], &[], &[]]), above_edge).is_none());
        // Vertex 0 with a mesh edge leaving it towards the centre: not a closest vertex.
        let fan = [Vec3::new(-0.6, -0.8, 0.0)];
        let corner = Vec3::new(-0.2, -0.3, 0.3);
        assert!(geom(&facet([Vec3::ZERO; 3], 0b111_111, [&fan, &[], &[]]), corner).is_none());
        let down = [Vec3::new(-0.6, 0.0, -0.8)];
        assert!(geom(
            &facet([Vec3::ZERO; 3], 0b111_111, [&down, &[], &[]]),
            corner
        )
        .is_some());
        assert!(geom(
            &facet([Vec3::ZERO; 3], 0b110_111, [&down, &[], &[]]),
            corner
        )
        .is_none());
    }
}
