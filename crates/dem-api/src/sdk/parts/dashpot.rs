//! A dashpot in parallel with a slip-limited spring (tangential damping).

use super::spring::SpringOut;
use super::{norm, work_absorbed};
use crate::lane::Lane;

/// Viscous force `-c rate` added to a [`SpringSlider`](super::SpringSlider)'s force while
/// the spring sticks; while it slips the total is the slip limit alone. The total never
/// exceeds the limit (the dashpot gives way first). Its work is booked as damping with the
/// trapezoid rule.
///
/// State: `N` slots, the dashpot force of the previous step.
pub struct Dashpot<const N: usize>;

impl<const N: usize> Dashpot<N> {
    /// State slots used.
    pub const SLOTS: usize = N;

    /// Returns the total force (spring plus dashpot) and the energy the dashpot dissipated
    /// in this step (J). `spring` is this step's spring output, `c` the viscous
    /// coefficient (N s/m), `limit` the slip limit the spring was given.
    #[inline(always)]
    pub fn step<V: Lane>(
        spring: &SpringOut<N, V>,
        c: V,
        rate: [V; N],
        dt: f64,
        limit: V,
        state: &mut [V],
    ) -> ([V; N], V) {
        let f = spring.force;
        let total: [V; N] = std::array::from_fn(|i| f[i] - c * rate[i]);
        let size = norm(&total);
        let capped = size.gt(limit);
        // The division only where a lane takes it (the same bits either way).
        let total: [V; N] = if V::any(capped) {
            let s = limit / size;
            std::array::from_fn(|i| V::select(capped, total[i] * s, total[i]))
        } else {
            total
        };
        // While the spring slips the dashpot adds nothing.
        let total: [V; N] = std::array::from_fn(|i| V::select(spring.slipped, f[i], total[i]));
        let damp: [V; N] = std::array::from_fn(|i| total[i] - f[i]);
        let prev: [V; N] = std::array::from_fn(|i| state[i]);
        state[..N].copy_from_slice(&damp);
        (total, work_absorbed(&prev, &damp, &rate, dt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damps_while_sticking_and_gives_way_at_the_limit() {
        let stick = SpringOut {
            force: [-1.0],
            elastic: 0.0,
            dissipated: 0.0,
            slipped: false,
        };
        let mut s = [0.0];
        let (f, d) = Dashpot::<1>::step(&stick, 2.0, [0.5], 1e-3, 10.0, &mut s);
        assert_eq!(f, [-2.0]);
        assert!((d - 0.5 * 1.0 * 0.5 * 1e-3).abs() < 1e-18);
        // Near the limit the dashpot only tops the force up to it.
        let (f, _) = Dashpot::<1>::step(&stick, 2.0, [0.5], 1e-3, 1.5, &mut s);
        assert_eq!(f, [-1.5]);
        let slip = SpringOut {
            force: [-1.5],
            elastic: 0.0,
            dissipated: 1e-4,
            slipped: true,
        };
        let (f, _) = Dashpot::<1>::step(&slip, 2.0, [0.5], 1e-3, 1.5, &mut s);
        assert_eq!(f, [-1.5]);
        assert_eq!(s, [0.0]);
    }
}
