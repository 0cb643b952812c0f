//! The Johnson-Kendall-Roberts relations of two elastic spheres that adhere, as functions
//! of the contact radius `a` (m): overlap, normal force and stored energy, and the
//! contact radius at a given overlap on the stable branch.
//!
//! With `E*` the effective modulus (Pa), `R*` the effective radius (m), `w` the work of
//! adhesion (J/m^2; `w = 2 gamma` for two surfaces of surface energy `gamma`) and
//! `s = sqrt(2 pi w / E*)` (m^0.5):
//!
//! - overlap `delta(a) = a^2 / R* - s sqrt(a)`;
//! - force (repulsive positive) `F(a) = E* (4 a^3 / (3 R*) - 2 s a^(3/2))`, i.e.
//!   `4 E* a^3 / (3 R*) - sqrt(8 pi w E* a^3)`;
//! - energy, elastic less surface, relative to the separated bodies: the integral of
//!   `F d delta` along the equilibrium curve from `a = 0`,
//!   `U(a) = E* (8 a^5 / (15 R*^2) - 4 s a^(7/2) / (3 R*) + s^2 a^2 / 2)`; it is
//!   negative at the contact radius `(2 pi w R*^2 / E*)^(1/3)` reached at `delta = 0`.
//!
//! `delta(a)` falls from 0 at `a = 0` to its minimum at `a_c = (pi w R*^2 / (8 E*))^(1/3)`
//! and rises after: the branch `a >= a_c` is the one a contact follows under imposed
//! overlap. Its end, `delta_c = delta(a_c) = -(3/4) (pi^2 w^2 R* / E*^2)^(1/3)`, is where
//! the contact breaks.

use std::f64::consts::PI;

/// The JKR relations of one pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jkr {
    /// Effective Young's modulus `E*`, Pa.
    pub e: f64,
    /// Effective radius `R*`, m.
    pub r: f64,
    /// Work of adhesion `w`, J/m^2.
    pub w: f64,
}

impl Jkr {
    /// `s = sqrt(2 pi w / E*)`, m^0.5.
    fn s(&self) -> f64 {
        (2.0 * PI * self.w / self.e).sqrt()
    }

    /// Overlap at contact radius `a`, m (negative in tension).
    pub fn overlap(&self, a: f64) -> f64 {
        a * a / self.r - self.s() * a.sqrt()
    }

    /// Normal force at contact radius `a`, N (repulsive positive).
    pub fn force(&self, a: f64) -> f64 {
        self.e * (4.0 * a * a * a / (3.0 * self.r) - 2.0 * self.s() * a * a.sqrt())
    }

    /// Energy stored at contact radius `a` (elastic less surface), J.
    pub fn energy(&self, a: f64) -> f64 {
        let (r, s) = (self.r, self.s());
        let a2 = a * a;
        self.e
            * (8.0 * a2 * a2 * a / (15.0 * r * r) - 4.0 * s * a2 * a * a.sqrt() / (3.0 * r)
                + 0.5 * s * s * a2)
    }

    /// Contact radius at which the overlap is smallest: the end of the stable branch, m.
    pub fn critical_radius(&self) -> f64 {
        (PI * self.w * self.r * self.r / (8.0 * self.e)).cbrt()
    }

    /// Overlap at which the contact breaks, m (negative).
    pub fn critical_overlap(&self) -> f64 {
        self.overlap(self.critical_radius())
    }

    /// Tangent stiffness `dF/d delta` at contact radius `a` on the stable branch, N/m
    /// (infinite at the branch's end, where `d delta / da = 0`).
    pub fn stiffness(&self, a: f64) -> f64 {
        let s = self.s();
        let df = self.e * (4.0 * a * a / self.r - 3.0 * s * a.sqrt());
        let dd = 2.0 * a / self.r - 0.5 * s / a.sqrt();
        df / dd
    }

    /// Contact radius on the stable branch at overlap `delta`, m; `None` below the
    /// critical overlap (no contact).
    ///
    /// With `x = sqrt(a)` the overlap is `g(x) = x^4 / R* - s x`, convex and increasing
    /// for `x >= sqrt(a_c)`. Newton's iteration from a point right of the root then falls
    /// monotonically onto it; the start `max((2 R* delta)^(1/4), (2 s R*)^(1/3))` is
    /// such a point (there `s x <= x^4 / 2R*` and `x^4 / 2R* >= delta`).
    pub fn radius_at(&self, delta: f64) -> Option<f64> {
        let (r, s) = (self.r, self.s());
        let xc = self.critical_radius().sqrt();
        if delta < self.critical_overlap() || !delta.is_finite() {
            return None;
        }
        let mut x = (2.0 * r * delta.max(0.0))
            .powf(0.25)
            .max((2.0 * s * r).cbrt());
        for _ in 0..100 {
            let g = x * x * x * x / r - s * x - delta;
            let slope = 4.0 * x * x * x / r - s;
            if slope <= 0.0 {
                break;
            }
            let next = (x - g / slope).max(xc);
            if next >= x {
                break;
            }
            x = next;
        }
        Some(x * x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> Jkr {
        Jkr {
            e: 1e7,
            r: 5e-4,
            w: 0.05,
        }
    }

    #[test]
    fn force_and_energy_agree_and_the_branch_ends_where_the_overlap_turns() {
        let j = pair();
        let ac = j.critical_radius();
        // d delta / da = 0 at a_c.
        let h = 1e-6 * ac;
        assert!((j.overlap(ac + h) - j.overlap(ac - h)).abs() < 1e-9 * h);
        let c = -0.75 * (PI * PI * j.w * j.w * j.r / (j.e * j.e)).cbrt();
        assert!((j.critical_overlap() / c - 1.0).abs() < 1e-12);
        // dU/da = F d delta/da.
        for a in [1.2 * ac, 3.0 * ac, 10.0 * ac] {
            let h = 1e-5 * a;
            let du = (j.energy(a + h) - j.energy(a - h)) / (2.0 * h);
            let dd = (j.overlap(a + h) - j.overlap(a - h)) / (2.0 * h);
            assert!((du / (j.force(a) * dd) - 1.0).abs() < 1e-7, "a = {a}");
        }
    }

    #[test]
    fn the_radius_is_found_again_from_its_overlap() {
        let j = pair();
        let ac = j.critical_radius();
        for k in 1..200 {
            let a = ac * (1.0 + 0.1 * k as f64).powi(2);
            let back = j.radius_at(j.overlap(a)).unwrap();
            assert!((back / a - 1.0).abs() < 1e-12, "a = {a}, found {back}");
        }
        // At the end of the branch the overlap is stationary in `a`: a rounding of the
        // overlap by 1e-16 moves the radius by about 1e-8.
        let back = j.radius_at(j.overlap(ac)).unwrap();
        assert!((back / ac - 1.0).abs() < 1e-7, "found {back}, a_c = {ac}");
        assert!(j.radius_at(j.critical_overlap() * 1.000001).is_none());
        assert!((j.radius_at(j.critical_overlap()).unwrap() / ac - 1.0).abs() < 1e-6);
    }
}
