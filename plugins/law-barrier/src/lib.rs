//! `Law2_L6Geom_Barrier`: the IPC log barrier (Li et al. 2020) as a contact law, in
//! physical units, with IPC's smooth lagged friction.
//!
//! Normal. With `x = d / dhat` (`d` the gap, m; `dhat` the activation distance, m) and
//! `beta(x) = -(x - 1)^2 ln x` for `0 < x < 1` (0 beyond), the contact stores the energy
//! `E = kappa A dhat beta(x)` and pushes with `F = -dE/dd = -kappa A beta'(x)`,
//! `beta'(x) = -2 (x - 1) ln x - (x - 1)^2 / x` (IPC's `b(d, dhat) = -(d - dhat)^2 ln(d/dhat)`
//! scaled by `kappa A / dhat`). `kappa` is a pressure (Pa; IPC's guidance: about 0.1 E)
//! and `A` the area of the activation layer: by default the cap of the sphere (radius
//! `R*`) within `dhat` of the other surface, `A = 2 pi R* dhat` (or the `area` parameter).
//! The law's interaction distance is `dhat`: contacts exist before the bodies touch.
//!
//! The gap must stay positive. A gap below `x_ext dhat` (`x_ext = 1e-3`), including zero or
//! overlap, is an error state: the force continues linearly from there with the barrier's
//! slope at `x_ext` (finite, growing with the overlap, never zero); each such step is
//! counted in the contact's state and the first one of a contact is logged as a warning.
//!
//! Step guard: the barrier's stiffness `k = kappa A beta''(x) / dhat` grows like `1/d^2`;
//! [`Law::stable_step`] reports `sqrt(m*/k)` (half the leap-frog stability limit `2/omega`,
//! as the gap still closes within the step), and the solver stops the run with a message
//! when the scene's step is larger: choose a step that resolves the closest approach.
//!
//! Friction (`mu_s`, `mu_k`, `eps_v`): IPC's lagged smooth friction,
//! `F_t = -mu(|v|) lambda f1(|v|) v / |v|`, `lambda` the normal force of the previous step
//! (lagged), `f1(y) = 2y/eps_v - y^2/eps_v^2` below `eps_v` and 1 above (`f1(y)/y -> 2/eps_v`
//! at rest: no division by zero); `mu(y) = mu_s` up to `eps_v`, then a smoothstep down to
//! `mu_k` at `2 eps_v`. A body on a slope with `tan(theta) < mu_s` creeps at
//! `eps_v (1 - sqrt(1 - tan(theta)/mu_s))`. Booked as friction.
//!
//! Or `penalty_friction: YamaneNakamura(..)`: Yamane and Nakamura's penalty friction
//! (`dem_api::sdk::parts::YamaneNakamura`, the same as in `Law2_L6Geom_Penalty`), driven by
//! the barrier's current normal force, instead of IPC's (then `mu_s` and `mu_k` must be 0).

use dem_api::sdk::parts::{norm, work_absorbed, YamaneNakamura};
use dem_api::sdk::{Law, Param};
use dem_api::{LawInput, LawOutput, LawPair, Vec3};
use serde::{Deserialize, Serialize};

/// Parameters of the barrier law.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Barrier stiffness, Pa.
    pub kappa: f64,
    /// Activation distance, m.
    pub dhat: f64,
    /// Area of the activation layer, m^2; absent: `2 pi R* dhat`.
    pub area: Option<f64>,
    /// Static friction coefficient.
    pub mu_s: f64,
    /// Kinetic friction coefficient.
    pub mu_k: f64,
    /// Velocity below which friction is smoothed, m/s.
    pub eps_v: f64,
    /// Yamane-Nakamura penalty friction instead of IPC's; absent: IPC's.
    pub penalty_friction: Option<YamaneNakamura>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            kappa: 1e7,
            dhat: 1e-4,
            area: None,
            mu_s: 0.0,
            mu_k: 0.0,
            eps_v: 1e-3,
            penalty_friction: None,
        }
    }
}

/// Gap (as a fraction of `dhat`) below which the force is extended linearly.
const X_EXT: f64 = 1e-3;

/// `beta(x) = -(x - 1)^2 ln x`.
fn beta(x: f64) -> f64 {
    -(x - 1.0).powi(2) * x.ln()
}

/// `beta'(x)`.
fn beta1(x: f64) -> f64 {
    -2.0 * (x - 1.0) * x.ln() - (x - 1.0).powi(2) / x
}

/// `beta''(x)`.
fn beta2(x: f64) -> f64 {
    -2.0 * x.ln() - 4.0 * (x - 1.0) / x + (x - 1.0).powi(2) / (x * x)
}

/// IPC's friction mollifier `f1(y)` over `y`: `2/eps - y/eps^2` below `eps`, `1/y` above.
fn f1_over_y(y: f64, eps: f64) -> f64 {
    if y < eps {
        2.0 / eps - y / (eps * eps)
    } else {
        1.0 / y
    }
}

dem_api::slots! {
    /// Constants of one contact.
    pub struct Constants {
        /// `kappa A`, N.
        pub ka: f64,
        /// Effective mass, kg.
        pub m: f64,
    }
}

// State: previous normal force (lagged lambda), previous friction force (2), count of
// steps in the error state, then the penalty friction's slots.
const LAMBDA: usize = 0;
const FT: usize = 1;
const ERRORS: usize = 3;
const YN: usize = 4;
const END: usize = YN + YamaneNakamura::SLOTS;

/// Names of the state slots (N, N, N, steps, m, m, N, N).
const STATE_NAMES: &[&str] = &[
    "normal_force_prev",
    "barrier_friction_prev_y",
    "barrier_friction_prev_z",
    "error_steps",
    "anchor_offset_y",
    "anchor_offset_z",
    "friction_force_prev_y",
    "friction_force_prev_z",
];
const _: () = assert!(STATE_NAMES.len() == END, "a name per state slot");

/// The barrier law.
pub struct Barrier {
    p: Params,
}

impl Barrier {
    /// Normal force (N, positive pushing) and stored energy at gap `d`, and whether the
    /// gap is in the error state.
    fn normal(&self, ka: f64, d: f64) -> (f64, f64, bool) {
        let x = d / self.p.dhat;
        if x >= 1.0 {
            return (0.0, 0.0, false);
        }
        if x > X_EXT {
            return (-ka * beta1(x), ka * self.p.dhat * beta(x), false);
        }
        // Linear continuation of the force below x_ext; its energy continued to match.
        let (f0, k0) = (-ka * beta1(X_EXT), ka * beta2(X_EXT) / self.p.dhat);
        let s = (X_EXT - x) * self.p.dhat;
        let e0 = ka * self.p.dhat * beta(X_EXT);
        (f0 + k0 * s, e0 + f0 * s + 0.5 * k0 * s * s, true)
    }
}

impl Law for Barrier {
    type Params = Params;
    type Constants = Constants;
    const NAME: &'static str = "Law2_L6Geom_Barrier";
    const DESCRIPTION: &'static str = "IPC log barrier in physical units (kappa in Pa, \
        activation distance dhat), acting before contact, with IPC's smooth lagged \
        friction and a time-step guard.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "kappa",
            unit: "Pa",
            doc: "barrier stiffness (IPC's guidance: about 0.1 E)",
        },
        Param {
            name: "dhat",
            unit: "m",
            doc: "activation distance: the barrier acts below this gap",
        },
        Param {
            name: "area",
            unit: "m^2",
            doc: "area of the activation layer; default 2 pi R* dhat",
        },
        Param {
            name: "mu_s",
            unit: "-",
            doc: "static friction coefficient",
        },
        Param {
            name: "mu_k",
            unit: "-",
            doc: "kinetic friction coefficient",
        },
        Param {
            name: "eps_v",
            unit: "m/s",
            doc: "slip speed below which friction is smoothed (creep scale)",
        },
        Param {
            name: "penalty_friction",
            unit: "-",
            doc: "YamaneNakamura(k_fp: N/m, k_fd: N s/m, mu_s, mu_d, k_w: s/m) instead of \
                  IPC's friction (mu_s, mu_k then 0); none: IPC's friction",
        },
    ];
    const STATE_LEN: usize = END;
    const STATE_NAMES: &'static [&'static str] = STATE_NAMES;

    fn new(p: Params) -> Result<Self, String> {
        let positive = |x: f64| x > 0.0 && x.is_finite();
        if !(positive(p.kappa) && positive(p.dhat) && positive(p.eps_v)) {
            return Err(format!(
                "kappa, dhat and eps_v must be positive and finite, got {}, {}, {}",
                p.kappa, p.dhat, p.eps_v
            ));
        }
        if let Some(a) = p.area {
            if !positive(a) {
                return Err(format!("area must be positive, got {a}"));
            }
        }
        if !(p.mu_s >= 0.0 && p.mu_k >= 0.0 && p.mu_s.is_finite() && p.mu_k.is_finite()) {
            return Err(format!(
                "mu_s and mu_k must be >= 0, got {}, {}",
                p.mu_s, p.mu_k
            ));
        }
        if let Some(yn) = &p.penalty_friction {
            yn.validate()?;
            if p.mu_s != 0.0 || p.mu_k != 0.0 {
                return Err(format!(
                    "penalty_friction replaces IPC's friction: give mu_s and mu_k as 0 (got {}, \
                     {}) or leave penalty_friction out",
                    p.mu_s, p.mu_k
                ));
            }
        }
        Ok(Barrier { p })
    }

    fn interaction_distance(&self) -> f64 {
        self.p.dhat
    }

    fn constants(&self, input: &LawInput) -> Constants {
        let r = input.pair.effective_radius();
        let area = self
            .p
            .area
            .unwrap_or(2.0 * std::f64::consts::PI * r * self.p.dhat);
        Constants {
            ka: self.p.kappa * area,
            m: input.pair.effective_mass(),
        }
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        // At a gap of dhat / 10, the closest approach a reasonable scene resolves.
        let area = self
            .p
            .area
            .unwrap_or(2.0 * std::f64::consts::PI * pair.effective_radius() * self.p.dhat);
        self.p.kappa * area * beta2(0.1) / self.p.dhat
    }

    fn law(&self, input: &LawInput, c: &Constants, state: &mut [f64]) -> LawOutput {
        let g = &input.geom;
        let last = input.is_last != 0;
        let (mut f_n, mut elastic, error) = self.normal(c.ka, g.u.x);
        if error && !last {
            if state[ERRORS] == 0.0 {
                dem_api::tracing::warn!(
                    "barrier gap {:e} m is below {X_EXT} dhat (error state): force extended \
                     linearly; reduce the time step or raise kappa",
                    g.u.x
                );
            }
            state[ERRORS] += 1.0;
        }
        if last {
            (f_n, elastic) = (0.0, 0.0);
        }
        if let Some(yn) = &self.p.penalty_friction {
            let t = yn.step(f_n, [g.u_dot.y, g.u_dot.z], input.dt, &mut state[YN..END]);
            let f_t = if last { [0.0; 2] } else { t.force };
            return LawOutput {
                force: Vec3::new(f_n, f_t[0], f_t[1]),
                torque: Vec3::ZERO,
                elastic: elastic + if last { 0.0 } else { t.elastic },
                friction: t.dissipated,
                damping: 0.0,
            };
        }
        // Friction with the normal force of the previous step (lagged).
        let lambda = state[LAMBDA];
        let v = [g.u_dot.y, g.u_dot.z];
        let y = norm(&v);
        let eps = self.p.eps_v;
        let mu = if y <= eps {
            self.p.mu_s
        } else if y >= 2.0 * eps {
            self.p.mu_k
        } else {
            let t = (y - eps) / eps;
            let s = t * t * (3.0 - 2.0 * t);
            self.p.mu_s + (self.p.mu_k - self.p.mu_s) * s
        };
        let scale = if last {
            0.0
        } else {
            -mu * lambda * f1_over_y(y, eps)
        };
        let f_t = [scale * v[0], scale * v[1]];
        let prev = [state[FT], state[FT + 1]];
        let friction = work_absorbed(&prev, &f_t, &v, input.dt);
        state[FT..FT + 2].copy_from_slice(&f_t);
        state[LAMBDA] = f_n;
        LawOutput {
            force: Vec3::new(f_n, f_t[0], f_t[1]),
            torque: Vec3::ZERO,
            elastic,
            friction,
            damping: 0.0,
        }
    }

    fn stable_step(&self, input: &LawInput, c: &Constants, _state: &[f64]) -> f64 {
        let x = (input.geom.u.x / self.p.dhat).max(X_EXT);
        if x >= 1.0 || !c.m.is_finite() {
            return f64::INFINITY;
        }
        let k = c.ka * beta2(x) / self.p.dhat;
        (c.m / k).sqrt()
    }
}

dem_api::export_plugin! { geometry: [], laws: [Barrier] }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivatives_match_the_barrier() {
        let h = 1e-7;
        for x in [0.01, 0.1, 0.5, 0.9] {
            let d1 = (beta(x + h) - beta(x - h)) / (2.0 * h);
            assert!((d1 / beta1(x) - 1.0).abs() < 1e-6, "{x}");
            let d2 = (beta1(x + h) - beta1(x - h)) / (2.0 * h);
            assert!((d2 / beta2(x) - 1.0).abs() < 1e-6, "{x}");
        }
        assert_eq!(beta(1.0), 0.0);
        assert_eq!(beta1(1.0), 0.0);
    }

    #[test]
    fn the_error_state_pushes_harder_and_never_returns_zero() {
        let law = Barrier::new(Params::default()).unwrap();
        let (f_in, _, e_in) = law.normal(1.0, 0.5 * X_EXT * 1e-4);
        let (f_at, _, _) = law.normal(1.0, 2.0 * X_EXT * 1e-4);
        let (f_over, _, e_over) = law.normal(1.0, -1e-5);
        assert!(e_in && e_over);
        assert!(f_over > f_in && f_in > f_at && f_at > 0.0 && f_over.is_finite());
    }
}
