//! An incremental spring with a slip limit: the tangential force of Cundall-Strack and
//! Mindlin, and the rolling and twisting springs.

use super::{norm, work_absorbed};

/// What a spring (or any slip-limited part) gives for one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringOut<const N: usize> {
    /// Force (or torque) on body 2, local frame components.
    pub force: [f64; N],
    /// Energy stored now, J.
    pub elastic: f64,
    /// Energy dissipated by slip during this step, J.
    pub dissipated: f64,
    /// Did the limit cap the force in this step (slip, or a broken trial)?
    pub slipped: bool,
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
/// State: `N + 1` slots, `[f_1 .. f_N, k_prev]`.
pub struct SpringSlider<const N: usize>;

impl<const N: usize> SpringSlider<N> {
    /// State slots used.
    pub const SLOTS: usize = N + 1;

    /// One step with stiffness `k` (N/m or N m/rad), relative rate `rate` (m/s or rad/s),
    /// time step `dt` (s) and slip limit `limit` (N or N m, >= 0).
    pub fn step(k: f64, rate: [f64; N], dt: f64, limit: f64, state: &mut [f64]) -> SpringOut<N> {
        let mut prev = [0.0; N];
        prev.copy_from_slice(&state[..N]);
        let k_prev = state[N];
        let stored_before = energy(&prev, k_prev);
        let scale = if k < k_prev { k / k_prev } else { 1.0 };
        let mut f = [0.0; N];
        for i in 0..N {
            f[i] = prev[i] * scale - k * rate[i] * dt;
        }
        let size = norm(&f);
        let limit = limit.max(0.0);
        let slipped = size > limit;
        if slipped {
            let s = limit / size;
            f.iter_mut().for_each(|x| *x *= s);
        }
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

fn energy<const N: usize>(f: &[f64; N], k: f64) -> f64 {
    if k > 0.0 {
        f.iter().map(|x| x * x).sum::<f64>() / (2.0 * k)
    } else {
        0.0
    }
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
}
