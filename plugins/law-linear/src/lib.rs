//! `Law2_L6Geom_LinearElPl`: linear elastic / Coulomb-plastic contact (Cundall-Strack, as
//! Woo's IdealElPl), with optional normal viscous damping set by a coefficient of
//! restitution, and optional rolling and twisting resistance.
//!
//! Normal: `F_n = -k_n u_n - eta u_n_dot`, with `k_n` the series combination of `2 E_i r_i`
//! of both bodies (a wall contributes an infinite spring), or the fixed `kn` parameter;
//! `eta = 2 zeta sqrt(m* k_n)`. Unless `attraction` is set, the total normal force is
//! clamped at zero (no pull); the clamped part is booked as damping, so the ledger still
//! closes. `zeta` is such that a normal impact rebounds with exactly the requested
//! restitution `e` (closed form, `dem_api::sdk::parts::restitution`): clamped,
//! `e = exp(-2 zeta acos(zeta) / sqrt(1 - zeta^2))` (e below exp(-2) needs `zeta > 1`);
//! with attraction `e = exp(-pi zeta / sqrt(1 - zeta^2))`. `damping_from: Oscillator`
//! takes the latter's `zeta` whatever the clamping (Yade's and LAMMPS' definition: clamped
//! impacts then rebound faster, 0.550 for 0.5). The Coulomb limit is `mu` times the normal
//! force the law returns (clamped, so never negative).
//!
//! Tangential: incremental spring `F_t -= k_t u_t_dot dt` in the contact frame (which L6Geom
//! carries with the bodies), limited to `mu F_n`, `mu` the smaller friction of the two
//! materials (or the `friction` parameter), `F_n` the normal force the law returns.
//!
//! Rolling and twisting: the SDK's resistance models (`Off`, `Cdt(mu: ..)`,
//! `Epsd(mu: ..)`) on the relative rotation rate.
//!
//! Area-scaled stiffness (for polyhedra): with `kn_per_area` (N/m^3) the normal stiffness
//! is `k_n = kn_per_area * A` with `A` the contact area the geometry functor reports
//! (`L6Geom::area`), re-evaluated every step; `k_t = kt_kn k_n` and, with `restitution`,
//! `eta = 2 zeta sqrt(m* k_n)` follow it (with `gamma_n`, `eta` does not depend on the
//! area). Since `k_n` changes with the contact's area, the elastic energy booked,
//! `F_n,el^2 / 2 k_n = k A g^2 / 2`, is a potential of the force only if the functor's gap
//! and area are made for it: the polyhedron functors (`cg2-polyhedron`) report an
//! energy-equivalent gap and area for which it is exactly the stored energy of their
//! force, and the ledger closes; with other functors it closes only approximately. The
//! critical step is estimated with the area `pi r^2`, `r` the larger finite equivalent
//! radius of the pair.
//!
//! The pair constants (`k_n`, `k_t`, `eta`, `mu`, `R*`) are computed once per contact
//! (per unit area with `kn_per_area`).
//! Energy: elastic energy is `F_n,el^2 / 2k_n` plus what the springs store; dissipation is
//! booked with the trapezoid rule over `[t - dt, t]`, which is exactly the work the
//! leap-frog integrator does with these forces, so the ledger closes to round-off apart
//! from the instants of contact onset.

use dem_api::lane::Lane;
use dem_api::sdk::parts::{
    effective_inertia, pair_friction, params, viscous_coefficient, DampingForm, DampingFrom,
    Dashpot, NormalForce, Resistance, SpringSlider, ViscousRate, CONTACT_STATE_NAMES,
};
use dem_api::sdk::{LaneInput, LaneLaw, LaneOutput, Law, Param};
use dem_api::{LawInput, LawOutput, LawPair};
use serde::{Deserialize, Serialize};

/// Parameters of the linear law.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Fixed normal stiffness, N/m; when absent, from Young's moduli and radii.
    pub kn: Option<f64>,
    /// Normal stiffness per unit contact area, N/m^3: `k_n = kn_per_area * A` with `A` the
    /// functor's contact area, each step (instead of `kn`).
    pub kn_per_area: Option<f64>,
    /// Tangential to normal stiffness ratio.
    pub kt_kn: f64,
    /// Requested normal coefficient of restitution in (0, 1]; absent: no damping.
    pub restitution: Option<f64>,
    /// What `restitution` means: what the collision delivers (default), or the classical
    /// linear-oscillator damping ratio.
    pub damping_from: DampingFrom,
    /// Coulomb coefficient; absent: the smaller of the two materials' friction.
    pub friction: Option<f64>,
    /// Let the damped normal force pull (no clamping at zero).
    pub attraction: bool,
    /// Rolling resistance model.
    pub rolling: Resistance,
    /// Twisting resistance model.
    pub twisting: Resistance,
    /// Normal damping rate as LAMMPS `gran/hooke` defines it, 1/s: the viscous force is
    /// `m* gamma_n v_n`; instead of `restitution`.
    pub gamma_n: Option<f64>,
    /// Tangential damping rate, 1/s: a dashpot `m* gamma_t v_t` beside the tangential
    /// spring while it sticks, the total capped at the Coulomb limit.
    pub gamma_t: Option<f64>,
    /// LAMMPS' `gran/hertz/history`: stiffnesses and damping rates are multiplied by
    /// `sqrt(overlap R*)` at every step (then `kn` is in Pa, `gamma_n`, `gamma_t` in
    /// 1/(m s)).
    pub hertz_factor: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            kn: None,
            kn_per_area: None,
            kt_kn: 0.2,
            restitution: None,
            damping_from: DampingFrom::Collision,
            friction: None,
            attraction: false,
            rolling: Resistance::Off,
            twisting: Resistance::Off,
            gamma_n: None,
            gamma_t: None,
            hertz_factor: false,
        }
    }
}

/// The linear elastic-plastic law.
pub struct LinearElPl {
    p: Params,
    zeta: f64,
}

dem_api::slots! {
    /// Constants of one contact.
    pub struct Constants {
        /// Normal stiffness, N/m.
        pub kn: f64,
        /// Tangential stiffness, N/m.
        pub kt: f64,
        /// Normal viscous coefficient, N s/m.
        pub eta: f64,
        /// Tangential viscous coefficient, N s/m.
        pub eta_t: f64,
        /// Coulomb coefficient.
        pub mu: f64,
        /// Effective radius, m.
        pub r: f64,
        /// Effective inertia for relative rotation, kg m^2.
        pub i: f64,
    }
}

impl LinearElPl {
    /// Normal stiffness of a pair, N/m.
    fn kn(&self, pair: &LawPair) -> f64 {
        if let Some(k) = self.p.kn_per_area {
            let r = |i: usize| {
                let r = pair.radius[i];
                if r.is_finite() {
                    r
                } else {
                    0.0
                }
            };
            let r = r(0).max(r(1));
            return k * std::f64::consts::PI * r * r;
        }
        self.p.kn.unwrap_or_else(|| {
            let k = |i: usize| 2.0 * pair.material[i].young * pair.radius[i];
            let (k1, k2) = (k(0), k(1));
            match (k1.is_finite(), k2.is_finite()) {
                (true, true) => k1 * k2 / (k1 + k2),
                (true, false) => k1,
                (false, true) => k2,
                (false, false) => f64::INFINITY,
            }
        })
    }
}

impl LinearElPl {
    /// The normal rate the dashpot acts with: with a restitution the collision delivers,
    /// the rate at `t` ([`ViscousRate`]); otherwise (`gamma_n`, or `damping_from:
    /// Oscillator`, as LAMMPS and Yade do) `u_dot.x`, at `t - dt/2`.
    #[inline(always)]
    fn viscous_rate<V: Lane>(&self, g: &LaneInput<V>, state: &mut [V]) -> V {
        if self.p.restitution.is_some() && self.p.damping_from == DampingFrom::Collision {
            ViscousRate::at_t(g.new, g.u[0], g.u_dot[0], g.dt, DampingForm::Linear, state)
        } else {
            g.u_dot[0]
        }
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

impl Law for LinearElPl {
    type Params = Params;
    type Constants = Constants;
    const NAME: &'static str = "Law2_L6Geom_LinearElPl";
    const DESCRIPTION: &'static str = "Linear spring-dashpot normal force (no attraction by \
        default) and incremental tangential spring with Coulomb slip; damping from a requested \
        restitution coefficient; optional rolling and twisting resistance; energy booked for \
        the ledger.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "kn",
            unit: "N/m",
            doc: "fixed normal stiffness; default: series of 2 E_i r_i",
        },
        Param {
            name: "kn_per_area",
            unit: "N/m^3",
            doc: "normal stiffness per unit contact area (k_n = kn_per_area * area, each \
                  step; for polyhedra), instead of kn",
        },
        Param {
            name: "kt_kn",
            unit: "-",
            doc: "tangential / normal stiffness ratio",
        },
        params::RESTITUTION,
        params::DAMPING_FROM,
        params::FRICTION,
        Param {
            name: "attraction",
            unit: "flag",
            doc: "allow the damped normal force to pull",
        },
        params::ROLLING,
        params::TWISTING,
        Param {
            name: "gamma_n",
            unit: "1/s",
            doc: "normal damping as LAMMPS gran/hooke defines it, force m* gamma_n v_n; \
                  instead of restitution",
        },
        Param {
            name: "gamma_t",
            unit: "1/s",
            doc: "tangential dashpot m* gamma_t v_t beside the spring, capped at the \
                  Coulomb limit (LAMMPS dampflag 1)",
        },
        Param {
            name: "hertz_factor",
            unit: "flag",
            doc: "multiply stiffnesses and damping by sqrt(overlap R*) as LAMMPS \
                  gran/hertz/history (kn then in Pa, gamma in 1/(m s))",
        },
    ];
    const STATE_LEN: usize = END;
    const STATE_NAMES: &'static [&'static str] = STATE_NAMES;

    fn new(p: Params) -> Result<Self, String> {
        if let Some(k) = p.kn {
            if !(k > 0.0 && k.is_finite()) {
                return Err(format!("kn must be positive and finite, got {k}"));
            }
        }
        if let Some(k) = p.kn_per_area {
            if !(k > 0.0 && k.is_finite()) {
                return Err(format!("kn_per_area must be positive and finite, got {k}"));
            }
            if p.kn.is_some() {
                return Err("give either kn or kn_per_area, not both".into());
            }
            if p.hertz_factor {
                return Err("kn_per_area and hertz_factor do not combine".into());
            }
        }
        if !(p.kt_kn >= 0.0 && p.kt_kn.is_finite()) {
            return Err(format!("kt_kn must be >= 0, got {}", p.kt_kn));
        }
        let zeta = match p.restitution {
            None => 0.0,
            Some(e) if e > 0.0 && e <= 1.0 => {
                if p.hertz_factor && p.damping_from == DampingFrom::Collision {
                    return Err(
                        "restitution with hertz_factor: the damping then grows like \
                        sqrt(overlap) and the rebound depends on the impact speed, so no \
                        damping delivers a given restitution; write damping_from: Oscillator \
                        (LAMMPS' definition) or use gamma_n"
                            .into(),
                    );
                }
                p.damping_from
                    .damping_ratio(e, DampingForm::Linear, p.attraction)
            }
            Some(e) => return Err(format!("restitution must be in (0, 1], got {e}")),
        };
        for (name, g) in [("gamma_n", p.gamma_n), ("gamma_t", p.gamma_t)] {
            if let Some(g) = g {
                if !(g >= 0.0 && g.is_finite()) {
                    return Err(format!("{name} must be >= 0 and finite, got {g}"));
                }
            }
        }
        if p.gamma_n.is_some() && p.restitution.is_some() {
            return Err("give either restitution or gamma_n, not both".into());
        }
        if let Some(mu) = p.friction {
            if mu.is_nan() || mu < 0.0 {
                return Err(format!("friction must be >= 0, got {mu}"));
            }
        }
        p.rolling.validate("rolling")?;
        p.twisting.validate("twisting")?;
        Ok(LinearElPl { p, zeta })
    }

    fn constants(&self, input: &LawInput) -> Constants {
        let pair = &input.pair;
        // Per unit area with `kn_per_area` (scaled by the area in `law`).
        let kn = self.p.kn_per_area.unwrap_or_else(|| self.kn(pair));
        let m = pair.effective_mass();
        Constants {
            kn,
            kt: kn * self.p.kt_kn,
            eta: match self.p.gamma_n {
                Some(g) => m * g,
                None => viscous_coefficient(self.zeta, m, kn),
            },
            eta_t: self.p.gamma_t.map_or(0.0, |g| m * g),
            mu: self.p.friction.unwrap_or_else(|| pair_friction(pair)),
            r: pair.effective_radius(),
            i: effective_inertia(pair),
        }
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        if self.p.hertz_factor {
            // Tangent stiffness 3/2 kn sqrt(R* delta) at an overlap of 1 % of R*.
            0.15 * self.kn(pair) * pair.effective_radius()
        } else {
            self.kn(pair)
        }
    }

    fn law(&self, input: &LawInput, c: &Constants, state: &mut [f64]) -> LawOutput {
        dem_api::sdk::one_lane(self, input, c, state)
    }
}

/// The step, written once for one contact (`V = f64`) and for four at a time.
impl LaneLaw for LinearElPl {
    #[inline(always)]
    fn law_lanes<V: Lane>(&self, g: &LaneInput<V>, c: &[V], state: &mut [V]) -> LaneOutput<V> {
        let c = Constants::<V>::from_slots(c);
        let (zero, one) = (V::splat(0.0), V::splat(1.0));
        let dt = g.dt;
        // On the last call of a contact its force is gone; what remains to book is the
        // dissipation of the final interval.
        let last = g.last;
        let gap = g.u[0];
        // LAMMPS' Hertzian variant scales every coefficient by sqrt(overlap R*).
        let scale = if self.p.hertz_factor {
            ((-gap).max(zero) * c.r).sqrt()
        } else {
            one
        };
        // With `kn_per_area` the constants are per unit area: stiffnesses scale with the
        // contact area, the restitution's viscous coefficient with its square root.
        let (area_k, area_eta) = match self.p.kn_per_area {
            None => (one, one),
            Some(_) => {
                let a = g.area.max(zero);
                (
                    a,
                    if self.p.gamma_n.is_some() {
                        one
                    } else {
                        a.sqrt()
                    },
                )
            }
        };
        let (kn, kt, eta, eta_t) = (
            c.kn * scale * area_k,
            c.kt * scale * area_k,
            c.eta * scale * area_eta,
            c.eta_t * scale,
        );
        let pressed = V::and(gap.lt(zero), V::not(last));
        let f_el = V::select(pressed, -kn * gap, zero);
        // Stored energy: k delta^2 / 2, or with the Hertz factor 2/5 k sqrt(R*) delta^(5/2);
        // none without force (also a zero-area contact with `kn_per_area`).
        let stored = if self.p.hertz_factor {
            V::splat(0.4) * f_el * (-gap).max(zero)
        } else {
            V::select(f_el.ne(zero), f_el * f_el / (V::splat(2.0) * kn), zero)
        };
        let rate = self.viscous_rate(g, &mut state[V0..T0]);
        let (f_n, damping) = NormalForce::step(
            f_el,
            -eta * rate,
            self.p.attraction,
            last,
            g.u_dot[0],
            dt,
            &mut state[N0..T0],
        );
        let rate_t = [g.u_dot[1], g.u_dot[2]];
        let limit = c.mu * f_n.max(zero);
        let t = SpringSlider::<2>::step(kt, rate_t, dt, limit, &mut state[T0..D0]);
        // The tangential dashpot of the contacts with one; the others keep its slots
        // (without `gamma_t`, no contact has one: its slots are out of use).
        let (f_t, t_damping) = if self.p.gamma_t.is_some() {
            let damped = eta_t.gt(zero);
            let kept = [state[D0], state[D0 + 1]];
            let (f_d, d_damping) =
                Dashpot::<2>::step(&t, eta_t, rate_t, dt, limit, &mut state[D0..R0]);
            for (s, k) in state[D0..R0].iter_mut().zip(kept) {
                *s = V::select(damped, *s, k);
            }
            (
                [0, 1].map(|i| V::select(damped, f_d[i], t.force[i])),
                V::select(damped, d_damping, zero),
            )
        } else {
            (t.force, zero)
        };
        let k_rot = c.kn * area_k;
        let roll = self.p.rolling.step(
            [g.phi_dot[1], g.phi_dot[2]],
            f_n,
            k_rot,
            c.r,
            c.i,
            dt,
            &mut state[R0..W0],
        );
        let twist = self.p.twisting.step(
            [g.phi_dot[0]],
            f_n,
            k_rot,
            c.r,
            c.i,
            dt,
            &mut state[W0..END],
        );
        LaneOutput {
            force: [f_n, f_t[0], f_t[1]],
            torque: [twist.force[0], roll.force[0], roll.force[1]],
            elastic: stored + t.elastic + roll.elastic + twist.elastic,
            friction: t.dissipated + roll.dissipated + twist.dissipated,
            damping: damping + t_damping,
        }
    }

    /// The normal force's and the tangential spring's slots, and those of the parts the
    /// parameters switch on.
    fn state_in_use(&self) -> u64 {
        let slots = |from: usize, to: usize| ((1u64 << (to - from)) - 1) << from;
        let p = &self.p;
        let mut used = slots(N0, V0) | slots(T0, D0);
        if p.restitution.is_some() && p.damping_from == DampingFrom::Collision {
            used |= slots(V0, T0);
        }
        if p.gamma_t.is_some() {
            used |= slots(D0, R0);
        }
        if !matches!(p.rolling, Resistance::Off) {
            used |= slots(R0, W0);
        }
        if !matches!(p.twisting, Resistance::Off) {
            used |= slots(W0, END);
        }
        used
    }
}

dem_api::export_plugin! { geometry: [], laws: [], lane_laws: [LinearElPl] }

#[cfg(test)]
mod tests;
