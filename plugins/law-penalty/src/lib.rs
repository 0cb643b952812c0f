//! `Law2_L6Geom_Penalty`: penalty contact with discrete (DPF) or continuous (CPF) penalty
//! forces (reference 003; Tang et al. 2012), linear or Hertzian, with optional
//! Yamane-Nakamura penalty friction.
//!
//! - **DPF**: `F = k delta^p n` from the overlap `delta` at the step's time `t`.
//! - **CPF**: the impulse of `k delta(t)^p n(t)` over the part of a linear trajectory where
//!   the bodies overlap, divided by `dt`: the mean force over the trajectory, in closed form
//!   (see [`cpf`]).
//!
//! Which trajectory, in our leap-frog. Positions are known at `t - dt` (kept in the
//! contact's state: the relative centre for two spheres, the overlap against a plane) and
//! at `t`; between them the bodies moved in a straight line with the mid-step velocity.
//! The force computed at `t` gives the kick `F dt` that takes the velocities from
//! `t - dt/2` to `t + dt/2`, so it stands for the interval `[t - dt/2, t + dt/2]`:
//!
//! - `trajectory: Centered` (default) integrates over that interval, the trajectory
//!   continued through `t` with the last segment's velocity (`c(t) -+ (c(t) - c(t - dt))/2`).
//!   While fully overlapping this is exactly DPF (symplectic, energy-conserving); it differs
//!   only on the steps where the contact starts or ends, where the force ramps in and out
//!   with the part of the interval spent in contact.
//! - `trajectory: Previous` integrates over the segment `[t - dt, t]` just travelled, as
//!   in the reference: the force then lags the motion by `dt/2`, which acts as a negative
//!   damping: an undamped impact rebounds faster than it came, by a first-order amount in
//!   `dt` (the test suite measures it: it is why `Centered` is the default).
//!
//! Energy: `elastic` is the potential `k delta^(p+1)/(p+1)` of the current overlap; CPF is
//! not derived from a potential, so the ledger shows its energy error at onset and end.
//! Friction (`friction: YamaneNakamura(..)`) is booked as friction.
//!
//! State: the previous relative centre (global, m; against a plane only its first slot,
//! the overlap), then the friction's slots.

pub mod cpf;

use dem_api::nalgebra::Vector3;
use dem_api::sdk::parts::YamaneNakamura;
use dem_api::sdk::{Law, Param};
use dem_api::{LawInput, LawOutput, LawPair, Vec3};
use serde::{Deserialize, Serialize};

/// Discrete or continuous penalty forces.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub enum Mode {
    /// `F = k delta(t)^p n(t)`.
    Dpf,
    /// Mean of `k delta^p n` over a linear trajectory.
    #[default]
    Cpf,
}

/// The trajectory CPF integrates over (see the crate documentation).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub enum Trajectory {
    /// `[t - dt/2, t + dt/2]`, continued with the last segment's velocity.
    #[default]
    Centered,
    /// `[t - dt, t]`, the segment just travelled.
    Previous,
}

/// Parameters of the penalty law.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Penalty stiffness: N/m (linear) or N/m^1.5 (Hertzian).
    pub k: f64,
    /// Force `k delta^1.5` instead of `k delta`.
    pub hertzian: bool,
    /// `Dpf` or `Cpf`.
    pub mode: Mode,
    /// CPF trajectory: `Centered` or `Previous`.
    pub trajectory: Trajectory,
    /// Penalty friction; absent: frictionless.
    pub friction: Option<YamaneNakamura>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            k: 1e5,
            hertzian: false,
            mode: Mode::Cpf,
            trajectory: Trajectory::Centered,
            friction: None,
        }
    }
}

/// The penalty law.
pub struct Penalty {
    p: Params,
}

const C0: usize = 0;
const F0: usize = 3;
const END: usize = F0 + YamaneNakamura::SLOTS;

/// Names of the state slots: the previous relative centre of two spheres, m (against a plane its first is the previous overlap), then the friction's anchor offset (m) and previous force (N).
const STATE_NAMES: &[&str] = &[
    "position_prev_x",
    "position_prev_y",
    "position_prev_z",
    "anchor_offset_y",
    "anchor_offset_z",
    "friction_force_prev_y",
    "friction_force_prev_z",
];
const _: () = assert!(STATE_NAMES.len() == END, "a name per state slot");

impl Penalty {
    fn exponent(&self) -> f64 {
        if self.p.hertzian {
            1.5
        } else {
            1.0
        }
    }

    /// Mean normal force vector per unit stiffness over the step, local frame, and the
    /// state update.
    fn continuous(&self, input: &LawInput, state: &mut [f64]) -> Vector3<f64> {
        let g = &input.geom;
        let frame = g.frame.na();
        let n = frame.row(0).transpose();
        let p = self.exponent();
        let centred = self.p.trajectory == Trajectory::Centered;
        let new = input.is_new != 0;
        if g.lens[0].is_finite() && g.lens[1].is_finite() {
            // Two spheres: the relative centre moves in a straight line.
            let sum = g.lens[0] + g.lens[1];
            let c1 = n * (sum + g.u.x);
            let c0 = if new {
                // No previous position yet: back along the normal with the onset rate.
                c1 - n * (g.u_dot.x * input.dt)
            } else {
                Vector3::new(state[C0], state[C0 + 1], state[C0 + 2])
            };
            state[C0..C0 + 3].copy_from_slice(c1.as_slice());
            let (a, b) = if centred {
                let half = (c1 - c0) * 0.5;
                (c1 - half, c1 + half)
            } else {
                (c0, c1)
            };
            frame * cpf::sphere_sphere(&a, &b, sum, p)
        } else {
            // Against a plane: the overlap is linear in time, the normal fixed.
            let d1 = -g.u.x;
            let d0 = if new {
                d1 + g.u_dot.x * input.dt
            } else {
                state[C0]
            };
            state[C0] = d1;
            let (a, b) = if centred {
                let half = 0.5 * (d1 - d0);
                (d1 - half, d1 + half)
            } else {
                (d0, d1)
            };
            Vector3::new(cpf::linear_depth_integral(a, b, p), 0.0, 0.0)
        }
    }
}

impl Law for Penalty {
    type Params = Params;
    type Constants = ();
    const NAME: &'static str = "Law2_L6Geom_Penalty";
    const DESCRIPTION: &'static str = "Penalty contact, discrete (DPF) or continuous (CPF, \
        closed-form impulse over the step's linear trajectory), linear or Hertzian, with \
        optional Yamane-Nakamura penalty friction.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "k",
            unit: "N/m or N/m^1.5",
            doc: "penalty stiffness (N/m^1.5 when hertzian)",
        },
        Param {
            name: "hertzian",
            unit: "flag",
            doc: "force k delta^1.5 instead of k delta",
        },
        Param {
            name: "mode",
            unit: "-",
            doc: "Dpf | Cpf",
        },
        Param {
            name: "trajectory",
            unit: "-",
            doc: "CPF interval: Centered ([t-dt/2, t+dt/2], default) | Previous ([t-dt, t])",
        },
        Param {
            name: "friction",
            unit: "-",
            doc: "YamaneNakamura(k_fp: N/m, k_fd: N s/m, mu_s, mu_d, k_w: s/m); none: frictionless",
        },
    ];
    const STATE_LEN: usize = END;
    const STATE_NAMES: &'static [&'static str] = STATE_NAMES;

    fn new(p: Params) -> Result<Self, String> {
        if !(p.k > 0.0 && p.k.is_finite()) {
            return Err(format!("k must be positive and finite, got {}", p.k));
        }
        if let Some(f) = &p.friction {
            f.validate()?;
        }
        Ok(Penalty { p })
    }

    fn constants(&self, _: &LawInput) {}

    fn stiffness(&self, pair: &LawPair) -> f64 {
        if self.p.hertzian {
            // Tangent stiffness at an overlap of 1 % of R*.
            1.5 * self.p.k * (0.01 * pair.effective_radius()).sqrt()
        } else {
            self.p.k
        }
    }

    fn law(&self, input: &LawInput, _: &(), state: &mut [f64]) -> LawOutput {
        let g = &input.geom;
        let last = input.is_last != 0;
        let p = self.exponent();
        let depth = (-g.u.x).max(0.0);
        let mut force = match self.p.mode {
            Mode::Dpf => Vector3::new(self.p.k * depth.powf(p), 0.0, 0.0),
            Mode::Cpf => self.continuous(input, state) * self.p.k,
        };
        if last {
            force = Vector3::zeros();
        }
        let mut out = LawOutput {
            elastic: if last {
                0.0
            } else {
                self.p.k * depth.powf(p + 1.0) / (p + 1.0)
            },
            ..LawOutput::default()
        };
        if let Some(yn) = &self.p.friction {
            let t = yn.step(
                force.x,
                [g.u_dot.y, g.u_dot.z],
                input.dt,
                &mut state[F0..END],
            );
            force.y += t.force[0];
            force.z += t.force[1];
            out.elastic += t.elastic;
            out.friction = t.dissipated;
        }
        out.force = Vec3::new(force.x, force.y, force.z);
        out
    }
}

dem_api::export_plugin! { geometry: [], laws: [Penalty] }
