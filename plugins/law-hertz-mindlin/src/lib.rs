//! `Law2_L6Geom_HertzMindlin`: Hertz-Mindlin (no-slip) contact with restitution-based
//! damping, as in EDEM and LIGGGHTS' `hertz` model with `tangential history`.
//!
//! With `delta = -u_n` the overlap (m), the pair constants (computed once per contact)
//! `E*`, `G*` (Mindlin's combination), `R*` and `m*` (a wall: infinite radius and mass):
//!
//! - normal: `F_n = (4/3) E* sqrt(R*) delta^(3/2) - 2 sqrt(5/6) beta' sqrt(S_n m*) u_n_dot`,
//!   `S_n = 2 E* sqrt(R* delta)`; clamped at zero unless `attraction`; the clamped part is
//!   booked as damping. The damping ratio `beta'` is the one for which a normal impact
//!   rebounds with exactly the requested restitution `e`, clamped or not: the rebound of
//!   this force depends on `beta'` only (not on the impact speed or the pair), so
//!   `beta'(e)` is found once, when the law is built, by a root solve on the dimensionless
//!   equation of motion (`dem_api::sdk::parts::restitution`). `damping_from: Oscillator`
//!   takes EDEM's `beta' = -ln e / sqrt(ln^2 e + pi^2)` instead: exact with attraction,
//!   higher when clamped (0.253 for 0.1, 0.550 for 0.5, 0.902 for 0.9).
//! - tangential: incremental spring of stiffness `S_t = 8 G* sqrt(R* delta)` in the contact
//!   frame, Coulomb limit `mu F_n` with `F_n` the normal force the law returns (clamped,
//!   so never negative; with `attraction`, 0 while it pulls); when `S_t` falls (unloading) the stored force is scaled
//!   by `S_t / S_t,prev` (the "rescale" behaviour), so that unloading never returns more
//!   energy than loading stored; slip and rescaling losses are booked as friction.
//!   Tangential damping (unless `tangential_damping: false`), as EDEM:
//!   `-2 sqrt(5/6) beta' sqrt(S_t m*) u_t_dot` while the spring sticks, the total never
//!   above `mu F_n`; booked as damping.
//! - rolling and twisting: the SDK's resistance models, with `k_n = S_n`.
//!
//! The critical time step uses `S_n` at the overlap `stiffness_overlap R*` (default 1 %
//! of `R*`): for faster impacts choose a fixed time step.

use dem_api::lane::Lane;
use dem_api::sdk::parts::{
    effective_inertia, effective_shear, pair_friction, params, viscous_coefficient, DampingForm,
    DampingFrom, Dashpot, Hertz, NormalForce, Resistance, SpringSlider, ViscousRate,
    CONTACT_STATE_NAMES,
};
use dem_api::sdk::{LaneInput, LaneLaw, LaneOutput, Law, Param};
use dem_api::{LawInput, LawOutput, LawPair};
use serde::{Deserialize, Serialize};

/// Parameters of the Hertz-Mindlin law.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Requested normal coefficient of restitution in (0, 1]; absent: no damping.
    pub restitution: Option<f64>,
    /// What `restitution` means: what the collision delivers (default), or EDEM's and
    /// LIGGGHTS' damping ratio.
    pub damping_from: DampingFrom,
    /// Coulomb coefficient; absent: the smaller of the two materials' friction.
    pub friction: Option<f64>,
    /// Let the damped normal force pull (no clamping at zero).
    pub attraction: bool,
    /// Damp the tangential spring with the normal damping ratio.
    pub tangential_damping: bool,
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
            restitution: None,
            damping_from: DampingFrom::Collision,
            friction: None,
            attraction: false,
            tangential_damping: true,
            rolling: Resistance::Off,
            twisting: Resistance::Off,
            stiffness_overlap: 0.01,
        }
    }
}

/// The Hertz-Mindlin law.
pub struct HertzMindlin {
    p: Params,
    zeta: f64,
}

dem_api::slots! {
    /// Constants of one contact.
    pub struct Constants {
        /// Hertz coefficient `(4/3) E* sqrt(R*)`, N/m^1.5.
        pub kh: f64,
        /// `8 G* sqrt(R*)`: `S_t = st sqrt(delta)`, N/m^1.5.
        pub st: f64,
        /// `2 sqrt(5/6) beta' sqrt(m*)`: damping coefficient over `sqrt(S_n)`, kg^0.5.
        pub cd: f64,
        /// Coulomb coefficient.
        pub mu: f64,
        /// Effective radius, m.
        pub r: f64,
        /// Effective inertia for relative rotation, kg m^2.
        pub i: f64,
    }
}

// State slots: normal damping force, previous normal rate, tangential spring and dashpot, rolling, twisting.
const N0: usize = 0;
const V0: usize = N0 + NormalForce::SLOTS;
const T0: usize = V0 + ViscousRate::SLOTS;
const D0: usize = T0 + SpringSlider::<2>::SLOTS;
const R0: usize = D0 + Dashpot::<2>::SLOTS;
const W0: usize = R0 + Resistance::slots(2);
const END: usize = W0 + Resistance::slots(1);

/// Names of the state slots: the SDK parts' stacked layout, which these are.
const STATE_NAMES: &[&str] = &CONTACT_STATE_NAMES;
const _: () = assert!(STATE_NAMES.len() == END, "a name per state slot");

impl Law for HertzMindlin {
    type Params = Params;
    type Constants = Constants;
    const NAME: &'static str = "Law2_L6Geom_HertzMindlin";
    const DESCRIPTION: &'static str = "Hertz normal force with restitution-based damping \
        (EDEM/LIGGGHTS form), Mindlin no-slip tangential spring with Coulomb limit and \
        rescaling on unloading; optional rolling and twisting resistance; energy booked for \
        the ledger.";
    const PARAMS: &'static [Param] = &[
        params::RESTITUTION,
        params::DAMPING_FROM,
        params::FRICTION,
        Param {
            name: "attraction",
            unit: "flag",
            doc: "allow the damped normal force to pull (then the restitution is exactly e)",
        },
        Param {
            name: "tangential_damping",
            unit: "flag",
            doc: "damp the tangential spring as the normal one (EDEM); default true",
        },
        params::ROLLING,
        params::TWISTING,
        Param {
            name: "stiffness_overlap",
            unit: "-",
            doc: "overlap / R* at which S_n sets the critical time step",
        },
    ];
    const STATE_LEN: usize = END;
    const STATE_NAMES: &'static [&'static str] = STATE_NAMES;

    fn new(p: Params) -> Result<Self, String> {
        let zeta = match p.restitution {
            None => 0.0,
            Some(e) if e > 0.0 && e <= 1.0 => {
                p.damping_from
                    .damping_ratio(e, DampingForm::Hertz, p.attraction)
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
        Ok(HertzMindlin { p, zeta })
    }

    fn constants(&self, input: &LawInput) -> Constants {
        let pair = &input.pair;
        let r = pair.effective_radius();
        Constants {
            kh: Hertz::of(pair).kh,
            st: 8.0 * effective_shear(pair) * r.sqrt(),
            cd: viscous_coefficient(
                (5.0f64 / 6.0).sqrt() * self.zeta,
                pair.effective_mass(),
                1.0,
            ),
            mu: self.p.friction.unwrap_or_else(|| pair_friction(pair)),
            r,
            i: effective_inertia(pair),
        }
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        Hertz::of(pair).stiffness(self.p.stiffness_overlap * pair.effective_radius())
    }

    fn law(&self, input: &LawInput, c: &Constants, state: &mut [f64]) -> LawOutput {
        dem_api::sdk::one_lane(self, input, c, state)
    }
}

/// The step, written once for one contact (`V = f64`) and for four at a time.
impl LaneLaw for HertzMindlin {
    #[inline(always)]
    fn law_lanes<V: Lane>(&self, g: &LaneInput<V>, c: &[V], state: &mut [V]) -> LaneOutput<V> {
        let c = Constants::<V>::from_slots(c);
        let zero = V::splat(0.0);
        let dt = g.dt;
        let last = g.last;
        // Overlap; on the last call the force is gone and only the final interval is booked.
        let delta = V::select(last, zero, (-g.u[0]).max(zero));
        let hertz = Hertz { kh: c.kh };
        let f_el = hertz.force(delta);
        let s_n = hertz.stiffness(delta);
        let rate = if self.p.damping_from == DampingFrom::Collision {
            ViscousRate::at_t(
                g.new,
                g.u[0],
                g.u_dot[0],
                dt,
                DampingForm::Hertz,
                &mut state[V0..T0],
            )
        } else {
            g.u_dot[0]
        };
        let f_visc = -c.cd * s_n.sqrt() * rate;
        let (f_n, damping) = NormalForce::step(
            f_el,
            f_visc,
            self.p.attraction,
            last,
            g.u_dot[0],
            dt,
            &mut state[N0..T0],
        );
        let s_t = c.st * delta.sqrt();
        let rate_t = [g.u_dot[1], g.u_dot[2]];
        let limit = c.mu * f_n.max(zero);
        let t = SpringSlider::<2>::step(s_t, rate_t, dt, limit, &mut state[T0..D0]);
        let c_t = if self.p.tangential_damping {
            c.cd * s_t.sqrt()
        } else {
            zero
        };
        let (f_t, t_damping) = Dashpot::<2>::step(&t, c_t, rate_t, dt, limit, &mut state[D0..R0]);
        let roll = self.p.rolling.step(
            [g.phi_dot[1], g.phi_dot[2]],
            f_n,
            s_n,
            c.r,
            c.i,
            dt,
            &mut state[R0..W0],
        );
        let twist =
            self.p
                .twisting
                .step([g.phi_dot[0]], f_n, s_n, c.r, c.i, dt, &mut state[W0..END]);
        LaneOutput {
            force: [f_n, f_t[0], f_t[1]],
            torque: [twist.force[0], roll.force[0], roll.force[1]],
            elastic: hertz.energy(delta) + t.elastic + roll.elastic + twist.elastic,
            friction: t.dissipated + roll.dissipated + twist.dissipated,
            damping: damping + t_damping,
        }
    }
}

dem_api::export_plugin! { geometry: [], laws: [], lane_laws: [HertzMindlin] }

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::{L6Geom, Material, Vec3};

    /// Four contacts in one lane give bitwise what each gives alone (the SDK runs batches
    /// four at a time, `law` one contact at a time), with and without tangential damping
    /// and with rolling and twisting resistance.
    #[test]
    fn four_lanes_give_bitwise_what_each_contact_gives_alone() {
        let mut seed = 3u64;
        let mut rand = move |lo: f64, hi: f64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((seed >> 11) as f64 / (1u64 << 53) as f64)
        };
        for p in [
            Params::default(),
            Params {
                tangential_damping: false,
                rolling: Resistance::Cdt { mu: 0.1 },
                twisting: Resistance::Epsd { mu: 0.05 },
                ..Params::default()
            },
        ] {
            let law = HertzMindlin::new(p).unwrap();
            let steps: Vec<[LawInput; 4]> = (0..300)
                .map(|step| {
                    std::array::from_fn(|_| {
                        let mut inp = input(
                            Vec3::new(rand(-1e-5, 1e-6), rand(-1e-6, 1e-6), rand(-1e-6, 1e-6)),
                            Vec3::new(rand(-1.0, 1.0), rand(-1.0, 1.0), rand(-1.0, 1.0)),
                        );
                        inp.geom.phi_dot = Vec3::new(rand(-50.0, 50.0), rand(-50.0, 50.0), 1.0);
                        inp.is_new = u32::from(step == 0);
                        inp.is_last = u32::from(rand(0.0, 1.0) < 0.05);
                        inp
                    })
                })
                .collect();
            dem_api::sdk::lanes_agree(&law, &steps).unwrap();
        }
    }

    fn input(u: Vec3, u_dot: Vec3) -> LawInput {
        let glass = Material {
            density: 2800.0,
            young: 4.8e10,
            poisson: 0.2,
            friction: 0.3,
        };
        LawInput {
            geom: L6Geom {
                u,
                u_dot,
                ..Default::default()
            },
            pair: LawPair {
                radius: [0.01, 0.01],
                mass: [0.01, 0.01],
                material: [glass, glass],
            },
            dt: 1e-7,
            is_new: 1,
            ..Default::default()
        }
    }

    #[test]
    fn glass_constants_and_forces() {
        // EDEM's damping ratio and the L6Geom rate as they stand (the default acts with the
        // rate at t: `ViscousRate`, tested in the SDK).
        let law = HertzMindlin::new(Params {
            restitution: Some(0.5),
            damping_from: DampingFrom::Oscillator,
            ..Default::default()
        })
        .unwrap();
        let l = 0.5f64.ln();
        assert!((law.zeta - (-l / (l * l + std::f64::consts::PI.powi(2)).sqrt())).abs() < 1e-15);
        let inp = input(Vec3::new(-1e-4, 0.0, 0.0), Vec3::new(-1.0, 0.0, 0.0));
        let c = law.constants(&inp);
        // E* = 2.5e10, R* = 5e-3, G* = 2e10 / 3.6.
        assert!((c.kh / (4.0 / 3.0 * 2.5e10 * 5e-3f64.sqrt()) - 1.0).abs() < 1e-14);
        assert!((c.st / (8.0 * 2e10 / 3.6 * 5e-3f64.sqrt()) - 1.0).abs() < 1e-14);
        let mut s = [0.0; END];
        let out = law.law(&inp, &c, &mut s);
        let f_el = c.kh * 1e-6;
        let s_n = 2.0 * 2.5e10 * (5e-3f64 * 1e-4).sqrt();
        let zeta = law.zeta;
        let f_d = 2.0 * (5.0f64 / 6.0).sqrt() * zeta * (s_n * 0.005).sqrt();
        assert!((out.force.x / (f_el + f_d) - 1.0).abs() < 1e-12);
        assert!((out.elastic / (0.4 * f_el * 1e-4) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn tangential_force_is_capped_and_rescaled_on_unloading() {
        let law = HertzMindlin::new(Params::default()).unwrap();
        let mut inp = input(Vec3::new(-1e-4, 0.0, 0.0), Vec3::new(0.0, 1e-3, 0.0));
        let c = law.constants(&inp);
        let mut s = [0.0; END];
        let a = law.law(&inp, &c, &mut s);
        assert!(a.force.y < 0.0 && a.force.y.abs() < 0.3 * a.force.x);
        // Unload to a quarter of the overlap without sliding: S_t halves, so does F_t.
        inp.geom.u = Vec3::new(-0.25e-4, 0.0, 0.0);
        inp.geom.u_dot = Vec3::ZERO;
        let b = law.law(&inp, &c, &mut s);
        assert!((b.force.y / a.force.y - 0.5).abs() < 1e-12);
        assert!(b.friction > 0.0);
        // A long slide is capped at mu F_n.
        inp.geom.u_dot = Vec3::new(0.0, 1e3, 0.0);
        let d = law.law(&inp, &c, &mut s);
        assert!((d.force.y + 0.3 * d.force.x).abs() < 1e-9 * d.force.x);
    }
}
