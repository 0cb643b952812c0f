//! `Law2_L6Geom_DMT`: Hertz less the constant pull `2 pi w R*` while the bodies overlap;
//! see the crate documentation.

use crate::common::{finish, Common, Constants, Normal, Params, PARAMS, STATE_LEN, STATE_NAMES};
use dem_api::sdk::parts::Hertz;
use dem_api::sdk::{Law, Param};
use dem_api::{LawInput, LawOutput, LawPair};
use std::f64::consts::PI;

/// The DMT law.
pub struct Dmt {
    common: Common,
}

impl Law for Dmt {
    type Params = Params;
    type Constants = Constants;
    const NAME: &'static str = "Law2_L6Geom_DMT";
    const DESCRIPTION: &'static str = "Derjaguin-Muller-Toporov adhesive elastic contact: \
        Hertz less 2 pi w R* while overlapping (pull-off 2 pi w R* at zero overlap), \
        Mindlin tangential spring with the Coulomb limit mu (F_n + 2 F_po), optional \
        viscous damping, rolling and twisting resistance; energy booked for the ledger.";
    const PARAMS: &'static [Param] = PARAMS;
    const STATE_LEN: usize = STATE_LEN;
    const STATE_NAMES: &'static [&'static str] = STATE_NAMES;

    fn new(p: Params) -> Result<Self, String> {
        if p.reach.is_some() {
            return Err("reach: DMT acts only while the bodies overlap; remove it".into());
        }
        Ok(Dmt {
            common: Common::new(p)?,
        })
    }

    fn constants(&self, input: &LawInput) -> Constants {
        self.common.constants(input)
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        Hertz::of(pair).stiffness(self.common.p.stiffness_overlap * pair.effective_radius())
    }

    fn law(&self, input: &LawInput, c: &Constants, state: &mut [f64]) -> LawOutput {
        let delta = -input.geom.u.x;
        let pull = 2.0 * PI * self.common.p.w * c.r;
        let hertz = Hertz {
            kh: 4.0 / 3.0 * c.e * c.r.sqrt(),
        };
        let normal = if input.is_last == 0 && delta > 0.0 {
            Normal {
                touching: true,
                force: hertz.force(delta) - pull,
                energy: hertz.energy(delta) - pull * delta,
                radius: (c.r * delta).sqrt(),
                pull_off: pull,
            }
        } else {
            Normal {
                touching: false,
                force: 0.0,
                energy: 0.0,
                radius: 0.0,
                pull_off: pull,
            }
        };
        finish(&self.common, input, c, normal, state)
    }
}
