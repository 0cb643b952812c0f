//! What the two laws share: their parameters, the constants of a pair, the normal force's
//! state slots and the tangential, rolling and twisting parts with the energy booking
//! (see the crate documentation).

use dem_api::sdk::parts::{
    effective_inertia, effective_shear, effective_young, pair_friction, params,
    viscous_coefficient, work_absorbed, DampingForm, DampingFrom, Resistance, SpringSlider,
};
use dem_api::sdk::Param;
use dem_api::{LawInput, LawOutput, Vec3};
use serde::{Deserialize, Serialize};

/// Parameters of both laws, from the scene's `params: (...)`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Work of adhesion `w`, J/m^2 (required; `2 gamma` for surface energy `gamma`).
    pub w: f64,
    /// Gap below which a contact exists, m (JKR: required, above `|delta_c|`; DMT: none).
    pub reach: Option<f64>,
    /// Coefficient of restitution setting the viscous damping ratio; absent: no damping.
    pub restitution: Option<f64>,
    /// Coulomb coefficient; absent: the smaller of the two materials' friction.
    pub friction: Option<f64>,
    /// Rolling resistance model.
    pub rolling: Resistance,
    /// Twisting resistance model.
    pub twisting: Resistance,
    /// Overlap, as a fraction of `R*`, at which the stiffness for the critical time step
    /// is evaluated.
    pub stiffness_overlap: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            w: f64::NAN,
            reach: None,
            restitution: None,
            friction: None,
            rolling: Resistance::Off,
            twisting: Resistance::Off,
            stiffness_overlap: 0.01,
        }
    }
}

/// The parameter table of both laws.
pub(crate) const PARAMS: &[Param] = &[
    Param {
        name: "w",
        unit: "J/m^2",
        doc: "work of adhesion (2 x the surface energy gamma of a like pair); required",
    },
    Param {
        name: "reach",
        unit: "m",
        doc: "JKR: gap below which a contact exists; must exceed |delta_c| = \
              (3/4)(pi^2 w^2 R*/E*^2)^(1/3) of every pair. DMT: not used",
    },
    params::RESTITUTION,
    params::FRICTION,
    params::ROLLING,
    params::TWISTING,
    Param {
        name: "stiffness_overlap",
        unit: "-",
        doc: "overlap / R* at which the normal stiffness sets the critical time step",
    },
];

/// Checked parameters and the damping ratio.
#[derive(Debug, Clone)]
pub(crate) struct Common {
    pub(crate) p: Params,
    /// Viscous damping ratio.
    pub(crate) zeta: f64,
}

/// Largest accepted work of adhesion, J/m^2.
pub(crate) const MAX_W: f64 = 1e6;

impl Common {
    pub(crate) fn new(p: Params) -> Result<Common, String> {
        // Surface energies of solids are below about 10 J/m^2; a million times more still
        // gives finite forces, 1e300 did not.
        if !(p.w >= 0.0 && p.w <= MAX_W) {
            return Err(format!(
                "w (work of adhesion, J/m^2) is required, >= 0 and at most {MAX_W:e}; got {}",
                p.w
            ));
        }
        let zeta = match p.restitution {
            None => 0.0,
            Some(e) if e > 0.0 && e <= 1.0 => {
                DampingFrom::Oscillator.damping_ratio(e, DampingForm::Hertz, true)
            }
            Some(e) => return Err(format!("restitution must be in (0, 1], got {e}")),
        };
        if let Some(mu) = p.friction {
            if !(mu >= 0.0 && mu.is_finite()) {
                return Err(format!("friction must be >= 0, got {mu}"));
            }
        }
        if !(p.stiffness_overlap > 0.0 && p.stiffness_overlap < 1.0) {
            return Err(format!(
                "stiffness_overlap must be in (0, 1), got {}",
                p.stiffness_overlap
            ));
        }
        p.rolling.validate("rolling")?;
        p.twisting.validate("twisting")?;
        Ok(Common { p, zeta })
    }

    pub(crate) fn constants(&self, input: &LawInput) -> Constants {
        let pair = &input.pair;
        Constants {
            e: effective_young(pair),
            g: effective_shear(pair),
            r: pair.effective_radius(),
            cd: viscous_coefficient(
                (5.0f64 / 6.0).sqrt() * self.zeta,
                pair.effective_mass(),
                1.0,
            ),
            mu: self.p.friction.unwrap_or_else(|| pair_friction(pair)),
            i: effective_inertia(pair),
        }
    }
}

dem_api::slots! {
    /// Constants of one contact.
    pub struct Constants {
        /// Effective Young's modulus `E*`, Pa.
        pub e: f64,
        /// Effective shear modulus `G*`, Pa.
        pub g: f64,
        /// Effective radius `R*`, m.
        pub r: f64,
        /// `2 sqrt(5/6) beta sqrt(m*)`: viscous coefficient over `sqrt(S_n)`, kg^0.5.
        pub cd: f64,
        /// Coulomb coefficient.
        pub mu: f64,
        /// Effective inertia for relative rotation, kg m^2.
        pub i: f64,
    }
}

/// The normal elastic part of a step, as a law's adhesion model gives it.
pub(crate) struct Normal {
    /// In contact (surfaces joined) after this step?
    pub(crate) touching: bool,
    /// Elastic normal force, N (repulsive positive; 0 out of contact).
    pub(crate) force: f64,
    /// Energy stored, J (0 out of contact).
    pub(crate) energy: f64,
    /// Contact radius, m (0 out of contact).
    pub(crate) radius: f64,
    /// Magnitude of the pull-off force `F_po`, N.
    pub(crate) pull_off: f64,
}

// State slots: touching flag, previous elastic normal force, previous stored normal
// energy, previous viscous force, tangential spring, rolling, twisting.
pub(crate) const TOUCHING: usize = 0;
pub(crate) const F_PREV: usize = 1;
pub(crate) const U_PREV: usize = 2;
pub(crate) const V_PREV: usize = 3;
pub(crate) const T0: usize = 4;
pub(crate) const R0: usize = T0 + SpringSlider::<2>::SLOTS;
pub(crate) const W0: usize = R0 + Resistance::slots(2);
pub(crate) const STATE_LEN: usize = W0 + Resistance::slots(1);

/// Names of the state slots (flag, N, J, N, N, N, N/m, N m, N m, N m/rad, N m, N m/rad).
pub(crate) const STATE_NAMES: &[&str] = &[
    "touching",
    "normal_force_prev",
    "normal_energy_prev",
    "viscous_force_prev",
    "shear_force_y",
    "shear_force_z",
    "shear_stiffness_prev",
    "rolling_torque_y",
    "rolling_torque_z",
    "rolling_stiffness_prev",
    "twisting_torque",
    "twisting_stiffness_prev",
];
const _: () = assert!(STATE_NAMES.len() == STATE_LEN, "a name per state slot");

/// The rest of a step once the normal part is known: booking of the normal part, the
/// viscous force, the tangential spring, rolling and twisting.
pub(crate) fn finish(
    common: &Common,
    input: &LawInput,
    c: &Constants,
    n: Normal,
    state: &mut [f64],
) -> LawOutput {
    let g = &input.geom;
    let dt = input.dt;
    let snap =
        work_absorbed(&[state[F_PREV]], &[n.force], &[g.u_dot.x], dt) - (n.energy - state[U_PREV]);
    state[TOUCHING] = f64::from(u8::from(n.touching));
    state[F_PREV] = n.force;
    state[U_PREV] = n.energy;
    let s_n = 2.0 * c.e * n.radius;
    let f_visc = if n.touching {
        -c.cd * s_n.sqrt() * g.u_dot.x
    } else {
        0.0
    };
    let damping = work_absorbed(&[state[V_PREV]], &[f_visc], &[g.u_dot.x], dt);
    state[V_PREV] = f_visc;
    let f_n = n.force + f_visc;
    let load = if n.touching {
        (n.force + 2.0 * n.pull_off).max(0.0)
    } else {
        0.0
    };
    let t = SpringSlider::<2>::step(
        8.0 * c.g * n.radius,
        [g.u_dot.y, g.u_dot.z],
        dt,
        c.mu * load,
        &mut state[T0..R0],
    );
    let p = &common.p;
    let roll = p.rolling.step(
        [g.phi_dot.y, g.phi_dot.z],
        load,
        s_n,
        c.r,
        c.i,
        dt,
        &mut state[R0..W0],
    );
    let twist = p.twisting.step(
        [g.phi_dot.x],
        load,
        s_n,
        c.r,
        c.i,
        dt,
        &mut state[W0..STATE_LEN],
    );
    LawOutput {
        force: Vec3::new(f_n, t.force[0], t.force[1]),
        torque: Vec3::new(twist.force[0], roll.force[0], roll.force[1]),
        elastic: n.energy + t.elastic + roll.elastic + twist.elastic,
        friction: snap + t.dissipated + roll.dissipated + twist.dissipated,
        damping,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_of_adhesion_is_range_checked() {
        let with = |w: f64| {
            Common::new(Params {
                w,
                ..Params::default()
            })
        };
        assert!(with(0.1).is_ok() && with(0.0).is_ok() && with(MAX_W).is_ok());
        for w in [-1.0, f64::NAN, 1e300, f64::INFINITY] {
            let Err(e) = with(w) else {
                panic!("w = {w} accepted");
            };
            assert!(e.contains("at most 1e6"), "{w}: {e}");
        }
    }
}
