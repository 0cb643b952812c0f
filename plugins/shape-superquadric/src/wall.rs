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
        curvature there, at most the bounding radius.";
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
        let (at, on_plane) = (body.pos.na(), wall.pos.na());
        Ok(plane_contact(&Posed::of(s, body), at, on_plane, &normal, distance).map(|(g, _)| g))
    }
}

/// The contact of the posed superquadric centred at `at` with the plane through
/// `on_plane` of unit `normal` (from the plane towards the body), global frame, m: the
/// support point against the normal is the deepest point, the gap its signed distance
/// from the plane, the contact point halfway between it and the plane. `None` when the
/// gap is not below `distance`; with it, the deepest point, global frame, m.
pub fn plane_contact(
    posed: &Posed<'_>,
    at: &Vector3<f64>,
    on_plane: &Vector3<f64>,
    normal: &Vector3<f64>,
    distance: f64,
) -> Option<(RawGeom, Vector3<f64>)> {
    let s = posed.support(&-normal);
    let gap = normal.dot(&((at - on_plane) + s));
    if gap >= distance {
        return None;
    }
    let deepest = at + s;
    let point = deepest - normal * (0.5 * gap);
    let geom = RawGeom {
        touching: 1,
        point: point.into(),
        normal: (*normal).into(),
        gap,
        radius1: f64::INFINITY,
        radius2: curvature_radius(posed, &-normal),
        area: 0.0,
        weight: 1.0,
    };
    Some((geom, deepest))
}
