//! Yamane-Nakamura penalty friction: a damped spring anchored where the contact started
//! sticking, replaced by a smooth dynamic friction force when it would exceed the static
//! limit (Yamane and Nakamura 2006, as reference 003 describes it).

use super::spring::SpringOut;
use super::{norm, work_absorbed};
use serde::{Deserialize, Serialize};

/// Parameters, as written in a law's `params`:
/// `YamaneNakamura(k_fp: 1e5, k_fd: 10, mu_s: 0.5, mu_d: 0.4, k_w: 1e3)`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct YamaneNakamura {
    /// Anchor spring stiffness `k_FP`, N/m.
    pub k_fp: f64,
    /// Anchor damping `k_FD`, N s/m.
    pub k_fd: f64,
    /// Static coefficient `mu_s`.
    pub mu_s: f64,
    /// Dynamic coefficient `mu_d`.
    pub mu_d: f64,
    /// Weight constant `k_w` of `w(x) = 1 - exp(-k_w x)`, s/m.
    pub k_w: f64,
}

impl YamaneNakamura {
    /// State slots used: the displacement from the anchor (2) and the previous force (2),
    /// local frame.
    pub const SLOTS: usize = 4;

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), String> {
        let ok = |x: f64| x >= 0.0 && x.is_finite();
        let positive = self.k_w > 0.0 && self.k_w.is_finite();
        if !(ok(self.k_fp) && ok(self.k_fd) && ok(self.mu_s) && ok(self.mu_d) && positive) {
            return Err(format!(
                "YamaneNakamura: k_fp, k_fd, mu_s, mu_d must be >= 0 and k_w > 0, all finite: {self:?}"
            ));
        }
        Ok(())
    }

    /// One step: the tangential force on body 2 (local frame) for normal force `f_n` (N)
    /// and tangential slip rate `rate` (m/s, `u_dot.y`, `u_dot.z`).
    ///
    /// The anchor is kept as the tangential displacement `d = p - p_ref` in the contact
    /// frame (integrated from `rate`, so it follows both bodies). Static trial
    /// `f_s = -k_FP d - k_FD v`; while `|f_s| <= mu_s |f_n|` it is the force. Otherwise the
    /// dynamic force `-mu_d |f_n| w(|v|) v / |v|` acts (`w(x)/x -> k_w` at `v = 0`, no
    /// division by zero) and the anchor is reset to the current point. Stored energy
    /// `k_FP |d|^2 / 2`; dissipated = work absorbed - change of stored energy (viscous and
    /// sliding losses together).
    pub fn step(&self, f_n: f64, rate: [f64; 2], dt: f64, state: &mut [f64]) -> SpringOut<2> {
        let d_prev = [state[0], state[1]];
        let f_prev = [state[2], state[3]];
        let mut d = [d_prev[0] + rate[0] * dt, d_prev[1] + rate[1] * dt];
        let trial = [
            -self.k_fp * d[0] - self.k_fd * rate[0],
            -self.k_fp * d[1] - self.k_fd * rate[1],
        ];
        let limit = self.mu_s * f_n.abs();
        let slipped = norm(&trial) > limit;
        let f = if slipped {
            let v = norm(&rate);
            // w(v)/v, with its limit k_w at v = 0.
            let w_over_v = if v * self.k_w > 1e-12 {
                -(-self.k_w * v).exp_m1() / v
            } else {
                self.k_w
            };
            d = [0.0, 0.0];
            let s = -self.mu_d * f_n.abs() * w_over_v;
            [s * rate[0], s * rate[1]]
        } else {
            trial
        };
        let stored = |d: &[f64; 2]| 0.5 * self.k_fp * (d[0] * d[0] + d[1] * d[1]);
        let elastic = stored(&d);
        let dissipated = work_absorbed(&f_prev, &f, &rate, dt) - (elastic - stored(&d_prev));
        state[..2].copy_from_slice(&d);
        state[2..4].copy_from_slice(&f);
        SpringOut {
            force: f,
            elastic,
            dissipated,
            slipped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sticks_then_slides_with_the_smooth_weight() {
        let yn = YamaneNakamura {
            k_fp: 1e4,
            k_fd: 0.0,
            mu_s: 0.5,
            mu_d: 0.4,
            k_w: 100.0,
        };
        let mut s = [0.0; 4];
        // 10 N normal: static limit 5 N. 1e-4 m of slide: 1 N, sticking, nothing lost.
        let out = yn.step(10.0, [0.1, 0.0], 1e-3, &mut s);
        assert!((out.force[0] + 1.0).abs() < 1e-12 && !out.slipped);
        assert!(out.dissipated.abs() < 1e-15);
        // A fast slide exceeds it: dynamic force 4 N * w(1 m/s) against the motion.
        let out = yn.step(10.0, [1.0, 0.0], 1e-3, &mut s);
        assert!(out.slipped);
        assert!((out.force[0] + 4.0 * (1.0 - (-100.0f64).exp())).abs() < 1e-12);
        assert_eq!([s[0], s[1]], [0.0, 0.0], "anchor reset");
        assert!(out.dissipated > 0.0);
        // At zero slip speed the weight's limit is finite: no NaN.
        let mut s = [1.0, 0.0, 0.0, 0.0];
        let out = yn.step(1.0, [0.0, 0.0], 1e-3, &mut s);
        assert!(out.force.iter().all(|x| x.is_finite()));
        assert!(yn.validate().is_ok());
    }
}
