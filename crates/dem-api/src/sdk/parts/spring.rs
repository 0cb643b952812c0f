//! An incremental spring with a slip limit: the tangential force of Cundall-Strack and
//! Mindlin, and the rolling and twisting springs.

use super::{norm, work_absorbed};
use crate::lane::Lane;

/// What a spring (or any slip-limited part) gives for one step (for one contact, or a lane
/// of contacts with `V` a [`Lane`] type).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringOut<const N: usize, V: Lane = f64> {
    /// Force (or torque) on body 2, local frame components.
    pub force: [V; N],
    /// Energy stored now, J.
    pub elastic: V,
    /// Energy dissipated by slip during this step, J.
    pub dissipated: V,
    /// Did the limit cap the force in this step (slip, or a broken trial)?
    pub slipped: V::Mask,
}

/// Incremental spring `f -= k rate dt` in the contact frame (which L6Geom carries with the
/// bodies), its magnitude limited to `limit` (Coulomb slip, or the rolling limit).
///
/// The stiffness `k` may change from step to step (Mindlin's `S_t = 8 G* sqrt(R* delta)`).
/// When it falls (unloading) the stored force is first rescaled by `k / k_prev` (the
/// "rescale" behaviour of LIGGGHTS' history model): without it, unloading would return
/// more energy than loading stored. When it rises the stored force is kept.
///
/// Energy: stored `|f|^2 / 2k`; dissipated = work absorbed over the step (trapezoid) minus
/// the change of stored energy, so slip and rescaling are booked and the ledger closes.
/// In a sticking step at constant `k` the dissipation is exactly zero.
///
/// Zero stiffness (Hertz-Mindlin's `S_t = 8 G* sqrt(R* delta)` at zero overlap): the spring
/// holds no force. A stored force is rescaled by `0 / k_prev`, i.e. dropped, its stored
/// energy booked as dissipated; while `k` stays 0 the force stays 0 (the stored energy of
/// a zero-stiffness spring counts as 0, never `f^2 / 0`), and when `k` becomes positive the
/// spring starts again from zero force.
///
/// State: `N + 1` slots, `[f_1 .. f_N, k_prev]`.
pub struct SpringSlider<const N: usize>;

impl<const N: usize> SpringSlider<N> {
    /// State slots used.
    pub const SLOTS: usize = N + 1;

    /// One step with stiffness `k` (N/m or N m/rad), relative rate `rate` (m/s or rad/s),
    /// time step `dt` (s) and slip limit `limit` (N or N m, >= 0).
    #[inline(always)]
    pub fn step<V: Lane>(
        k: V,
        rate: [V; N],
        dt: f64,
        limit: V,
        state: &mut [V],
    ) -> SpringOut<N, V> {
        let prev: [V; N] = std::array::from_fn(|i| state[i]);
        let k_prev = state[N];
        let stored_before = energy(&prev, k_prev);
        let one = V::splat(1.0);
        // The divisions only where a lane takes them (the same bits either way).
        let falls = k.lt(k_prev);
        let scale = if V::any(falls) {
            V::select(falls, k / k_prev, one)
        } else {
            one
        };
        let dt_l = V::splat(dt);
        let f: [V; N] = std::array::from_fn(|i| prev[i] * scale - k * rate[i] * dt_l);
        let size = norm(&f);
        let limit = limit.max(V::splat(0.0));
        let slipped = size.gt(limit);
        let f: [V; N] = if V::any(slipped) {
            let s = limit / size;
            std::array::from_fn(|i| V::select(slipped, f[i] * s, f[i]))
        } else {
            f
        };
        let elastic = energy(&f, k);
        let dissipated = work_absorbed(&prev, &f, &rate, dt) - (elastic - stored_before);
        state[..N].copy_from_slice(&f);
        state[N] = k;
        SpringOut {
            force: f,
            elastic,
            dissipated,
            slipped,
        }
    }
}

#[inline(always)]
fn energy<V: Lane, const N: usize>(f: &[V; N], k: V) -> V {
    let zero = V::splat(0.0);
    V::select(
        k.gt(zero),
        V::sum(N, |i| f[i] * f[i]) / (V::splat(2.0) * k),
        zero,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stick_stores_without_loss_and_slip_books_the_rest() {
        let mut s = [0.0; 3];
        let out = SpringSlider::<2>::step(1000.0, [1.0, 0.0], 1e-3, 10.0, &mut s);
        assert_eq!(out.force, [-1.0, 0.0]);
        assert!((out.elastic - 5e-4).abs() < 1e-18);
        assert!(out.dissipated.abs() < 1e-18);
        // Slide on at the limit 1.5 N: the work absorbed less the stored energy is lost.
        let out = SpringSlider::<2>::step(1000.0, [1.0, 0.0], 1e-3, 1.5, &mut s);
        assert_eq!(out.force, [-1.5, 0.0]);
        let work = 0.5 * (1.0 + 1.5) * 1e-3;
        assert!((out.dissipated - (work - (1.125e-3 - 5e-4))).abs() < 1e-15);
        assert!(out.dissipated > 0.0);
    }

    #[test]
    fn unloading_rescales_the_stored_force() {
        let mut s = [2.0, 0.0];
        s[1] = 100.0; // k_prev
        let out = SpringSlider::<1>::step(50.0, [0.0], 1e-3, 10.0, &mut s);
        assert_eq!(out.force, [1.0]);
        // Stored energy went from 4/200 to 1/100: the difference is booked as lost.
        assert!((out.dissipated - 0.01).abs() < 1e-15);
        // Loading again keeps the force.
        let out = SpringSlider::<1>::step(80.0, [0.0], 1e-3, 10.0, &mut s);
        assert_eq!(out.force, [1.0]);
    }

    #[test]
    fn zero_stiffness_holds_no_force() {
        let mut s = [0.0; 2];
        let out = SpringSlider::<1>::step(100.0, [1.0], 1e-2, 10.0, &mut s);
        assert_eq!(out.force, [-1.0]);
        // The stiffness drops to zero: the force is released, its energy dissipated.
        let out = SpringSlider::<1>::step(0.0, [1.0], 1e-2, 10.0, &mut s);
        assert_eq!(out.force, [0.0]);
        assert_eq!(out.elastic, 0.0);
        // Work absorbed -(-1 + 0)/2 * 1 * 1e-2 plus the released 1/200.
        assert!((out.dissipated - (0.005 + 0.005)).abs() < 1e-15);
        // Still zero: nothing accumulates, nothing is booked.
        let out = SpringSlider::<1>::step(0.0, [1.0], 1e-2, 10.0, &mut s);
        assert_eq!((out.force, out.elastic, out.dissipated), ([0.0], 0.0, 0.0));
    }
}
