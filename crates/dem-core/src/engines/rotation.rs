//! Leap-frog rotation of a rigid body with distinct principal moments of inertia.
//!
//! # Scheme
//!
//! Kick-drift splitting of the rotational motion, in the leap-frog form the translation
//! uses:
//!
//! 1. **Kick** (global frame): `L(t+dt/2) = L(t-dt/2) + T(t) dt`, with the contact torque
//!    `T(t)` (global) and the angular momentum `L` (global).
//! 2. **Drift**: the body rotates freely for `dt` with angular momentum `L(t+dt/2)`. The
//!    free rotation is discretised by the *implicit midpoint rule on Euler's equations* in
//!    the body frame, `P' = P x W` with `P = I W` (Austin, Krishnaprasad & Wang, "Almost
//!    Poisson integration of rigid body systems", J. Comput. Phys. 107 (1993) 105-117;
//!    Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2nd ed. 2006,
//!    Sect. IV.2 and VII.5):
//!
//!    `P1 - P0 = dt Pm x Wm`, `Pm = (P0 + P1)/2`, `Wm = I^-1 Pm`,
//!
//!    where `P0` and `P1` are `L(t+dt/2)` seen in the body frame at t and at t + dt,
//!    and the orientation is advanced by the Cayley transform of the midpoint body angular
//!    velocity, `q(t+dt) = q(t) cay(dt Wm)`, the rotation about `Wm` by the angle
//!    `2 atan(|Wm| dt / 2)`. The midpoint rule is exactly `P1 = cay(dt Wm)^T P0`, so
//!    the global angular momentum `q P` is unchanged by the drift, and, the midpoint rule
//!    preserving every quadratic invariant, the kinetic energy `P . I^-1 P / 2` is
//!    unchanged too. Both invariants of the torque-free body are thus conserved to
//!    round-off, not merely bounded. The scheme is second-order accurate and symmetric
//!    (time-reversible); it is not symplectic in general, and needs not be, both
//!    invariants being exact.
//!
//! The midpoint equation `I Wm + dt/2 Wm x I Wm = P0` is solved by Newton's method to
//! round-off (quadratic convergence from `I^-1 P0`, which is off by `O(|W| dt)`).
//!
//! # Times and stored state
//!
//! | quantity | time |
//! |---|---|
//! | orientation `ori` (body to global) | t |
//! | angular momentum `L` (global) | t - dt/2 and t + dt/2 |
//! | stored `angvel` (global) | t - dt/2: the midpoint velocity `ori Wm` of the last drift |
//! | torque (global), booked energies | t |
//!
//! [`crate::model::particles::Particles`] keeps no angular momentum: `L(t-dt/2)` is recovered
//! exactly from `angvel` and `ori(t)` (see [`momentum_before`]), because the Cayley
//! rotation leaves its own axis `Wm` fixed, so `ori(t)^T angvel = Wm` whichever end of the
//! drift is used, and the midpoint rule gives `P(t) = I Wm - dt/2 Wm x I Wm`. Checkpoints
//! therefore carry everything; the reconstruction uses the current `dt`, so changing `dt`
//! between steps changes `L` by `O(change of dt)`.
//!
//! # Damping, blocked rotations, energy
//!
//! - Cundall's non-viscous damping scales the **body-frame** torque components, with the
//!   sign test on the body angular velocity at t before the kick, `I^-1 P(t-dt/2)`.
//! - Blocked rotations act about **global** axes: a blocked global component of `angvel`
//!   keeps its value (as for spheres, a blocked degree of freedom keeps its velocity).
//!   The constraint torque acts along the blocked axes only: the free components follow
//!   from the momentum balance along the free axes ([`solve_constrained`]), so a body
//!   spinning about a free axis whose perpendicular rotations are blocked keeps its spin.
//!   The work of the constraint impulse is booked as boundary work. With all rotations
//!   blocked no damping is applied, and the body turns with its fixed `angvel` (by the
//!   Cayley angle `2 atan(|w| dt/2)` per step, not the sphere path's `|w| dt`).
//! - The rotational kinetic energy booked at t is `P(t-dt/2) . I^-1 P(t+dt/2) / 2`, both
//!   momenta in the body frame at t, the rotational twin of the translational
//!   `m v(t-dt/2) . v(t+dt/2) / 2`. Without torque it equals the drift's exactly
//!   conserved energy; with torque the work `T . (W- + W+)/2 dt` (with `W-`, `W+` the body
//!   angular velocities at t before and after the kick) is exactly the change of the
//!   drift energy `P . I^-1 P / 2` across the kick, so the ledger closes as it does for
//!   translation: to round-off without torque, to `O(dt^2)` with a torque depending on
//!   the orientation (tests/aspherical.rs measures both). For an
//!   isotropic body every formula here reduces to the per-axis sphere update of
//!   [`crate::engines::integrator`], which is kept as its own (bitwise unchanged) path.

use crate::engines::damping::damped;
use crate::model::particles::Dofs;
use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};

/// Is a body with these principal moments integrated by this module? True when all three
/// moments are finite and positive and not all equal. Isotropic bodies (spheres) and
/// bodies with an infinite moment take the per-axis path of [`crate::engines::integrator`].
pub fn is_aspherical(inertia: &Vector3<f64>) -> bool {
    inertia.iter().all(|m| m.is_finite() && *m > 0.0)
        && !(inertia.x == inertia.y && inertia.y == inertia.z)
}

/// Body-frame angular momentum at t from the midpoint body angular velocity `wm` of the
/// drift that ended at t: `I wm - dt/2 wm x I wm`, kg m^2/s.
pub fn momentum_before(wm: &Vector3<f64>, inertia: &Vector3<f64>, dt: f64) -> Vector3<f64> {
    let pm = inertia.component_mul(wm);
    pm - wm.cross(&pm) * (0.5 * dt)
}

/// Body-frame angular momentum at the start of a drift with midpoint body angular
/// velocity `wm`: `I wm + dt/2 wm x I wm`, kg m^2/s.
fn momentum_after(wm: &Vector3<f64>, inertia: &Vector3<f64>, dt: f64) -> Vector3<f64> {
    momentum_before(wm, inertia, -dt)
}

/// Global angular momentum `L(t-dt/2)` of a body with orientation `ori` (at t) and stored
/// angular velocity `angvel` (at t - dt/2, global), kg m^2/s.
pub fn angular_momentum(
    ori: &UnitQuaternion<f64>,
    angvel: &Vector3<f64>,
    inertia: &Vector3<f64>,
    dt: f64,
) -> Vector3<f64> {
    let wm = ori.inverse_transform_vector(angvel);
    ori * momentum_before(&wm, inertia, dt)
}

/// The stored angular velocity (global, t - dt/2) that encodes the global angular
/// momentum `l` for a body with orientation `ori` at t: the inverse of
/// [`angular_momentum`]. Use it to start a body with a given momentum at t = 0.
pub fn angvel_for_momentum(
    ori: &UnitQuaternion<f64>,
    l: &Vector3<f64>,
    inertia: &Vector3<f64>,
    dt: f64,
) -> Vector3<f64> {
    ori * solve_midpoint(&ori.inverse_transform_vector(l), inertia, -dt)
}

/// Solves `I w + dt/2 w x I w = p` for the body angular velocity `w` (the midpoint
/// equation of the drift, `p` the body-frame momentum after the kick).
pub fn solve_midpoint(p: &Vector3<f64>, inertia: &Vector3<f64>, dt: f64) -> Vector3<f64> {
    let q = UnitQuaternion::identity();
    solve_constrained(p, &q, inertia, dt, [None; 3])
}

/// `m^-1 r` by the cofactors of `m`; `None` if `m` is singular (or not finite).
fn solve3(m: &Matrix3<f64>, r: &Vector3<f64>) -> Option<Vector3<f64>> {
    let (c0, c1, c2) = (m.column(0), m.column(1), m.column(2));
    // The rows of the inverse times det: the cross products of the columns.
    let (r0, r1, r2) = (c1.cross(&c2), c2.cross(&c0), c0.cross(&c1));
    let det = c0.dot(&r0);
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    Some(Vector3::new(r0.dot(r), r1.dot(r), r2.dot(r)) / det)
}

/// The midpoint equation with some global components of the angular velocity fixed:
/// finds the global `w` with `w[k] = v` for every `fixed[k] = Some(v)` and
/// `(q (I W + dt/2 W x I W))[k] = l[k]` for the other `k`, where `W = q^-1 w` and `l` is
/// the global momentum after the kick. The momentum balance along the fixed axes is
/// left to the constraint torque. Newton's method, started from `I^-1 q^-1 l`, iterated
/// until the update reaches round-off or stops shrinking. With nothing fixed, each
/// Newton step is solved in the body frame, by cofactors.
pub fn solve_constrained(
    l: &Vector3<f64>,
    q: &UnitQuaternion<f64>,
    inertia: &Vector3<f64>,
    dt: f64,
    fixed: [Option<f64>; 3],
) -> Vector3<f64> {
    let h = 0.5 * dt;
    let rot = q.to_rotation_matrix().into_inner();
    let mut w = q * q.inverse_transform_vector(l).component_div(inertia);
    for (k, v) in fixed.iter().enumerate() {
        if let Some(v) = v {
            w[k] = *v;
        }
    }
    let free = fixed.iter().all(Option::is_none);
    let mut last = f64::INFINITY;
    for _ in 0..20 {
        // The residual and the iterate in the global frame, where `l` is: iterating
        // on the body-frame velocity instead and rotating the answer was tried, and
        // drifts the energy and momentum by about 1e-14 a step (tests/aspherical.rs).
        let body = q.inverse_transform_vector(&w);
        let iw = inertia.component_mul(&body);
        let mut residual = q * (iw + body.cross(&iw) * h) - l;
        let jacobian = body_jacobian(&body, inertia, h);
        let delta = if free {
            // R J R^T delta = r: solved in the body frame.
            solve3(&jacobian, &(rot.transpose() * residual)).map(|d| rot * d)
        } else {
            let mut global = rot * jacobian * rot.transpose();
            for k in (0..3).filter(|&k| fixed[k].is_some()) {
                residual[k] = 0.0;
                global.set_row(k, &Vector3::ith(k, 1.0).transpose());
            }
            global.lu().solve(&residual)
        };
        let Some(delta) = delta else {
            break;
        };
        let size = delta.norm();
        if size >= last {
            break;
        }
        w -= delta;
        last = size;
        if size <= 1e-15 * w.norm() {
            break;
        }
    }
    w
}

/// The Jacobian of the midpoint equation in the body frame, `I + h d(W x IW)/dW`,
/// written out: `(W x IW)_x = (Iz - Iy) Wy Wz` and its cyclic shifts.
fn body_jacobian(w: &Vector3<f64>, inertia: &Vector3<f64>, h: f64) -> Matrix3<f64> {
    let (i, e) = (inertia, (inertia.zxy() - inertia.yzx()) * h);
    #[rustfmt::skip]
    let jacobian = Matrix3::new(
        i.x,        e.x * w.z,  e.x * w.y,
        e.y * w.z,  i.y,        e.y * w.x,
        e.z * w.y,  e.z * w.x,  i.z,
    );
    jacobian
}

/// The Cayley rotation `cay(dt w)` of a body angular velocity `w`: the rotation about `w`
/// by `2 atan(|w| dt / 2)`.
pub fn cayley(w: &Vector3<f64>, dt: f64) -> UnitQuaternion<f64> {
    let v = w * (0.5 * dt);
    UnitQuaternion::new_normalize(Quaternion::new(1.0, v.x, v.y, v.z))
}

/// Energy booked by one rotation step, J.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RotationEnergy {
    /// Rotational kinetic energy at t, `P(t-dt/2) . I^-1 P(t+dt/2) / 2`.
    pub kinetic: f64,
    /// Energy dissipated by non-viscous damping in this step.
    pub nonviscous: f64,
    /// Work done by blocked rotations in this step.
    pub boundary_work: f64,
}

/// One body's rotation state and parameters for [`step`].
#[derive(Debug)]
pub struct Body<'a> {
    /// Orientation at t on entry, at t + dt on return.
    pub ori: &'a mut UnitQuaternion<f64>,
    /// Angular velocity (global) at t - dt/2 on entry, t + dt/2 on return, rad/s.
    pub angvel: &'a mut Vector3<f64>,
    /// Principal moments in the body frame, kg m^2.
    pub inertia: Vector3<f64>,
    /// Torque at t, global, N m.
    pub torque: Vector3<f64>,
    /// Blocked degrees of freedom (rotation bits are about global axes).
    pub blocked: Dofs,
}

/// Advances one aspherical body by one step (kick, then drift) and returns the energies
/// to book. `damping` is Cundall's lambda, `dt` the time step, s.
pub fn step(body: Body<'_>, damping: f64, dt: f64) -> RotationEnergy {
    let Body {
        ori,
        angvel,
        inertia,
        torque,
        blocked,
    } = body;
    let q = *ori;
    let all_blocked = (0..3).all(|k| blocked.rotation(k));

    // Kick, in the body frame at t.
    let p0 = momentum_before(&q.inverse_transform_vector(angvel), &inertia, dt);
    let w0 = p0.component_div(&inertia);
    let t = q.inverse_transform_vector(&torque);
    let lambda = if all_blocked { 0.0 } else { damping };
    let td = Vector3::from_fn(|k, _| damped(t[k], w0[k], lambda));
    let mut p1 = p0 + td * dt;

    // Drift: midpoint velocity, blocked global axes keeping their angular velocity.
    let fixed = [0, 1, 2].map(|k| blocked.rotation(k).then_some(angvel[k]));
    let w_global = solve_constrained(&(q * p1), &q, &inertia, dt, fixed);
    let wm = q.inverse_transform_vector(&w_global);
    let mut impulse = Vector3::zeros();
    if fixed.iter().any(Option::is_some) {
        let consistent = momentum_after(&wm, &inertia, dt);
        impulse = consistent - p1;
        p1 = consistent;
    }
    let w_mean = (w0 + p1.component_div(&inertia)) * 0.5;

    *ori = q * cayley(&wm, dt);
    *angvel = w_global;
    RotationEnergy {
        kinetic: 0.5 * w0.dot(&p1),
        nonviscous: -(td - t).dot(&w_mean) * dt,
        boundary_work: impulse.dot(&w_mean),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midpoint_solution_satisfies_its_equation() {
        let inertia = Vector3::new(1.0, 2.0, 3.0);
        let p = Vector3::new(0.3, -2.0, 1.1);
        let dt = 0.05;
        let w = solve_midpoint(&p, &inertia, dt);
        let iw = inertia.component_mul(&w);
        assert!((iw + w.cross(&iw) * (0.5 * dt) - p).norm() < 1e-15);
    }

    /// The free solve (Newton steps by cofactors in the body frame) against the equation,
    /// at spins where `|W| dt` is 0.01 to 1.5 (Newton's method with a wrong Jacobian
    /// stalls well above round-off there).
    #[test]
    fn free_solve_satisfies_the_global_equation_at_large_spin() {
        let inertia = Vector3::new(0.7, 2.0, 3.1);
        let q = UnitQuaternion::from_scaled_axis(Vector3::new(0.4, -1.2, 0.9));
        for scale in [0.01, 0.3, 1.0, 1.5] {
            let l = Vector3::new(1.3, -0.4, 2.2);
            let dt = scale / l.component_div(&inertia).norm();
            let w = solve_constrained(&l, &q, &inertia, dt, [None; 3]);
            let body = q.inverse_transform_vector(&w);
            let iw = inertia.component_mul(&body);
            let residual = (q * (iw + body.cross(&iw) * (0.5 * dt)) - l).norm();
            assert!(
                residual < 1e-14 * l.norm(),
                "|W| dt ~ {scale}: {residual:e}"
            );
        }
    }

    #[test]
    fn momentum_round_trips_through_the_stored_velocity() {
        let inertia = Vector3::new(1.0, 2.0, 3.0);
        let ori = UnitQuaternion::from_scaled_axis(Vector3::new(0.4, -0.2, 0.9));
        let l = Vector3::new(0.5, 1.5, -0.7);
        let w = angvel_for_momentum(&ori, &l, &inertia, 0.01);
        assert!((angular_momentum(&ori, &w, &inertia, 0.01) - l).norm() < 1e-15);
    }

    #[test]
    fn cayley_rotates_about_its_argument() {
        let w = Vector3::new(1.0, 2.0, -0.5);
        let q = cayley(&w, 0.1);
        assert!((q * w - w).norm() < 1e-15);
        let angle = 2.0 * (0.05 * w.norm()).atan();
        assert!((q.angle() - angle).abs() < 1e-15);
    }

    #[test]
    fn only_distinct_finite_moments_are_aspherical() {
        assert!(!is_aspherical(&Vector3::repeat(2.0)));
        assert!(!is_aspherical(&Vector3::repeat(f64::INFINITY)));
        assert!(!is_aspherical(&Vector3::new(1.0, f64::INFINITY, 1.0)));
        assert!(is_aspherical(&Vector3::new(1.0, 1.0, 2.0)));
    }
}
