//! Elastic plus viscous normal force, with clamping and the booking of damping.

use super::restitution::DampingForm;
use super::work_absorbed;
use crate::lane::Lane;

/// The normal force of one step: `f_n = f_el + f_visc`, clamped at zero (no pull) unless
/// attraction is allowed, and zero on a contact's last call. Whatever is not elastic (the
/// viscous force and the clamped part) is the damping force; its work is booked as
/// damping with the trapezoid rule, so the ledger closes with clamping too.
///
/// The state is one slot: the damping force of the previous step, N.
pub struct NormalForce;

impl NormalForce {
    /// State slots used.
    pub const SLOTS: usize = 1;

    /// Returns `(f_n, damping)`: the normal force on body 2 (N, positive repulsive) and
    /// the energy dissipated by damping in this step (J). `f_el` is the elastic force
    /// (already zero when `last`), `f_visc` the viscous force, `rate` the normal rate
    /// `u_dot.x` (m/s), `state` this part's slot.
    #[inline(always)]
    pub fn step<V: Lane>(
        f_el: V,
        f_visc: V,
        attraction: bool,
        last: V::Mask,
        rate: V,
        dt: f64,
        state: &mut [V],
    ) -> (V, V) {
        let zero = V::splat(0.0);
        let f_n = f_el + f_visc;
        let pull = V::and(V::mask(!attraction), f_n.lt(zero));
        let f_n = V::select(V::or(last, pull), zero, f_n);
        let f_damp = f_n - f_el;
        let damping = work_absorbed(&[state[0]], &[f_damp], &[rate], dt);
        state[0] = f_damp;
        (f_n, damping)
    }
}

/// The normal rate a viscous force should act with at `t`, from the L6Geom rate `u_dot.x`
/// (at `t - dt/2`).
///
/// The force computed at `t` gives the kick from `t - dt/2` to `t + dt/2`. A viscous force
/// of the rate at `t - dt/2` lags the motion by half a step, and on the step a contact
/// begins it acts over the whole kick although the contact began inside it: two
/// first-order errors in the rebound (2e-3 in `e` at 200 steps per contact for `e = 0.1`,
/// growing with the damping). This part removes both, leaving second-order ones:
///
/// - on a contact's first step, the rate is weighted by the share of the kick's interval
///   `[t - dt/2, t + dt/2]` after touching, the bodies having touched `tau = gap / rate`
///   before `t` (`tau` at most `dt`): `(tau + dt/2) / dt` for a linear dashpot, and
///   `(tau + dt/2)^1.25 / (1.25 tau^0.25 dt)` for Hertz damping, which grows like
///   `overlap^0.25` (`tau` at least `dt/1000`). A contact not approaching keeps its rate;
/// - afterwards, the rate at `t` extrapolated from the last two: `(3 r - r_prev) / 2`.
///
/// The damping actually applied is booked with the trapezoid rule as usual, so the ledger
/// is unaffected. The extrapolation is stable while `2 zeta omega dt` stays below about 1
/// (`omega dt` below 0.4 at critical damping, the usual explicit DEM step being 0.2-0.4).
///
/// State: one slot, the previous rate (m/s).
pub struct ViscousRate;

impl ViscousRate {
    /// State slots used.
    pub const SLOTS: usize = 1;

    /// The rate (m/s) for the viscous force at `t`: `new` marks a contact's first step,
    /// `gap` is `u.x` (m), `rate` is `u_dot.x` (m/s), `form` the growth of the viscous
    /// force with the overlap.
    #[inline(always)]
    pub fn at_t<V: Lane>(
        new: V::Mask,
        gap: V,
        rate: V,
        dt: f64,
        form: DampingForm,
        state: &mut [V],
    ) -> V {
        let (half, zero) = (V::splat(0.5), V::splat(0.0));
        let extrapolated = V::splat(1.5) * rate - half * state[0];
        state[0] = rate;
        if !V::any(new) {
            return extrapolated;
        }
        let dt_l = V::splat(dt);
        let approaching = V::and(rate.lt(zero), gap.lt(zero));
        let tau = V::select(approaching, gap / rate, zero)
            .min(dt_l)
            .max(V::splat(1e-3 * dt));
        let span = tau + half * dt_l;
        let weight = match form {
            DampingForm::Linear => span / dt_l,
            DampingForm::Hertz => {
                let q = |x: V| x.sqrt().sqrt();
                span * q(span) / (V::splat(1.25) * q(tau) * dt_l)
            }
        };
        let first = V::select(approaching, rate * weight, rate);
        V::select(new, first, extrapolated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamped_part_is_booked_as_damping() {
        let mut s = [0.0];
        // Separating fast: the viscous pull exceeds the elastic push; clamped to zero.
        let (f, d1) = NormalForce::step(1.0, -3.0, false, false, 2.0, 1e-3, &mut s);
        assert_eq!(f, 0.0);
        assert_eq!(s[0], -1.0);
        // Trapezoid from a zero damping force: -(0 + -1)/2 * 2 * 1e-3.
        assert!((d1 - 1e-3).abs() < 1e-18);
        let (f, _) = NormalForce::step(1.0, -3.0, true, false, 2.0, 1e-3, &mut s);
        assert_eq!(f, -2.0);
        let (f, _) = NormalForce::step(0.0, 5.0, true, true, 2.0, 1e-3, &mut s);
        assert_eq!(f, 0.0);
    }

    #[test]
    fn viscous_rate_weights_the_first_step_and_then_extrapolates() {
        let dt = 1e-3;
        let mut s = [0.0];
        // Touched a quarter step before t, approaching at 2 m/s: the kick from t - dt/2 to
        // t + dt/2 spends three quarters of its interval in contact.
        let r = ViscousRate::at_t(true, -0.5e-3, -2.0, dt, DampingForm::Linear, &mut s);
        assert!((r - (-2.0 * 0.75)).abs() < 1e-15);
        // Hertz damping grows like overlap^0.25: the mean over the interval of
        // (s / tau)^0.25, s from 0 to 3 tau, is 3^1.25 / 1.25 / 3.
        let mut h = [0.0];
        let r = ViscousRate::at_t(true, -0.5e-3, -2.0, dt, DampingForm::Hertz, &mut h);
        let mean = 3.0f64.powf(1.25) / 1.25 / 3.0;
        assert!((r - (-2.0 * 0.75 * mean)).abs() < 1e-14, "{r}");
        // Not approaching: the rate as it is.
        let r = ViscousRate::at_t(true, -0.5e-3, 1.0, dt, DampingForm::Linear, &mut [0.0]);
        assert_eq!(r, 1.0);
        // Then the rate at t, from those at t - 3dt/2 (-2) and t - dt/2 (-1).
        let r = ViscousRate::at_t(false, -1e-3, -1.0, dt, DampingForm::Linear, &mut s);
        assert_eq!(r, -0.5);
        assert_eq!(s[0], -1.0);
    }
}
