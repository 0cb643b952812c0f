//! `Law2_L6Geom_JKR`: the JKR normal force with its hysteresis (contact forms at zero
//! overlap, breaks at the critical negative overlap); see the crate documentation.

use crate::common::{
    finish, Common, Constants, Normal, Params, PARAMS, STATE_LEN, STATE_NAMES, TOUCHING,
};
use crate::jkr_theory::Jkr;
use dem_api::sdk::parts::effective_young;
use dem_api::sdk::{Law, Param};
use dem_api::{LawInput, LawOutput, LawPair};
use std::f64::consts::PI;
use std::sync::atomic::{AtomicBool, Ordering};

/// The JKR law.
pub struct JkrLaw {
    common: Common,
    reach: f64,
}

/// Has the warning about a reach shorter than a pair's break been given?
static SHORT_REACH_WARNED: AtomicBool = AtomicBool::new(false);

impl Law for JkrLaw {
    type Params = Params;
    type Constants = Constants;
    const NAME: &'static str = "Law2_L6Geom_JKR";
    const DESCRIPTION: &'static str = "Johnson-Kendall-Roberts adhesive elastic contact with \
        its hysteresis (forms at zero overlap, breaks at the critical negative overlap; \
        pull-off 1.5 pi w R*), Mindlin tangential spring with the Coulomb limit \
        mu (F_n + 2 F_po), optional viscous damping, rolling and twisting resistance; \
        energy booked for the ledger.";
    const PARAMS: &'static [Param] = PARAMS;
    const STATE_LEN: usize = STATE_LEN;
    const STATE_NAMES: &'static [&'static str] = STATE_NAMES;

    fn new(p: Params) -> Result<Self, String> {
        let reach = match p.reach {
            Some(d) if d > 0.0 && d.is_finite() => d,
            Some(d) => return Err(format!("reach must be > 0 and finite, m; got {d}")),
            None => {
                return Err(
                    "reach (m) is required: the gap up to which a contact holds in \
                            tension, above |delta_c| = (3/4)(pi^2 w^2 R*/E*^2)^(1/3)"
                        .into(),
                )
            }
        };
        Ok(JkrLaw {
            common: Common::new(p)?,
            reach,
        })
    }

    fn constants(&self, input: &LawInput) -> Constants {
        let c = self.common.constants(input);
        let jkr = Jkr {
            e: c.e,
            r: c.r,
            w: self.common.p.w,
        };
        let break_gap = -jkr.critical_overlap();
        if break_gap > self.reach && !SHORT_REACH_WARNED.swap(true, Ordering::Relaxed) {
            dem_api::tracing::warn!(
                "Law2_L6Geom_JKR: reach {} m is shorter than the gap {break_gap:e} m at which \
                 a contact of R* = {} m breaks; such contacts end early, at the reach \
                 (warned once)",
                self.reach,
                c.r
            );
        }
        c
    }

    fn interaction_distance(&self) -> f64 {
        self.reach
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        let r = pair.effective_radius();
        let jkr = Jkr {
            e: effective_young(pair),
            r,
            w: self.common.p.w,
        };
        let a = jkr
            .radius_at(self.common.p.stiffness_overlap * r)
            .unwrap_or(0.0);
        jkr.stiffness(a).max(2.0 * jkr.e * a)
    }

    fn law(&self, input: &LawInput, c: &Constants, state: &mut [f64]) -> LawOutput {
        let jkr = Jkr {
            e: c.e,
            r: c.r,
            w: self.common.p.w,
        };
        let delta = -input.geom.u.x;
        let was = state[TOUCHING] > 0.0;
        // Joins at zero overlap; stays joined down to the critical overlap.
        let radius = match (input.is_last != 0, was || delta >= 0.0) {
            (false, true) => jkr.radius_at(delta),
            _ => None,
        };
        let normal = match radius {
            Some(a) => Normal {
                touching: true,
                force: jkr.force(a),
                energy: jkr.energy(a),
                radius: a,
                pull_off: 1.5 * PI * jkr.w * jkr.r,
            },
            None => Normal {
                touching: false,
                force: 0.0,
                energy: 0.0,
                radius: 0.0,
                pull_off: 1.5 * PI * jkr.w * jkr.r,
            },
        };
        finish(&self.common, input, c, normal, state)
    }
}
