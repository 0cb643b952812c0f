//! `Cg2_Sphere_Sphere_L6Geom`: contact geometry of two spheres.
//!
//! The normal runs from centre 1 to centre 2, the gap is the centre distance minus the sum
//! of radii, and the contact point lies in the middle of the overlap. Coincident centres
//! have no defined normal: the functor then uses the global `+x` axis and logs a warning
//! rather than produce NaN.

use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Parameters (none yet).
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {}

/// The sphere-sphere functor.
pub struct SphereSphere;

impl Geometry for SphereSphere {
    type Params = Params;
    const NAME: &'static str = "Cg2_Sphere_Sphere_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::SPHERE, ShapeKind::SPHERE];
    /// Centres and radii only.
    const READS: GeomReads = GeomReads::NONE;
    const DESCRIPTION: &'static str = "Two spheres: normal along the line of centres, contact \
        point in the middle of the overlap, area pi r_min^2.";
    const PARAMS: &'static [Param] = &[];

    fn new(_: Params) -> Result<Self, String> {
        Ok(SphereSphere)
    }

    // Inlined into the SDK's batch loop, the fields of the bodies it does not read are
    // never loaded.
    #[inline(always)]
    fn geom(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        let r1 = b1.shape.sphere()?.radius;
        let r2 = b2.shape.sphere()?.radius;
        let d = b2.pos.na() - b1.pos.na();
        let dist = d.norm();
        let gap = dist - (r1 + r2);
        if gap >= distance {
            return None;
        }
        let normal = if dist > 0.0 { d / dist } else { coincident() };
        let point = b1.pos.na() + normal * (r1 + 0.5 * gap);
        Some(RawGeom {
            touching: 1,
            point: point.into(),
            normal: normal.into(),
            gap,
            radius1: r1,
            radius2: r2,
            area: PI * r1.min(r2).powi(2),
            weight: 1.0,
        })
    }
}

/// The normal of coincident centres (+x), with a warning: out of the hot loop.
#[cold]
#[inline(never)]
fn coincident() -> dem_api::nalgebra::Vector3<f64> {
    dem_api::tracing::warn!("coincident sphere centres: normal set to +x");
    dem_api::nalgebra::Vector3::x()
}

dem_api::export_plugin! { geometry: [SphereSphere], laws: [] }

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::{Quat, ShapeView, SphereShape, Vec3};

    fn body(pos: Vec3, s: &SphereShape) -> BodyView<'_> {
        BodyView {
            pos,
            ori: Quat::IDENTITY,
            vel: Vec3::ZERO,
            angvel: Vec3::ZERO,
            shape: ShapeView::of_sphere(s),
        }
    }

    #[test]
    fn overlap_gap_point_and_normal() {
        let (s1, s2) = (SphereShape { radius: 1.0 }, SphereShape { radius: 0.5 });
        let g = SphereSphere
            .geom(
                &body(Vec3::ZERO, &s1),
                &body(Vec3::new(0.0, 1.4, 0.0), &s2),
                0.0,
            )
            .unwrap();
        assert!((g.gap + 0.1).abs() < 1e-15);
        assert_eq!(g.normal, Vec3::new(0.0, 1.0, 0.0));
        assert!((g.point.y - 0.95).abs() < 1e-15);
        assert!(SphereSphere
            .geom(
                &body(Vec3::ZERO, &s1),
                &body(Vec3::new(0.0, 1.6, 0.0), &s2),
                0.0
            )
            .is_none());
        // Within the interaction distance, a gap is reported too.
        let g = SphereSphere
            .geom(
                &body(Vec3::ZERO, &s1),
                &body(Vec3::new(0.0, 1.6, 0.0), &s2),
                0.2,
            )
            .unwrap();
        assert!((g.gap - 0.1).abs() < 1e-15);
    }

    #[test]
    fn coincident_centres_give_a_finite_normal() {
        let s = SphereShape { radius: 1.0 };
        let g = SphereSphere
            .geom(&body(Vec3::ZERO, &s), &body(Vec3::ZERO, &s), 0.0)
            .unwrap();
        assert_eq!(g.normal, Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(g.gap, -2.0);
    }
}
