//! Parts a contact law is assembled from, so that laws share one implementation of each
//! (as LIGGGHTS assembles a contact model from its normal, tangential and rolling models):
//!
//! - [`material`]: the material-pair step (Yade's Ip2, Woo's Cp2): effective modulus,
//!   shear modulus and friction of a pair, computed once per contact in
//!   [`Law::constants`](super::Law::constants);
//! - [`hertz`]: the Hertz normal force of two elastic spheres;
//! - [`normal`]: elastic plus viscous normal force, clamping and the booking of damping;
//! - [`spring`]: an incremental spring with a slip limit (tangential force, rolling and
//!   twisting springs), with the energy it stores and dissipates; [`dashpot`]: tangential
//!   damping beside it;
//! - [`params`]: documentation of parameters several laws share;
//! - [`restitution`]: the damping ratio for which the collision delivers a requested
//!   coefficient of restitution (clamped or not, linear or Hertz damping);
//! - [`resistance`]: rolling and twisting resistance models any law can add (CDT, EPSD);
//! - [`penalty_friction`]: Yamane-Nakamura penalty friction (anchor spring, smooth
//!   dynamic friction).
//!
//! Energy: every part returns what it stores (elastic energy now) and what it dissipated
//! during the step, booked with the trapezoid rule over `[t - dt, t]` from the force of
//! the previous step (kept in the state) and the current one. That is the work the
//! leap-frog integrator does with these forces, so the solver's energy ledger closes.

pub mod dashpot;
pub mod hertz;
pub mod material;
pub mod normal;
pub mod params;
pub mod penalty_friction;
pub mod resistance;
pub mod restitution;
pub mod spring;

pub use dashpot::Dashpot;
pub use hertz::Hertz;
pub use material::{
    effective_inertia, effective_shear, effective_young, pair_friction, sliding_mass,
    viscous_coefficient,
};
pub use normal::{NormalForce, ViscousRate};
pub use penalty_friction::YamaneNakamura;
pub use resistance::Resistance;
pub use restitution::{damping_ratio, DampingForm, DampingFrom};
pub use spring::{SpringOut, SpringSlider};

use crate::lane::Lane;

/// Names of the state slots of a law that stacks, in this order, [`NormalForce`] (the
/// damping force, N), [`ViscousRate`] (the previous normal rate, m/s), a two-component
/// [`SpringSlider`] (force y, z in N, previous stiffness N/m), a two-component
/// [`Dashpot`] (N), a rolling [`Resistance`] (torque y, z in N m, previous stiffness
/// N m/rad) and a twisting one (torque N m, previous stiffness N m/rad): the layout of the
/// shipped linear and Hertz-Mindlin laws, for their `Law::STATE_NAMES` (each law checks
/// their number against its layout).
pub const CONTACT_STATE_NAMES: [&str; 12] = [
    "normal_damping_force",
    "normal_rate_prev",
    "shear_force_y",
    "shear_force_z",
    "shear_stiffness_prev",
    "shear_dashpot_y",
    "shear_dashpot_z",
    "rolling_torque_y",
    "rolling_torque_z",
    "rolling_stiffness_prev",
    "twisting_torque",
    "twisting_stiffness_prev",
];

/// Energy the contact takes from the bodies during one step, J: the work of a force (or
/// torque) going from `prev` at `t - dt` to `now` at `t` against the relative motion
/// `rate` (at `t - dt/2`), by the trapezoid rule: `-(prev + now)/2 . rate dt`.
#[inline(always)]
pub fn work_absorbed<V: Lane, const N: usize>(
    prev: &[V; N],
    now: &[V; N],
    rate: &[V; N],
    dt: f64,
) -> V {
    V::splat(-0.5 * dt) * V::sum(N, |i| (prev[i] + now[i]) * rate[i])
}

/// Euclidean norm of a small vector.
#[inline(always)]
pub fn norm<V: Lane, const N: usize>(v: &[V; N]) -> V {
    V::sum(N, |i| v[i] * v[i]).sqrt()
}
