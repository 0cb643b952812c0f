//! `Law2_L6Geom_CohesiveLinear`: a linear elastic contact with a brittle cohesive bond
//! (a bonded-particle contact: Yade's CohFrict or the parallel bond reduced to one normal
//! and one shear spring).
//!
//! Stiffnesses: `k_n` (N/m) from `kn`, or `2 E* R*` from the two materials; `k_t = kt_kn k_n`.
//! Bond area `A = pi R*^2` (m^2, `R*` the effective radius; against a wall `R*` is the
//! sphere's radius). Let `u_n` be the gap (m, negative in overlap).
//!
//! - **Bond formation.** A contact exists from the gap `reach` (m, the law's interaction
//!   distance) on, but carries no force while the gap is positive and no bond has formed.
//!   The bond forms the first time the surfaces touch (`u_n <= 0`), provided the contact
//!   was created at a time `<= bond_until` (default: always).
//! - **Bonded.** `F_n = -k_n u_n` in compression and in tension, down to
//!   `-F_max`, `F_max = tensile_strength A` (N); `F_t` is an incremental spring
//!   `dF_t = -k_t du_t` up to `F_s = shear_strength A` (N). An elastic pull `-k_n u_n`
//!   beyond `F_max` or a trial shear force beyond `F_s` breaks the bond in that step, for
//!   the rest of the contact's life (a contact that ends and forms again bonds anew,
//!   unless `bond_until` excludes it: state does not outlive a contact).
//! - **Broken (or never bonded).** A linear frictional contact: `F_n = k_n max(-u_n, 0)`
//!   (no pull), `|F_t| <= mu F_n` (Coulomb, `mu` the smaller material friction).
//! - A viscous normal force `-eta du_n/dt`, `eta = 2 damping sqrt(m* k_n)`, acts while
//!   bonded or in overlap.
//!
//! Energy: `elastic` is `F_n^2 / 2k_n + |F_t|^2 / 2k_t`. The energy released when the bond
//! breaks (the stored normal and shear energy that is not returned to the bodies, i.e. the
//! work absorbed over the breaking step minus the change of stored energy) is booked as
//! `friction`, the ledger's channel for rate-independent (plastic) dissipation; so is
//! Coulomb slip. Viscous and clamping losses are `damping`. A bonded contact whose gap
//! reaches `reach` (+ the scene's `contact_eps`) before breaking ends: it counts as broken
//! then and its energy is booked the same way.

use dem_api::sdk::parts::{
    effective_young, pair_friction, viscous_coefficient, work_absorbed, NormalForce, SpringSlider,
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
    /// Tangential / normal stiffness, -.
    pub kt_kn: f64,
    /// Tensile strength of the bond, Pa (force limit `tensile_strength pi R*^2`).
    pub tensile_strength: f64,
    /// Shear strength of the bond, Pa (force limit `shear_strength pi R*^2`).
    pub shear_strength: f64,
    /// Interaction distance, m: gap below which a contact exists.
    pub reach: f64,
    /// Damping ratio of the normal spring, -.
    pub damping: f64,
    /// Only contacts created at a time `<= bond_until` (s) bond; absent: every contact.
    pub bond_until: Option<f64>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            kn: None,
            kt_kn: 0.25,
            tensile_strength: 1e6,
            shear_strength: 1e6,
            reach: 1e-4,
            damping: 0.0,
            bond_until: None,
        }
    }
}

dem_api::slots! {
    /// Computed once per contact, when it is created.
    pub struct Constants {
        /// Normal stiffness, N/m.
        pub kn: f64,
        /// Tangential stiffness, N/m.
        pub kt: f64,
        /// Viscous coefficient, N s/m.
        pub eta: f64,
        /// Friction coefficient, -.
        pub mu: f64,
        /// Tensile force limit of the bond, N.
        pub f_tension: f64,
        /// Shear force limit of the bond, N.
        pub f_shear: f64,
    }
}

/// The law.
pub struct CohesiveLaw {
    p: Params,
}

// State slots: the normal damping force, the tangential spring, then the bond status and
// the previous elastic normal force (N, for the booking of a break).
const T0: usize = NormalForce::SLOTS;
const STATUS: usize = T0 + SpringSlider::<2>::SLOTS;
const FN_PREV: usize = STATUS + 1;
const END: usize = FN_PREV + 1;

/// Names of the state slots (N, N, N, N/m, status, N).
const STATE_NAMES: &[&str] = &[
    "normal_damping_force",
    "shear_force_y",
    "shear_force_z",
    "shear_stiffness_prev",
    "bond_status",
    "normal_force_prev",
];
const _: () = assert!(STATE_NAMES.len() == END, "a name per state slot");

/// Bond status (slot `STATUS`): not formed yet (zero at onset), intact, broken.
const UNBONDED: f64 = 0.0;
const BONDED: f64 = 1.0;
const BROKEN: f64 = 2.0;

impl CohesiveLaw {
    fn kn(&self, pair: &LawPair) -> f64 {
        self.p
            .kn
            .unwrap_or_else(|| 2.0 * effective_young(pair) * pair.effective_radius())
    }
}

impl Law for CohesiveLaw {
    type Params = Params;
    type Constants = Constants;
    const NAME: &'static str = "Law2_L6Geom_CohesiveLinear";
    const DESCRIPTION: &'static str =
        "Linear elastic contact with a brittle cohesive bond: F_n = -k_n u_n also in tension \
         down to -tensile_strength A and an elastic shear spring up to shear_strength A \
         (A = pi R*^2); beyond either limit the bond breaks for good and the contact is \
         linear frictional without pull (Coulomb, mu = smaller material friction). A bond \
         forms when the surfaces first touch; contacts exist from a gap of `reach` on. \
         Energy released at breaking is booked as friction.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "kn",
            unit: "N/m",
            doc: "normal stiffness (compression and tension); default 2 E* R*",
        },
        Param {
            name: "kt_kn",
            unit: "-",
            doc: "tangential / normal stiffness",
        },
        Param {
            name: "tensile_strength",
            unit: "Pa",
            doc: "bond tensile strength; the bond breaks when the pull exceeds \
                  tensile_strength * pi R*^2 (N)",
        },
        Param {
            name: "shear_strength",
            unit: "Pa",
            doc: "bond shear strength; the bond breaks when the tangential force exceeds \
                  shear_strength * pi R*^2 (N)",
        },
        Param {
            name: "reach",
            unit: "m",
            doc: "interaction distance: contacts exist while the gap is below it (plus \
                  contact_eps), so bonds can be pulled open; it should exceed the opening \
                  at break, tensile_strength pi R*^2 / k_n, or bonds end (and count as \
                  broken) at this gap",
        },
        Param {
            name: "damping",
            unit: "-",
            doc: "damping ratio of the normal spring (eta = 2 damping sqrt(m* k_n)), in [0, 1]",
        },
        Param {
            name: "bond_until",
            unit: "s",
            doc: "only contacts created at a time <= bond_until form a bond; default: all",
        },
    ];
    const STATE_LEN: usize = END;
    const STATE_NAMES: &'static [&'static str] = STATE_NAMES;

    fn new(p: Params) -> Result<Self, String> {
        let finite_nonneg = |x: f64| x >= 0.0 && x.is_finite();
        if let Some(kn) = p.kn {
            if !(kn > 0.0 && kn.is_finite()) {
                return Err(format!("kn must be > 0, got {kn}"));
            }
        }
        for (name, v) in [
            ("kt_kn", p.kt_kn),
            ("tensile_strength", p.tensile_strength),
            ("shear_strength", p.shear_strength),
            ("reach", p.reach),
        ] {
            if !finite_nonneg(v) {
                return Err(format!("{name} must be finite and >= 0, got {v}"));
            }
        }
        if !(0.0..=1.0).contains(&p.damping) {
            return Err(format!("damping must be in [0, 1], got {}", p.damping));
        }
        if p.bond_until.is_some_and(f64::is_nan) {
            return Err("bond_until must not be NaN".into());
        }
        Ok(CohesiveLaw { p })
    }

    fn constants(&self, input: &LawInput) -> Constants {
        let pair = &input.pair;
        let kn = self.kn(pair);
        let r = pair.effective_radius();
        let area = std::f64::consts::PI * r * r;
        Constants {
            kn,
            kt: self.p.kt_kn * kn,
            eta: viscous_coefficient(self.p.damping, pair.effective_mass(), kn),
            mu: pair_friction(pair),
            f_tension: self.p.tensile_strength * area,
            f_shear: self.p.shear_strength * area,
        }
    }

    fn interaction_distance(&self) -> f64 {
        self.p.reach
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        self.kn(pair) * self.p.kt_kn.max(1.0)
    }

    fn law(&self, input: &LawInput, c: &Constants, state: &mut [f64]) -> LawOutput {
        let g = &input.geom; // local frame: x along the normal (body 1 to body 2)
        let (dt, last) = (input.dt, input.is_last != 0);
        let u_n = g.u.x;
        let rate_t = [g.u_dot.y, g.u_dot.z];

        // Bond status at the start of the step; a bond forms at the first touch.
        let was_bonded = state[STATUS] == BONDED;
        if state[STATUS] == UNBONDED
            && u_n <= 0.0
            && self.p.bond_until.is_none_or(|t| input.onset.time <= t)
        {
            state[STATUS] = BONDED;
        }
        let mut bonded = state[STATUS] == BONDED;

        // Breaking: the contact's end, a pull beyond the tensile limit, or a trial shear
        // force beyond the shear limit (the spring run on a copy of its state).
        let mut shear_trial = None;
        if bonded {
            let broken = if last || -c.kn * u_n < -c.f_tension {
                true
            } else {
                let mut s = [0.0; SpringSlider::<2>::SLOTS];
                s.copy_from_slice(&state[T0..STATUS]);
                let t = SpringSlider::<2>::step(c.kt, rate_t, dt, f64::INFINITY, &mut s);
                let size = t.force[0].hypot(t.force[1]);
                shear_trial = Some((t, s));
                size > c.f_shear
            };
            if broken {
                state[STATUS] = BROKEN;
                bonded = false;
                shear_trial = None;
            }
        }

        // Normal force: elastic -k_n u_n (pull only while bonded), viscous while bonded or
        // in overlap; zero on the last call.
        let f_el = if last {
            0.0
        } else if bonded {
            -c.kn * u_n
        } else {
            -c.kn * u_n.min(0.0)
        };
        let f_visc = if bonded || u_n < 0.0 {
            -c.eta * g.u_dot.x
        } else {
            0.0
        };
        let (f_n, damping) =
            NormalForce::step(f_el, f_visc, bonded, last, g.u_dot.x, dt, &mut state[..T0]);
        let e_n = 0.5 * f_el * f_el / c.kn;

        // Energy released by the normal spring when the bond breaks: work absorbed over the
        // step (trapezoid) minus the change of stored energy. Zero for an intact spring.
        let mut released = 0.0;
        if was_bonded && !bonded {
            let f_prev = state[FN_PREV];
            let e_prev = 0.5 * f_prev * f_prev / c.kn;
            released = work_absorbed(&[f_prev], &[f_el], &[g.u_dot.x], dt) - (e_n - e_prev);
        }
        state[FN_PREV] = f_el;

        // Tangential spring: the bond's (the trial, within its limit) or Coulomb's, whose
        // dissipation includes the shear energy released at breaking.
        let t = match shear_trial {
            Some((t, s)) => {
                state[T0..STATUS].copy_from_slice(&s);
                t
            }
            None => SpringSlider::<2>::step(
                c.kt,
                rate_t,
                dt,
                c.mu * f_n.max(0.0),
                &mut state[T0..STATUS],
            ),
        };

        LawOutput {
            force: Vec3::new(f_n, t.force[0], t.force[1]), // on body 2, local frame
            torque: Vec3::ZERO,
            elastic: e_n + t.elastic,
            friction: t.dissipated + released,
            damping,
        }
    }
}

dem_api::export_plugin! { geometry: [], laws: [CohesiveLaw] }

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::Material;

    const KN: f64 = 1e4;

    fn law() -> CohesiveLaw {
        CohesiveLaw::new(Params {
            kn: Some(KN),
            kt_kn: 0.5,
            tensile_strength: 1e5,
            shear_strength: 1e5,
            reach: 1e-3,
            ..Default::default()
        })
        .unwrap()
    }

    fn input(u_n: f64, u_n_prev: f64, dt: f64) -> LawInput {
        let mut input = LawInput {
            dt,
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
        input.geom.u.x = u_n;
        input.geom.u_dot.x = (u_n - u_n_prev) / dt;
        input
    }

    #[test]
    fn a_bond_forms_at_touch_pulls_and_breaks_for_good() {
        let law = law();
        let dt = 1e-3;
        let mut state = [0.0; END];
        // Created at a distance: no force, no bond.
        let mut i = input(1e-4, 1e-4, dt);
        i.is_new = 1;
        let c = law.constants(&i);
        // F_max = 1e5 Pa * pi (5 mm)^2 = 7.854 N, opening at break 7.854e-4 m.
        let f_max = 1e5 * std::f64::consts::PI * 2.5e-5;
        assert!((c.f_tension - f_max).abs() < 1e-12);
        let out = law.law(&i, &c, &mut state);
        assert_eq!(out.force.x, 0.0);
        assert_eq!(state[STATUS], UNBONDED);
        // Touch: bonded. Then pulled to 5e-4: -kn u = -5 N, a pull.
        let mut u_prev = 1e-4;
        let mut run = |u: f64, state: &mut [f64; END]| {
            let out = law.law(&input(u, u_prev, dt), &c, state);
            u_prev = u;
            out
        };
        let out = run(-1e-4, &mut state);
        assert_eq!(state[STATUS], BONDED);
        assert!((out.force.x - 1.0).abs() < 1e-12);
        let out = run(5e-4, &mut state);
        assert!((out.force.x + 5.0).abs() < 1e-12, "{out:?}");
        assert!((out.elastic - 0.5 * KN * 25e-8).abs() < 1e-15);
        assert_eq!(out.friction, 0.0);
        // Beyond the opening at break: broken, no pull; released = kn u_prev u / 2.
        let out = run(8e-4, &mut state);
        assert_eq!(state[STATUS], BROKEN);
        assert_eq!(out.force.x, 0.0);
        assert_eq!(out.elastic, 0.0);
        assert!(
            (out.friction - 0.5 * KN * 5e-4 * 8e-4).abs() < 1e-15,
            "{out:?}"
        );
        // Re-approach: no pull at a distance, compression in overlap, and no new bond.
        assert_eq!(run(2e-4, &mut state).force.x, 0.0);
        assert!((run(-2e-4, &mut state).force.x - 2.0).abs() < 1e-12);
        assert_eq!(run(1e-4, &mut state).force.x, 0.0);
        assert_eq!(state[STATUS], BROKEN);
    }

    #[test]
    fn a_late_contact_never_bonds() {
        let law = CohesiveLaw::new(Params {
            kn: Some(KN),
            bond_until: Some(0.5),
            ..Default::default()
        })
        .unwrap();
        let mut i = input(-1e-4, 0.0, 1e-3);
        i.is_new = 1;
        i.onset.time = 1.0;
        let c = law.constants(&i);
        let mut state = [0.0; END];
        law.law(&i, &c, &mut state);
        assert_eq!(state[STATUS], UNBONDED);
        let out = law.law(&input(1e-4, -1e-4, 1e-3), &c, &mut state);
        assert_eq!(out.force.x, 0.0);
    }

    #[test]
    fn bad_parameters_are_refused() {
        for p in [
            Params {
                kn: Some(0.0),
                ..Default::default()
            },
            Params {
                reach: -1.0,
                ..Default::default()
            },
            Params {
                damping: 2.0,
                ..Default::default()
            },
        ] {
            assert!(CohesiveLaw::new(p).is_err());
        }
    }
}
