//! `Cg2_Sphere_Superquadric_L6Geom`: a sphere (body 1) and a superquadric (body 2), by
//! the common normal of the ball and the superquadric (see [`crate::common_normal`]):
//! the overlap is the sphere's radius less the distance of its centre from the surface
//! (plus the depth of a centre inside).

use crate::common_normal::{common_normal, keep, kept, unkept, Ball, STATE_LEN};
use crate::pair::superquadric;
use crate::posed::Posed;
use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};

/// Parameters (none).
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {}

/// The sphere-superquadric functor.
pub struct SphereSuperquadric;

impl Geometry for SphereSuperquadric {
    type Params = Params;
    const NAME: &'static str = "Cg2_Sphere_Superquadric_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::SPHERE, ShapeKind::NAMED];
    const SHAPE_NAMES: [&'static str; 2] = ["Sphere", "Superquadric"];
    const READS: GeomReads = GeomReads::ORIENTATION_2;
    const DESCRIPTION: &'static str = "Sphere and superquadric: the common normal of the \
        ball and the superquadric (overlap = radius minus the centre's distance from the \
        surface), followed from step to step; radius2 the geometric mean of the \
        superquadric's principal radii of curvature at the contact, at most its bounding \
        radius.";
    const PARAMS: &'static [Param] = &[];
    const STATE_LEN: usize = STATE_LEN;

    fn new(_: Params) -> Result<Self, String> {
        Ok(SphereSuperquadric)
    }

    fn geom(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        unkept(self, b1, b2, distance).ok().flatten()
    }

    fn try_term(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        _: u32,
    ) -> Result<Option<RawGeom>, String> {
        unkept(self, b1, b2, distance)
    }

    fn try_term_kept(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        _: u32,
        _: &mut [f64],
        state: &mut [f64],
    ) -> Result<Option<RawGeom>, String> {
        let r = b1.shape.radius();
        let s = superquadric(b2)?;
        let (p1, p2) = (b1.pos.na(), b2.pos.na());
        if (p2 - p1).norm() - r - s.bounding_radius >= distance {
            return Ok(None);
        }
        let posed = Posed::of(s, b2);
        let Some(c) = common_normal(&Ball(r), p1, &posed, p2, kept(state), distance)? else {
            return Ok(None);
        };
        keep(state, &c.normal);
        Ok(c.raw(distance).map(|g| RawGeom { radius1: r, ..g }))
    }
}
