//! `Law2_L6Geom_Modia3D`: Modia3D's elastic response (after Flores et al. 2011 for the
//! normal force, Otter et al. 2005 for friction and rolling resistance).
//!
//! With `delta = -u_n` the overlap (m), `delta_dot = -u_n_dot` its rate (m/s):
//!
//! - normal: `F_n = max(0, k_red c_res c_geo delta^(3/2) (1 + d delta_dot))`,
//!   `c_res = E*`, `c_geo = (4/3) sqrt(R*)` (Hertz for spheres);
//! - damping coefficient (s/m), computed ONCE at contact onset from the stored
//!   pre-impact normal velocity `delta_dot^-` and frozen for the contact's life:
//!   `d = min(d_max, 8 (1 - cor_cur) / (5 cor_cur delta_dot^-))`, with
//!   `cor_cur = cor` if `delta_dot^- > v_small`, else 0 (then `d = d_max`): a body whose
//!   impacts have become slow comes to rest instead of bouncing for ever;
//! - sliding friction `F_t = -mu_k F_n v_t / reg(|v_t|, v_small)`;
//! - rotational resistance `tau = -mu_r R* F_n w / reg(|w|, w_small)`, `w` the relative
//!   angular velocity (rolling and twisting);
//! - `reg(x, s) = x` for `x >= s`, else `x^2 / s (1 - x / (3 s)) + s / 3` (C2 at `s`).
//!
//! Modia3D integrates with implicit, variable-step solvers. Below `v_small` the friction
//! acts as a viscous force of coefficient up to `3 mu_k F_n / v_small`, which an explicit
//! step cannot follow once it exceeds `2 m / dt`; so here the friction (torque) is never
//! more than what stops the sliding (relative rotation) within one step, taking the
//! bodies as solid spheres (`(2/7) m*`, effective inertia). Above that bound the law is
//! Modia3D's unchanged.
//!
//! The achieved restitution is below `cor` at low `cor` (0.069 for 0.1, 0.47 for 0.5,
//! 0.894 for 0.9; exact values of this force law, independent of speed, in the test
//! suite). Energy: elastic `(2/5) F_el delta`; the viscous part and the clamped force are
//! booked as damping, sliding and rotational resistance as friction (trapezoid rule).

use dem_api::sdk::parts::{
    effective_inertia, effective_young, norm, pair_friction, sliding_mass, work_absorbed,
    NormalForce,
};
use dem_api::sdk::{Law, Param};
use dem_api::{LawInput, LawOutput, LawPair, Vec3};
use serde::{Deserialize, Serialize};

/// Parameters of the Modia3D law (Modia3D's names in brackets).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Coefficient of restitution `cor` in [0, 1] (`coefficientOfRestitution`).
    pub restitution: f64,
    /// Sliding friction `mu_k`; absent: the smaller of the materials' friction.
    pub friction: Option<f64>,
    /// Rotational resistance `mu_r` (`rotationalResistanceCoefficient`).
    pub rolling: f64,
    /// Velocity regularization `v_small`, m/s (`vsmall`).
    pub v_small: f64,
    /// Angular velocity regularization `w_small`, rad/s (`wsmall`).
    pub w_small: f64,
    /// Largest damping coefficient `d_max`, s/m (`maximumContactDamping`).
    pub d_max: f64,
    /// Elastic contact reduction factor `k_red` (`elasticContactReductionFactor`).
    pub k_red: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            restitution: 0.7,
            friction: None,
            rolling: 0.0,
            v_small: 0.01,
            w_small: 0.01,
            d_max: 2000.0,
            k_red: 1.0,
        }
    }
}

/// The Modia3D elastic-response law.
pub struct Modia3D {
    p: Params,
}

dem_api::slots! {
    /// Constants of one contact.
    pub struct Constants {
        /// `k_red c_res c_geo`, N/m^1.5.
        pub c: f64,
        /// Damping coefficient `d`, s/m (from the onset velocity).
        pub d: f64,
        /// Sliding friction coefficient.
        pub mu_k: f64,
        /// `mu_r R*`, m.
        pub mu_r: f64,
        /// Sliding mass `(2/7) m*`, kg.
        pub m_t: f64,
        /// Effective inertia for relative rotation, kg m^2.
        pub i: f64,
    }
}

/// Modia3D's regularization of `|v|`: `x` above `s`, a cubic with minimum `s/3` at 0
/// below, continuous with two derivatives at `s`.
pub fn reg(x: f64, s: f64) -> f64 {
    if x >= s {
        x
    } else {
        x * x / s * (1.0 - x / (3.0 * s)) + s / 3.0
    }
}

// State slots: normal damping force, previous friction force (2), previous torque (3).
const N0: usize = 0;
const T0: usize = N0 + NormalForce::SLOTS;
const R0: usize = T0 + 2;
const END: usize = R0 + 3;

/// Names of the state slots (N, N, N, N m, N m, N m).
const STATE_NAMES: &[&str] = &[
    "normal_damping_force",
    "friction_force_prev_y",
    "friction_force_prev_z",
    "torque_prev_x",
    "torque_prev_y",
    "torque_prev_z",
];
const _: () = assert!(STATE_NAMES.len() == END, "a name per state slot");

fn positive(x: f64) -> bool {
    x > 0.0 && x.is_finite()
}

impl Law for Modia3D {
    type Params = Params;
    type Constants = Constants;
    const NAME: &'static str = "Law2_L6Geom_Modia3D";
    const DESCRIPTION: &'static str = "Modia3D elastic response: Hertzian normal force with \
        damping set once at onset from the pre-impact velocity (Flores et al.), regularized \
        sliding friction and rotational resistance.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "restitution",
            unit: "-",
            doc: "coefficient of restitution cor in [0,1]",
        },
        Param {
            name: "friction",
            unit: "-",
            doc: "sliding friction mu_k; default min of the materials'",
        },
        Param {
            name: "rolling",
            unit: "-",
            doc: "rotational resistance mu_r (torque mu_r R* F_n)",
        },
        Param {
            name: "v_small",
            unit: "m/s",
            doc: "velocity regularization; slower impacts get cor 0",
        },
        Param {
            name: "w_small",
            unit: "rad/s",
            doc: "angular velocity regularization",
        },
        Param {
            name: "d_max",
            unit: "s/m",
            doc: "largest damping coefficient",
        },
        Param {
            name: "k_red",
            unit: "-",
            doc: "elastic contact reduction factor",
        },
    ];
    const STATE_LEN: usize = END;
    const STATE_NAMES: &'static [&'static str] = STATE_NAMES;

    fn new(p: Params) -> Result<Self, String> {
        if !(0.0..=1.0).contains(&p.restitution) {
            return Err(format!(
                "restitution must be in [0, 1], got {}",
                p.restitution
            ));
        }
        if let Some(mu) = p.friction {
            if !(mu >= 0.0 && mu.is_finite()) {
                return Err(format!("friction must be >= 0, got {mu}"));
            }
        }
        if !(p.rolling >= 0.0 && p.rolling.is_finite()) {
            return Err(format!("rolling must be >= 0, got {}", p.rolling));
        }
        for (name, v) in [
            ("v_small", p.v_small),
            ("w_small", p.w_small),
            ("d_max", p.d_max),
            ("k_red", p.k_red),
        ] {
            if !positive(v) {
                return Err(format!("{name} must be positive and finite, got {v}"));
            }
        }
        Ok(Modia3D { p })
    }

    fn constants(&self, input: &LawInput) -> Constants {
        let pair = &input.pair;
        let r = pair.effective_radius();
        let c_res = effective_young(pair);
        let c_geo = 4.0 / 3.0 * r.sqrt();
        let approach = -input.onset.normal_velocity;
        let cor = if approach > self.p.v_small {
            self.p.restitution
        } else {
            0.0
        };
        let d = if cor > 0.0 {
            (8.0 * (1.0 - cor) / (5.0 * cor * approach)).min(self.p.d_max)
        } else {
            self.p.d_max
        };
        dem_api::tracing::debug!(
            target: "dem::contact",
            law = Self::NAME, t = input.onset.time, speed = approach, c_res, d, cor_cur = cor
        );
        Constants {
            c: self.p.k_red * c_res * c_geo,
            d,
            mu_k: self.p.friction.unwrap_or_else(|| pair_friction(pair)),
            mu_r: self.p.rolling * r,
            m_t: sliding_mass(pair),
            i: effective_inertia(pair),
        }
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        // Tangent stiffness at an overlap of 1 % of R*, as the Hertz-Mindlin law.
        let r = pair.effective_radius();
        1.5 * self.p.k_red * effective_young(pair) * 4.0 / 3.0 * r.sqrt() * (0.01 * r).sqrt()
    }

    fn law(&self, input: &LawInput, c: &Constants, state: &mut [f64]) -> LawOutput {
        let g = &input.geom;
        let dt = input.dt;
        let last = input.is_last != 0;
        let delta = if last { 0.0 } else { (-g.u.x).max(0.0) };
        let f_el = c.c * delta * delta.sqrt();
        let f_visc = f_el * c.d * (-g.u_dot.x);
        let (f_n, damping) =
            NormalForce::step(f_el, f_visc, false, last, g.u_dot.x, dt, &mut state[N0..T0]);

        // Regularized friction and rotational resistance, each no larger than what stops
        // the relative motion within this step (explicit-integration stability).
        let v = [g.u_dot.y, g.u_dot.z];
        let s = -(c.mu_k * f_n / reg(norm(&v), self.p.v_small)).min(c.m_t / dt);
        let f_t = [s * v[0], s * v[1]];
        let w = [g.phi_dot.x, g.phi_dot.y, g.phi_dot.z];
        let s = -(c.mu_r * f_n / reg(norm(&w), self.p.w_small)).min(c.i / dt);
        let tau = [s * w[0], s * w[1], s * w[2]];

        let prev_t = [state[T0], state[T0 + 1]];
        let prev_r = [state[R0], state[R0 + 1], state[R0 + 2]];
        let friction = work_absorbed(&prev_t, &f_t, &v, dt) + work_absorbed(&prev_r, &tau, &w, dt);
        state[T0..R0].copy_from_slice(&f_t);
        state[R0..END].copy_from_slice(&tau);
        LawOutput {
            force: Vec3::new(f_n, f_t[0], f_t[1]),
            torque: Vec3::new(tau[0], tau[1], tau[2]),
            elastic: 0.4 * f_el * delta,
            friction,
            damping,
        }
    }
}

dem_api::export_plugin! { geometry: [], laws: [Modia3D] }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reg_is_c2_at_the_threshold() {
        let s = 0.1;
        let h = 1e-6;
        assert!((reg(s, s) - s).abs() < 1e-15);
        assert!((reg(0.0, s) - s / 3.0).abs() < 1e-15);
        let d1 = (reg(s, s) - reg(s - h, s)) / h;
        assert!((d1 - 1.0).abs() < 1e-4);
        let d2 = (reg(s, s) - 2.0 * reg(s - h, s) + reg(s - 2.0 * h, s)) / (h * h);
        assert!(d2.abs() < 1e-3);
    }

    #[test]
    fn damping_is_set_at_onset() {
        let law = Modia3D::new(Params {
            restitution: 0.5,
            ..Default::default()
        })
        .unwrap();
        let mut inp = LawInput::default();
        inp.pair.radius = [0.01, f64::INFINITY];
        inp.pair.mass = [1.0, f64::INFINITY];
        for m in &mut inp.pair.material {
            m.young = 1e9;
            m.poisson = 0.3;
        }
        inp.onset.normal_velocity = -2.0;
        assert!((law.constants(&inp).d - 8.0 * 0.5 / (5.0 * 0.5 * 2.0)).abs() < 1e-15);
        // Below v_small: cor 0, the largest damping.
        inp.onset.normal_velocity = -1e-3;
        assert_eq!(law.constants(&inp).d, 2000.0);
    }
}
