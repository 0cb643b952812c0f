//! `Law2_L6Geom_Template`: a starting point for a contact law of your own.
//!
//! A linear normal spring-dashpot and a Coulomb tangential spring:
//!
//! - `F_n = k_n delta - eta u_n_dot` (no pull), `delta = -u_n` the overlap (m),
//!   `k_n = 2 E* R*` from the two materials unless `kn` is given, `eta` from the
//!   requested restitution `e` (`eta = 2 zeta sqrt(m* k_n)`);
//! - `F_t` an incremental spring of stiffness `kt_kn k_n`, limited to `mu F_n`.
//!
//! Everything here comes from `dem_api`: the records (`LawInput`, `LawOutput`), the SDK
//! (`Law`, `Param`, `slots!`, `export_plugin!`) and the law parts (`NormalForce`,
//! `SpringSlider`, material-pair helpers). See dem's `docs/writing-plugins.md`.

use dem_api::sdk::parts::{
    damping_ratio, effective_young, pair_friction, viscous_coefficient, NormalForce, SpringSlider,
};
use dem_api::sdk::{Law, Param};
use dem_api::{LawInput, LawOutput, LawPair, Vec3};
use serde::{Deserialize, Serialize};

/// Parameters, from the scene's `params: (...)`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Normal stiffness, N/m; absent: `2 E* R*`.
    pub kn: Option<f64>,
    /// Tangential / normal stiffness.
    pub kt_kn: f64,
    /// Coefficient of restitution in (0, 1].
    pub restitution: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            kn: None,
            kt_kn: 0.25,
            restitution: 1.0,
        }
    }
}

dem_api::slots! {
    /// Computed once per contact, when it is created.
    pub struct Constants {
        /// Normal stiffness, N/m.
        pub kn: f64,
        /// Viscous coefficient, N s/m.
        pub eta: f64,
        /// Friction coefficient.
        pub mu: f64,
    }
}

/// The law.
pub struct TemplateLaw {
    p: Params,
    zeta: f64,
}

impl TemplateLaw {
    fn kn(&self, pair: &LawPair) -> f64 {
        self.p
            .kn
            .unwrap_or_else(|| 2.0 * effective_young(pair) * pair.effective_radius())
    }
}

// State slots: the normal damping force, then the tangential spring.
const T0: usize = NormalForce::SLOTS;
const END: usize = T0 + SpringSlider::<2>::SLOTS;

impl Law for TemplateLaw {
    type Params = Params;
    type Constants = Constants;
    const NAME: &'static str = "Law2_L6Geom_Template";
    const DESCRIPTION: &'static str =
        "Template law: linear spring-dashpot, Coulomb tangential spring.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "kn",
            unit: "N/m",
            doc: "normal stiffness; default 2 E* R*",
        },
        Param {
            name: "kt_kn",
            unit: "-",
            doc: "tangential / normal stiffness",
        },
        Param {
            name: "restitution",
            unit: "-",
            doc: "coefficient of restitution in (0, 1]",
        },
    ];
    const STATE_LEN: usize = END;
    /// Names of the state slots, shown with the contacts' state in Python (after the
    /// constants' names): N, N, N, N/m.
    const STATE_NAMES: &'static [&'static str] = &[
        "normal_damping_force",
        "shear_force_y",
        "shear_force_z",
        "shear_stiffness_prev",
    ];

    fn new(p: Params) -> Result<Self, String> {
        if !(p.restitution > 0.0 && p.restitution <= 1.0) {
            return Err(format!(
                "restitution must be in (0, 1], got {}",
                p.restitution
            ));
        }
        if !(p.kt_kn >= 0.0 && p.kt_kn.is_finite()) {
            return Err(format!("kt_kn must be >= 0, got {}", p.kt_kn));
        }
        let zeta = damping_ratio(p.restitution);
        Ok(TemplateLaw { p, zeta })
    }

    fn constants(&self, input: &LawInput) -> Constants {
        let kn = self.kn(&input.pair);
        Constants {
            kn,
            eta: viscous_coefficient(self.zeta, input.pair.effective_mass(), kn),
            mu: pair_friction(&input.pair),
        }
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        self.kn(pair)
    }

    fn law(&self, input: &LawInput, c: &Constants, state: &mut [f64]) -> LawOutput {
        let g = &input.geom; // local frame: x along the normal (body 1 to body 2)
        let last = input.is_last != 0; // the contact ends: no force, book the last interval
        let delta = if last { 0.0 } else { (-g.u.x).max(0.0) };
        let f_el = c.kn * delta;
        let (f_n, damping) = NormalForce::step(
            f_el,
            -c.eta * g.u_dot.x,
            false,
            last,
            g.u_dot.x,
            input.dt,
            &mut state[..T0],
        );
        let t = SpringSlider::<2>::step(
            self.p.kt_kn * c.kn,
            [g.u_dot.y, g.u_dot.z],
            input.dt,
            c.mu * f_n,
            &mut state[T0..END],
        );
        LawOutput {
            force: Vec3::new(f_n, t.force[0], t.force[1]), // on body 2, local frame
            torque: Vec3::ZERO,
            elastic: 0.5 * c.kn * delta * delta + t.elastic,
            friction: t.dissipated,
            damping,
        }
    }
}

dem_api::export_plugin! { geometry: [], laws: [TemplateLaw] }

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::Material;

    #[test]
    fn overlap_gives_a_repulsive_force_on_body_2() {
        let law = TemplateLaw::new(Params {
            kn: Some(1e4),
            ..Default::default()
        })
        .unwrap();
        let mut input = LawInput {
            dt: 1e-5,
            is_new: 1,
            ..Default::default()
        };
        input.pair.mass = [1.0, 1.0];
        input.pair.radius = [0.01, 0.01];
        input.pair.material = [Material {
            density: 1000.0,
            young: 1e6,
            poisson: 0.3,
            friction: 0.5,
        }; 2];
        input.geom.u.x = -1e-4; // 0.1 mm overlap
        let c = law.constants(&input);
        let mut state = [0.0; END];
        let out = law.law(&input, &c, &mut state);
        assert!((out.force.x - 1.0).abs() < 1e-12); // 1e4 N/m * 1e-4 m
        assert!((out.elastic - 5e-5).abs() < 1e-15);
    }
}
