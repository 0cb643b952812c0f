//! A facet and a sphere placed in the global frame, and the pieces both reporting rules
//! (closest feature, convergent terms) build their contacts from.

use dem_api::nalgebra::{UnitQuaternion, Vector3};
use dem_api::{BodyView, FacetShape, RawGeom};
use std::f64::consts::PI;

/// The pair at the current time, global frame.
pub struct Placed<'a> {
    /// The facet record.
    pub facet: &'a FacetShape,
    /// The facet's orientation (body to global).
    pub q: UnitQuaternion<f64>,
    /// Vertices, m.
    pub v: [Vector3<f64>; 3],
    /// Unit face normal.
    pub face_normal: Vector3<f64>,
    /// Sphere centre, m.
    pub p: Vector3<f64>,
    /// Sphere radius, m.
    pub r: f64,
    /// Sphere radius plus the facet's half-thickness, m.
    pub reach: f64,
}

impl<'a> Placed<'a> {
    /// The pair, or `None` when the bodies are not a facet and a sphere.
    pub fn new(facet: &BodyView<'a>, sphere: &BodyView<'_>) -> Option<Placed<'a>> {
        let f = facet.shape.facet()?;
        let r = sphere.shape.sphere()?.radius;
        let q = facet.ori.unit();
        let origin = facet.pos.na();
        Some(Placed {
            facet: f,
            q,
            v: f.vertices.map(|x| origin + q * x.na()),
            face_normal: q * f.normal.na(),
            p: *sphere.pos.na(),
            r,
            reach: r + f.halfthick,
        })
    }

    /// Normal and gap against the face's plane, as an infinite two-sided wall gives them.
    pub fn plane(&self) -> (Vector3<f64>, f64) {
        let side = self.face_normal.dot(&(self.p - self.v[0]));
        let sense = if side < 0.0 { -1.0 } else { 1.0 };
        (self.face_normal * sense, side * sense - self.reach)
    }

    /// Normal and gap for a contact at a rounded edge or vertex point `closest`. A centre
    /// exactly on the feature takes the face normal.
    pub fn rounded(&self, closest: &Vector3<f64>) -> (Vector3<f64>, f64) {
        let d = self.p - closest;
        let dist = d.norm();
        if dist > 0.0 {
            (d / dist, dist - self.reach)
        } else {
            (self.face_normal, -self.reach)
        }
    }

    /// The contact record for `normal`, `gap` and `weight`, or `None` when the gap is not
    /// below `distance` (m). The point is the middle of the overlap.
    pub fn contact(
        &self,
        normal: Vector3<f64>,
        gap: f64,
        weight: f64,
        distance: f64,
    ) -> Option<RawGeom> {
        if gap >= distance {
            return None;
        }
        Some(RawGeom {
            touching: 1,
            point: (self.p - normal * (self.r + 0.5 * gap)).into(),
            normal: normal.into(),
            gap,
            radius1: f64::INFINITY,
            radius2: self.r,
            area: PI * self.r * self.r,
            weight,
        })
    }
}
