//! A dashpot in parallel with a slip-limited spring (tangential damping).

use super::spring::SpringOut;
use super::{norm, work_absorbed};

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
    pub fn step(
        spring: &SpringOut<N>,
        c: f64,
        rate: [f64; N],
        dt: f64,
        limit: f64,
        state: &mut [f64],
    ) -> ([f64; N], f64) {
        let mut total = spring.force;
        if !spring.slipped {
            for i in 0..N {
                total[i] -= c * rate[i];
            }
            let size = norm(&total);
            if size > limit {
                let s = limit / size;
                total.iter_mut().for_each(|x| *x *= s);
            }
        }
        let mut damp = [0.0; N];
        for i in 0..N {
            damp[i] = total[i] - spring.force[i];
        }
        let mut prev = [0.0; N];
        prev.copy_from_slice(&state[..N]);
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
