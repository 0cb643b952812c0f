//! `Cg2_Wall_Superquadric_L6Geom`: an infinite plane (body 1) and a superquadric (body
//! 2), in closed form: the superquadric's support point against the wall's normal is its
//! deepest point; the gap is that point's signed distance from the plane.

use crate::common_normal::{curvature_radius, Convex};
use crate::pair::superquadric;
use crate::posed::Posed;
use dem_api::nalgebra::Vector3;
use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};

/// Parameters (none).
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {}

/// The wall-superquadric functor.
pub struct WallSuperquadric;

impl Geometry for WallSuperquadric {
    type Params = Params;
    const NAME: &'static str = "Cg2_Wall_Superquadric_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::WALL, ShapeKind::NAMED];
    const SHAPE_NAMES: [&'static str; 2] = ["Wall", "Superquadric"];
    const READS: GeomReads = GeomReads::ORIENTATION_1.union(GeomReads::ORIENTATION_2);
    const DESCRIPTION: &'static str = "Infinite plane and superquadric: normal from the wall \
        towards the superquadric (a two-sided wall turns it to the centre's side); gap = \
        signed distance of the superquadric's deepest point (its support point against the \
        normal); point halfway between it and the plane; radius2 the mean radius of \
        curvature there.";
    const PARAMS: &'static [Param] = &[];

    fn new(_: Params) -> Result<Self, String> {
        Ok(WallSuperquadric)
    }

    fn geom(&self, wall: &BodyView<'_>, body: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        self.try_term(wall, body, distance, 0).ok().flatten()
    }

    fn try_term(
        &self,
        wall: &BodyView<'_>,
        body: &BodyView<'_>,
        distance: f64,
        _: u32,
    ) -> Result<Option<RawGeom>, String> {
        let w = wall
            .shape
            .wall()
            .ok_or("body 1 of Cg2_Wall_Superquadric_L6Geom is not a wall")?;
        let s = superquadric(body)?;
        let plane: Vector3<f64> = wall.ori.unit() * w.normal.na();
        let centre = body.pos.na() - wall.pos.na();
        let side = plane.dot(&centre);
        let sense = match w.sense {
            0 if side < 0.0 => -1.0,
            0 => 1.0,
            s => s.signum() as f64,
        };
        let normal = plane * sense;
        // Cheap rejection by the bounding sphere.
        if side * sense - s.bounding_radius >= distance {
            return Ok(None);
        }
        let posed = Posed::of(s, body);
        let deepest = posed.support(&-normal);
        let gap = normal.dot(&(centre + deepest));
        if gap >= distance {
            return Ok(None);
        }
        let point = body.pos.na() + deepest - normal * (0.5 * gap);
        Ok(Some(RawGeom {
            touching: 1,
            point: point.into(),
            normal: normal.into(),
            gap,
            radius1: f64::INFINITY,
            radius2: curvature_radius(&posed, &-normal),
            area: 0.0,
            weight: 1.0,
        }))
    }
}
