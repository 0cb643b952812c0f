//! `Cg2_Superquadric_Superquadric_L6Geom`: two superquadrics, by their common normal
//! (see [`crate::common_normal`]), followed from step to step in the contact's state.

use crate::common_normal::{common_normal, keep, kept, unkept, STATE_LEN};
use crate::posed::Posed;
use crate::shape::Superquadric;
use dem_api::sdk::{plugin_shape, Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};

/// Parameters (none).
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {}

/// The superquadric-superquadric functor.
pub struct Pair;

/// The superquadric of a body this plugin's functors were handed.
pub fn superquadric<'a>(b: &BodyView<'a>) -> Result<&'a Superquadric, String> {
    // SAFETY: the functors declare "Superquadric" for these bodies and this plugin
    // exports `Superquadric` under that name.
    unsafe { plugin_shape::<Superquadric>(&b.shape) }
        .ok_or_else(|| format!("a body of kind {:?} is not a superquadric", b.shape.kind()))
}

impl Geometry for Pair {
    type Params = Params;
    const NAME: &'static str = "Cg2_Superquadric_Superquadric_L6Geom";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::NAMED, ShapeKind::NAMED];
    const SHAPE_NAMES: [&'static str; 2] = ["Superquadric", "Superquadric"];
    const READS: GeomReads = GeomReads::ORIENTATION_1.union(GeomReads::ORIENTATION_2);
    const DESCRIPTION: &'static str = "Two superquadrics: the common normal minimising the \
        support function of their Minkowski difference (overlap = penetration depth, gap = \
        distance when apart), found by Newton's method on the sphere of directions and \
        followed from step to step; point halfway between the two support points; radii \
        the geometric means of the principal radii of curvature there, each at most its \
        body's bounding radius.";
    const PARAMS: &'static [Param] = &[];
    const STATE_LEN: usize = STATE_LEN;

    fn new(_: Params) -> Result<Self, String> {
        Ok(Pair)
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
        let (s1, s2) = (superquadric(b1)?, superquadric(b2)?);
        let (p1, p2) = (b1.pos.na(), b2.pos.na());
        // Bounding spheres apart by more than `distance`: no contact, no solve.
        if (p2 - p1).norm() - s1.bounding_radius - s2.bounding_radius >= distance {
            return Ok(None);
        }
        let (a, b) = (Posed::of(s1, b1), Posed::of(s2, b2));
        let Some(c) = common_normal(&a, p1, &b, p2, kept(state), distance)? else {
            return Ok(None);
        };
        keep(state, &c.normal);
        Ok(c.raw(distance))
    }
}
