//! Rolling and twisting resistance: sub-models any law adds to its normal and tangential
//! parts, selected per law in the scene.
//!
//! Both act on the relative rotation of the bodies in the contact frame (`phi_dot` of
//! L6Geom): rolling on its tangential components (y, z), twisting on the normal one (x).
//! The torque limit is `mu R* |F_n|`, `R*` the effective radius (a wall's is infinite, so
//! `R*` is the sphere's radius).
//!
//! - `Cdt` (constant directional torque, model A of Ai et al. 2011): a torque of the
//!   limit's magnitude against the relative rotation rate. A sphere rolling at `v` on a
//!   wall stops after `7 v^2 / (10 mu g)`. Near rest the torque is limited to what stops
//!   the relative rotation within one step (`I* |w| / dt`, `I*` the effective inertia), so
//!   that it does not reverse the rotation and chatter; as the torque lags the motion by a
//!   step, a body held on a slope creeps at a rate proportional to `dt`.
//! - `Epsd` (elastic-plastic spring-dashpot, model C of Ai et al. without the dashpot): an
//!   incremental spring of stiffness `k_r = 2.25 k_n mu^2 R*^2` (`k_n` the normal tangent
//!   stiffness), capped at the limit: it holds a body at rest without chatter.

use super::spring::{SpringOut, SpringSlider};
use super::{norm, work_absorbed};
use crate::lane::Lane;
use serde::{Deserialize, Serialize};

/// A rolling or twisting resistance model, as written in a scene's law parameters:
/// `Off`, `Cdt(mu: 0.05)` or `Epsd(mu: 0.05)`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum Resistance {
    /// No resistance.
    #[default]
    Off,
    /// Constant directional torque with coefficient `mu` (dimensionless).
    Cdt {
        /// Resistance coefficient (torque limit over `R* |F_n|`).
        mu: f64,
    },
    /// Elastic-plastic spring with coefficient `mu` (dimensionless).
    Epsd {
        /// Resistance coefficient (torque limit over `R* |F_n|`).
        mu: f64,
    },
}

impl Resistance {
    /// Checks the coefficient; `what` names the parameter in the message.
    pub fn validate(&self, what: &str) -> Result<(), String> {
        match *self {
            Resistance::Cdt { mu } | Resistance::Epsd { mu } if !(mu >= 0.0 && mu.is_finite()) => {
                Err(format!("{what}: mu must be >= 0 and finite, got {mu}"))
            }
            _ => Ok(()),
        }
    }

    /// State slots used for `N` components (2 for rolling, 1 for twisting).
    pub const fn slots(n: usize) -> usize {
        n + 1
    }

    /// Torque on body 2 for relative rotation rate `rate` (rad/s, the components this model
    /// acts on), normal force `f_n` (N), normal stiffness `kn` (N/m), effective radius
    /// `r` (m), effective inertia `inertia` (kg m^2, see
    /// [`effective_inertia`](super::effective_inertia)), time step `dt` (s). `state` has
    /// [`slots(N)`](Self::slots) slots.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn step<V: Lane, const N: usize>(
        &self,
        rate: [V; N],
        f_n: V,
        kn: V,
        r: V,
        inertia: V,
        dt: f64,
        state: &mut [V],
    ) -> SpringOut<N, V> {
        let zero = V::splat(0.0);
        match *self {
            Resistance::Off => SpringOut {
                force: [zero; N],
                elastic: zero,
                dissipated: zero,
                slipped: V::mask(false),
            },
            Resistance::Cdt { mu } => {
                let speed = norm(&rate);
                let limit = (V::splat(mu) * r * f_n.abs()).min(inertia * speed / V::splat(dt));
                let turning = speed.gt(zero);
                let torque: [V; N] =
                    std::array::from_fn(|i| V::select(turning, -limit * rate[i] / speed, zero));
                let prev: [V; N] = std::array::from_fn(|i| state[i]);
                state[..N].copy_from_slice(&torque);
                SpringOut {
                    force: torque,
                    elastic: zero,
                    dissipated: work_absorbed(&prev, &torque, &rate, dt),
                    slipped: turning,
                }
            }
            Resistance::Epsd { mu } => {
                let (mu_l, two_and_quarter) = (V::splat(mu), V::splat(2.25));
                let k = two_and_quarter * kn * mu_l * mu_l * r * r;
                SpringSlider::<N>::step(k, rate, dt, mu_l * r * f_n.abs(), state)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdt_opposes_rotation_with_the_limit() {
        let mut s = [0.0; 3];
        let out = Resistance::Cdt { mu: 0.1 }.step([3.0, 4.0], 10.0, 1e5, 0.01, 1.0, 1e-4, &mut s);
        // Limit 0.1 * 0.01 * 10 = 0.01 N m, against (0.6, 0.8).
        assert!((out.force[0] + 0.006).abs() < 1e-15);
        assert!((out.force[1] + 0.008).abs() < 1e-15);
        assert!(out.dissipated > 0.0);
        // Slow rotation of a light body: only what stops it in this step.
        let out = Resistance::Cdt { mu: 0.1 }.step([1e-3], 10.0, 1e5, 0.01, 1e-6, 1e-4, &mut s);
        assert!((out.force[0] + 1e-5).abs() < 1e-18);
    }

    #[test]
    fn epsd_is_a_capped_spring() {
        let mut s = [0.0; 2];
        let r = Resistance::Epsd { mu: 0.1 };
        // k_r = 2.25 * 1e5 * 0.01 * 1e-4 = 0.225 N m/rad; one step of 1 rad/s * 1e-3 s.
        let out = r.step([1.0], 10.0, 1e5, 0.01, 1.0, 1e-3, &mut s);
        assert!((out.force[0] + 2.25e-4).abs() < 1e-15);
        // A large rotation is capped at 0.01 N m.
        let out = r.step([1000.0], 10.0, 1e5, 0.01, 1.0, 1e-3, &mut s);
        assert!((out.force[0] + 0.01).abs() < 1e-15);
        assert!(Resistance::Cdt { mu: -1.0 }.validate("rolling").is_err());
    }
}
