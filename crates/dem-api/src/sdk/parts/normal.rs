//! Elastic plus viscous normal force, with clamping and the booking of damping.

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
}
