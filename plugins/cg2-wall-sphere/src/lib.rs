//! `Cg2_Wall_Sphere_L6Geom`: an infinite plane (body 1) and a sphere (body 2).
//!
//! The wall's normal is its shape normal rotated by the wall orientation. With `sense` +1
//! or -1 the wall is one-sided: the contact normal is `sense * normal` and a sphere whose
//! centre went behind the plane is still pushed back (the wall acts as a half-space). With
//! `sense` 0 the normal is flipped towards the side where the sphere centre is.

use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Parameters (none yet).
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {}

/// The wall-sphere functor.
pub struct WallSphere;

impl Geometry for WallSphere {
    type Params = Params;
    const NAME: &'static str = "Cg2_Wall_Sphere_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::WALL, ShapeKind::SPHERE];
    /// The wall's orientation (its normal), not the sphere's.
    const READS: GeomReads = GeomReads::ORIENTATION_1;
    const DESCRIPTION: &'static str = "Infinite plane and sphere: normal from the wall towards \
        the sphere, gap = signed centre distance minus radius, contact point in the middle of \
        the overlap, area pi r^2.";
    const PARAMS: &'static [Param] = &[];

    fn new(_: Params) -> Result<Self, String> {
        Ok(WallSphere)
    }

    // Inlined into the SDK's batch loop, the fields of the bodies it does not read are
    // never loaded.
    #[inline(always)]
    fn geom(&self, wall: &BodyView<'_>, sphere: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        let w = wall.shape.wall()?;
        let r = sphere.shape.sphere()?.radius;
        let plane_normal = wall.ori.unit() * w.normal.na();
        let offset = sphere.pos.na() - wall.pos.na();
        let side = plane_normal.dot(&offset);
        let sense = match w.sense {
            0 if side < 0.0 => -1.0,
            0 => 1.0,
            s => s.signum() as f64,
        };
        let normal = plane_normal * sense;
        let gap = side * sense - r;
        if gap >= distance {
            return None;
        }
        let point = sphere.pos.na() - normal * (r + 0.5 * gap);
        Some(RawGeom {
            touching: 1,
            point: point.into(),
            normal: normal.into(),
            gap,
            radius1: f64::INFINITY,
            radius2: r,
            area: PI * r * r,
            weight: 1.0,
        })
    }
}

dem_api::export_plugin! { geometry: [WallSphere], laws: [] }

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::{Quat, ShapeView, SphereShape, Vec3, WallShape};

    fn check(sense: i32, z: f64) -> Option<RawGeom> {
        let w = WallShape {
            normal: Vec3::new(0.0, 0.0, 1.0),
            sense,
        };
        let s = SphereShape { radius: 0.5 };
        let wall = BodyView {
            pos: Vec3::ZERO,
            ori: Quat::IDENTITY,
            vel: Vec3::ZERO,
            angvel: Vec3::ZERO,
            shape: ShapeView::of_wall(&w),
        };
        let sph = BodyView {
            pos: Vec3::new(1.0, 2.0, z),
            shape: ShapeView::of_sphere(&s),
            ..wall
        };
        WallSphere.geom(&wall, &sph, 0.0)
    }

    #[test]
    fn one_and_two_sided() {
        let g = check(1, 0.4).unwrap();
        assert!((g.gap + 0.1).abs() < 1e-15 && g.normal.z == 1.0);
        assert!((g.point.z + 0.05).abs() < 1e-15);
        assert!(check(1, 0.6).is_none());
        // Behind a one-sided wall: deep overlap, pushed back out.
        assert!((check(1, -0.2).unwrap().gap + 0.7).abs() < 1e-15);
        // Two-sided: the normal follows the sphere.
        let g = check(0, -0.4).unwrap();
        assert!(g.normal.z == -1.0 && (g.gap + 0.1).abs() < 1e-15);
        assert!(check(-1, 0.4).unwrap().gap < -0.8);
    }
}
