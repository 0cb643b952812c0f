//! Cundall's non-viscous damping, applied per component to the force and torque of free
//! particles and clumps (the scene's `damping`, `lambda`): a component pushing along the
//! velocity is reduced by `lambda`, one against it increased by `lambda`. The work it
//! takes is booked in the ledger's `nonviscous` entry by the integrator.

/// Cundall's non-viscous damping of one force (or torque) component `f` against the
/// velocity component `v`: `f (1 - lambda sign(f v))`.
pub(crate) fn damped(f: f64, v: f64, lambda: f64) -> f64 {
    if lambda == 0.0 {
        return f;
    }
    let s = f * v;
    if s > 0.0 {
        f * (1.0 - lambda)
    } else if s < 0.0 {
        f * (1.0 + lambda)
    } else {
        f
    }
}
