//! Test fixture: `Cg2_Test_Kept`, the sphere-sphere geometry (normal along the line of
//! centres, point in the middle of the overlap) with a contact state of two slots: the
//! number of calls the contact has had, and the gap of the last one. It reports the count
//! as the contact's `area` (m^2, a counter here), so that a test can see that the state
//! starts at zero for each contact, travels with it and survives a checkpoint. Its last
//! slot is checked too: it must hold the gap of the previous call (or be zero on the
//! first), else the functor fails, naming what it found.
//!
//! On demand it misreports, for the tests of what the solver refuses: `fault: "radius"`
//! reports a radius of zero for body 2, `"nan_radius"` a NaN radius, `"normal"` a normal
//! of length 2.

use dem_api::sdk::{Geometry, Param};
use dem_api::{BodyView, GeomReads, RawGeom, ShapeKind};
use serde::{Deserialize, Serialize};

/// How to misreport (see the module docs); by default not at all.
#[derive(Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    pub fault: String,
}

/// The counting functor.
pub struct Kept(Params);

impl Kept {
    /// The sphere-sphere geometry of the pair, wrong as the parameters ask.
    fn plain(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        let (r1, r2) = (b1.shape.sphere()?.radius, b2.shape.sphere()?.radius);
        let d = b2.pos.na() - b1.pos.na();
        let dist = d.norm();
        let gap = dist - (r1 + r2);
        if gap >= distance || dist == 0.0 {
            return None;
        }
        let normal = d / dist;
        let (radius2, stretch) = match self.0.fault.as_str() {
            "radius" => (0.0, 1.0),
            "nan_radius" => (f64::NAN, 1.0),
            "normal" => (r2, 2.0),
            _ => (r2, 1.0),
        };
        Some(RawGeom {
            touching: 1,
            point: (b1.pos.na() + normal * (r1 + 0.5 * gap)).into(),
            normal: (normal * stretch).into(),
            gap,
            radius1: r1,
            radius2,
            area: 0.0,
            weight: 1.0,
        })
    }
}

impl Geometry for Kept {
    type Params = Params;
    const NAME: &'static str = "Cg2_Test_Kept";
    const SHAPES: [ShapeKind; 2] = [ShapeKind::SPHERE, ShapeKind::SPHERE];
    const DESCRIPTION: &'static str = "Test fixture: sphere-sphere geometry whose area is the \
        number of calls of the contact (a contact state).";
    const PARAMS: &'static [Param] = &[Param {
        name: "fault",
        unit: "-",
        doc: "\"radius\", \"nan_radius\" or \"normal\": misreport so; else report right",
    }];
    const STATE_LEN: usize = 2;
    const READS: GeomReads = GeomReads::NONE;

    fn new(p: Params) -> Result<Self, String> {
        Ok(Kept(p))
    }

    fn geom(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom> {
        self.plain(b1, b2, distance)
            .map(|g| RawGeom { area: 1.0, ..g })
    }

    fn try_term_kept(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        _feature: u32,
        _cache: &mut [f64],
        state: &mut [f64],
    ) -> Result<Option<RawGeom>, String> {
        let Some(g) = self.plain(b1, b2, distance) else {
            return Ok(None);
        };
        let (count, last_gap) = (state[0], state[1]);
        if (count == 0.0) != (last_gap == 0.0) {
            return Err(format!(
                "state out of step: count {count}, last gap {last_gap}"
            ));
        }
        state[0] = count + 1.0;
        state[1] = g.gap;
        Ok(Some(RawGeom {
            area: state[0],
            ..g
        }))
    }
}

dem_api::export_plugin! { geometry: [Kept], laws: [] }
