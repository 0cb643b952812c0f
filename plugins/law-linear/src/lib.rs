//! `Law2_L6Geom_LinearElPl`: linear elastic / Coulomb-plastic contact (Cundall-Strack, as
//! Woo's IdealElPl), with optional normal viscous damping set by a coefficient of
//! restitution.
//!
//! Normal: `F_n = -k_n u_n - eta u_n_dot`, with `k_n` the series combination of `2 E_i r_i`
//! of both bodies (a wall contributes an infinite spring), or the fixed `kn` parameter;
//! `eta = 2 zeta sqrt(m* k_n)`, `zeta = -ln e / sqrt(ln^2 e + pi^2)`, which gives the
//! requested restitution `e` to a linear damped oscillator. Unless `attraction` is set,
//! the total normal force is clamped at zero (no pull); the clamped part is booked as
//! damping, so the ledger still closes. With clamping the effective restitution is
//! slightly above `e` (closed form in the test suite).
//!
//! Tangential: incremental spring `F_t -= k_t u_t_dot dt` in the contact frame (which L6Geom
//! carries with the bodies), limited to `mu F_n`, `mu` the smaller friction of the two
//! materials (or the `friction` parameter).
//!
//! Energy: elastic energy is `F_n,el^2 / 2k_n + |F_t|^2 / 2k_t`. Dissipation during the step
//! is booked with the trapezoid rule over `[t - dt, t]` (the force of the previous step is
//! kept in the state), which is exactly the work the leap-frog integrator does with these
//! forces, so the ledger closes to round-off apart from the instants of contact onset.
//!
//! State slots: `[F_t,y, F_t,z, F_damping,x]` (N, local frame).

use dem_api::sdk::{Law, Param};
use dem_api::{LawInput, LawOutput, LawPair, Vec3};
use serde::{Deserialize, Serialize};

/// Parameters of the linear law.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Fixed normal stiffness, N/m; when absent, from Young's moduli and radii.
    pub kn: Option<f64>,
    /// Tangential to normal stiffness ratio.
    pub kt_kn: f64,
    /// Requested normal coefficient of restitution in (0, 1]; absent: no damping.
    pub restitution: Option<f64>,
    /// Coulomb coefficient; absent: the smaller of the two materials' friction.
    pub friction: Option<f64>,
    /// Let the damped normal force pull (no clamping at zero).
    pub attraction: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            kn: None,
            kt_kn: 0.2,
            restitution: None,
            friction: None,
            attraction: false,
        }
    }
}

/// The linear elastic-plastic law.
pub struct LinearElPl {
    p: Params,
    zeta: f64,
}

impl LinearElPl {
    /// Normal stiffness of a pair, N/m.
    fn kn(&self, pair: &LawPair) -> f64 {
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

/// Damping ratio giving restitution `e` to a linear damped oscillator.
pub fn damping_ratio(e: f64) -> f64 {
    let l = e.ln();
    -l / (l * l + std::f64::consts::PI.powi(2)).sqrt()
}

impl Law for LinearElPl {
    type Params = Params;
    const NAME: &'static str = "Law2_L6Geom_LinearElPl";
    const DESCRIPTION: &'static str = "Linear spring-dashpot normal force (no attraction by \
        default) and incremental tangential spring with Coulomb slip; damping from a requested \
        restitution coefficient; energy booked for the ledger.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "kn",
            unit: "N/m",
            doc: "fixed normal stiffness; default: series of 2 E_i r_i",
        },
        Param {
            name: "kt_kn",
            unit: "-",
            doc: "tangential / normal stiffness ratio",
        },
        Param {
            name: "restitution",
            unit: "-",
            doc: "normal coefficient of restitution e in (0,1]; none = undamped",
        },
        Param {
            name: "friction",
            unit: "-",
            doc: "Coulomb coefficient; default min of the materials'",
        },
        Param {
            name: "attraction",
            unit: "flag",
            doc: "allow the damped normal force to pull",
        },
    ];
    const STATE_LEN: usize = 3;

    fn new(p: Params) -> Result<Self, String> {
        if let Some(k) = p.kn {
            if !(k > 0.0 && k.is_finite()) {
                return Err(format!("kn must be positive and finite, got {k}"));
            }
        }
        if !(p.kt_kn >= 0.0 && p.kt_kn.is_finite()) {
            return Err(format!("kt_kn must be >= 0, got {}", p.kt_kn));
        }
        let zeta = match p.restitution {
            None => 0.0,
            Some(e) if e > 0.0 && e <= 1.0 => damping_ratio(e),
            Some(e) => return Err(format!("restitution must be in (0, 1], got {e}")),
        };
        if let Some(mu) = p.friction {
            if mu.is_nan() || mu < 0.0 {
                return Err(format!("friction must be >= 0, got {mu}"));
            }
        }
        Ok(LinearElPl { p, zeta })
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        self.kn(pair)
    }

    fn law(&self, input: &LawInput, state: &mut [f64]) -> LawOutput {
        let g = &input.geom;
        let dt = input.dt;
        let kn = self.kn(&input.pair);
        let kt = kn * self.p.kt_kn;

        // Normal: elastic part acts only in overlap; damping while in contact.
        // On the last call of a contact its force is gone; what remains to book is the
        // dissipation of the final interval.
        let last = input.is_last != 0;
        let f_el = if g.u.x < 0.0 && !last {
            -kn * g.u.x
        } else {
            0.0
        };
        let eta = 2.0 * self.zeta * (input.pair.effective_mass() * kn).sqrt();
        let mut f_n = f_el - eta * g.u_dot.x;
        if (!self.p.attraction && f_n < 0.0) || last {
            f_n = 0.0;
        }
        let f_damp = f_n - f_el;
        let damping = -0.5 * (state[2] + f_damp) * g.u_dot.x * dt;
        state[2] = f_damp;

        // Tangential: incremental spring, Coulomb limit.
        let mu = self.p.friction.unwrap_or(
            input.pair.material[0]
                .friction
                .min(input.pair.material[1].friction),
        );
        let prev = [state[0], state[1]];
        let mut ft = [prev[0] - kt * g.u_dot.y * dt, prev[1] - kt * g.u_dot.z * dt];
        let trial = ft;
        let limit = mu * f_n.max(0.0);
        let size = (ft[0] * ft[0] + ft[1] * ft[1]).sqrt();
        let mut friction = 0.0;
        if size > limit {
            let s = if size > 0.0 { limit / size } else { 0.0 };
            ft = [ft[0] * s, ft[1] * s];
            if kt > 0.0 {
                friction = ((prev[0] + ft[0]) * (trial[0] - ft[0])
                    + (prev[1] + ft[1]) * (trial[1] - ft[1]))
                    / (2.0 * kt);
            }
        }
        state[0] = ft[0];
        state[1] = ft[1];

        let elastic = f_el * f_el / (2.0 * kn)
            + if kt > 0.0 {
                (ft[0] * ft[0] + ft[1] * ft[1]) / (2.0 * kt)
            } else {
                0.0
            };
        LawOutput {
            force: Vec3::new(f_n, ft[0], ft[1]),
            torque: Vec3::ZERO,
            elastic,
            friction,
            damping,
        }
    }
}

dem_api::export_plugin! { geometry: [], laws: [LinearElPl] }

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::{L6Geom, Material};

    fn input(u: Vec3, u_dot: Vec3) -> LawInput {
        let m = Material {
            density: 1000.0,
            young: 1e6,
            poisson: 0.3,
            friction: 0.5,
        };
        LawInput {
            geom: L6Geom {
                u,
                u_dot,
                ..Default::default()
            },
            pair: LawPair {
                radius: [0.01, 0.01],
                mass: [1.0, 1.0],
                material: [m, m],
            },
            dt: 1e-3,
            ..Default::default()
        }
    }

    #[test]
    fn stiffness_from_young_modulus_in_series() {
        let law = LinearElPl::new(Params::default()).unwrap();
        let inp = input(Vec3::new(-1e-4, 0.0, 0.0), Vec3::ZERO);
        // 2 E r = 2e4 per body, in series 1e4 N/m.
        assert!((law.stiffness(&inp.pair) - 1e4).abs() < 1e-9);
        let mut s = [0.0; 3];
        let out = law.law(&inp, &mut s);
        assert!((out.force.x - 1.0).abs() < 1e-12);
        assert!((out.elastic - 0.5 * 1e4 * 1e-8).abs() < 1e-18);
    }

    #[test]
    fn coulomb_limit_and_booked_slip() {
        let law = LinearElPl::new(Params {
            kn: Some(1000.0),
            kt_kn: 1.0,
            ..Default::default()
        })
        .unwrap();
        let mut s = [0.0; 3];
        // F_n = 1 N, mu = 0.5; a large slide must be capped at 0.5 N, opposing the motion.
        let out = law.law(
            &input(Vec3::new(-1e-3, 0.0, 0.0), Vec3::new(0.0, 10.0, 0.0)),
            &mut s,
        );
        assert!((out.force.y + 0.5).abs() < 1e-12);
        assert!(out.friction > 0.0);
        // Work done against the contact = stored + dissipated (trapezoid, from zero force).
        let work = 0.5 * (0.0 + 0.5) * 10.0 * 1e-3;
        let stored_t = 0.25 / 2000.0;
        assert!((work - stored_t - out.friction).abs() < 1e-15);
    }

    #[test]
    fn no_attraction_unless_asked() {
        let mut s = [0.0; 3];
        let sep = input(Vec3::new(-1e-6, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0));
        let law = LinearElPl::new(Params {
            restitution: Some(0.5),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(law.law(&sep, &mut s).force.x, 0.0);
        let law = LinearElPl::new(Params {
            restitution: Some(0.5),
            attraction: true,
            ..Default::default()
        })
        .unwrap();
        assert!(law.law(&sep, &mut [0.0; 3]).force.x < 0.0);
    }

    #[test]
    fn last_call_books_the_final_interval_and_releases_the_springs() {
        let law = LinearElPl::new(Params {
            kn: Some(1000.0),
            kt_kn: 1.0,
            restitution: Some(0.5),
            ..Default::default()
        })
        .unwrap();
        let mut s = [0.0; 3];
        // In contact and sliding: a damping force and a tangential force are stored.
        law.law(
            &input(Vec3::new(-1e-3, 0.0, 0.0), Vec3::new(-0.1, 1e-3, 0.0)),
            &mut s,
        );
        let (f_damp, f_t) = (s[2], s[0]);
        assert!(f_damp > 0.0 && f_t < 0.0);
        // Last call: separated, moving apart at 0.2 m/s, no further slide.
        let mut last = input(Vec3::new(1e-9, 0.0, 0.0), Vec3::new(0.2, 0.0, 0.0));
        last.is_last = 1;
        let out = law.law(&last, &mut s);
        assert_eq!(out.force, Vec3::ZERO);
        assert_eq!(out.elastic, 0.0);
        // Second half of the trapezoid: the damping force of the previous step alone.
        assert!((out.damping - (-0.5 * f_damp * 0.2 * 1e-3)).abs() < 1e-18);
        // The tangential spring is released through slip: its stored energy is dissipated.
        assert!((out.friction - f_t * f_t / 2000.0).abs() < 1e-15);
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(LinearElPl::new(Params {
            restitution: Some(0.0),
            ..Default::default()
        })
        .is_err());
        assert!(LinearElPl::new(Params {
            kn: Some(-1.0),
            ..Default::default()
        })
        .is_err());
    }
}
