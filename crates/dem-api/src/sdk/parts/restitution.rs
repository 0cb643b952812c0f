//! From a requested coefficient of restitution to a damping ratio, so that the collision
//! delivers the requested coefficient.
//!
//! A normal impact of two bodies with a spring-dashpot law is a one-dimensional problem in
//! the overlap `delta` and the effective mass `m*`. For the two damping forms of the shipped
//! laws the coefficient of restitution `e` (separation speed over impact speed) depends on
//! the damping ratio `zeta` only, not on the impact speed, the stiffness or the mass:
//!
//! - **linear** (`m* delta'' = -k delta - 2 zeta sqrt(m* k) delta'`): with the force
//!   allowed to pull the contact ends when `delta` returns to zero, at
//!   `e = exp(-pi zeta / sqrt(1 - zeta^2))` (the classical formula, whose inverse is
//!   [`damping_ratio`]). With the force clamped at zero (no pull, the default) the
//!   bodies separate earlier, where the force reaches zero with `delta > 0`: the phase
//!   there is `omega_d t = 2 acos(zeta)`, which gives
//!   `e = exp(-2 zeta acos(zeta) / sqrt(1 - zeta^2))` for `zeta < 1`, `exp(-2)` at
//!   `zeta = 1` and `exp(-2 zeta acosh(zeta) / sqrt(zeta^2 - 1))` above (Schwager and
//!   Pöschel 2007 give the same result). Clamped, `e` is higher than the classical
//!   formula says for the same `zeta` (0.5 requested that way gives 0.550).
//! - **Hertz** (`m* delta'' = -kh delta^1.5 - 2 sqrt(5/6) zeta sqrt(S_n m*) delta'`,
//!   `S_n = 1.5 kh delta^0.5`, EDEM's and LIGGGHTS' form): in units of the impact speed and
//!   the length `(m* v^2 / kh)^(2/5)` the motion is `x'' = -x^1.5 - g x^0.25 x'` with
//!   `g = 2 sqrt(5/6) sqrt(3/2) zeta` and `x'(0) = 1`: no closed form, so
//!   [`hertz_restitution`] integrates it (classical Runge-Kutta, fixed step `1e-4`, the
//!   exit located within its step, the steps graded where `x`
//!   is near zero; it agrees with a step four times
//!   smaller to 1e-10).
//!
//! [`DampingFrom::Collision`] (the laws' default) inverts these by bisection, once when the
//! law is built (the result depends on `e` and on clamping only, so it is the same for
//! every material pair): the requested `e` is what the collision gives. With
//! [`DampingFrom::Oscillator`] the damping ratio is the classical one,
//! `zeta = -ln e / sqrt(ln^2 e + pi^2)`, as Yade, LIGGGHTS and EDEM define it (for
//! reproducing their results): exact with attraction for the linear law (and to about 1e-7
//! for Hertz), higher than requested when the force is clamped (Hertz: 0.550 for 0.5).

use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// How a law turns its `restitution` parameter into a damping ratio.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DampingFrom {
    /// The damping ratio for which the law's normal impact (clamped at zero unless the law
    /// allows attraction) rebounds with exactly the requested coefficient.
    #[default]
    Collision,
    /// The damping ratio of a linear oscillator with that coefficient,
    /// `-ln e / sqrt(ln^2 e + pi^2)` (Yade, LIGGGHTS, EDEM); a clamped collision then
    /// rebounds faster than requested.
    Oscillator,
}

/// The damping form of a law's normal force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DampingForm {
    /// `F = k delta + 2 zeta sqrt(m* k) delta'`.
    Linear,
    /// `F = kh delta^1.5 + 2 sqrt(5/6) zeta sqrt(S_n m*) delta'`, `S_n = 1.5 kh delta^0.5`.
    Hertz,
}

impl DampingFrom {
    /// The damping ratio (-) that gives restitution `e` in (0, 1] to a normal impact with
    /// a force of form `form`, clamped at zero (no pull) unless `attraction`. 0 for
    /// `e = 1`.
    pub fn damping_ratio(self, e: f64, form: DampingForm, attraction: bool) -> f64 {
        match (self, form, attraction) {
            (DampingFrom::Oscillator, _, _)
            | (DampingFrom::Collision, DampingForm::Linear, true) => damping_ratio(e),
            (DampingFrom::Collision, DampingForm::Linear, false) => {
                invert(e, |z| linear_restitution(z, true))
            }
            (DampingFrom::Collision, DampingForm::Hertz, pull) => {
                invert(e, |z| hertz_restitution(z, !pull))
            }
        }
    }
}

/// Damping ratio `zeta = -ln e / sqrt(ln^2 e + pi^2)` that gives the coefficient of
/// restitution `e` in (0, 1] to a linear damped oscillator whose force may pull (0 for
/// `e = 1`).
pub fn damping_ratio(e: f64) -> f64 {
    let l = e.ln();
    -l / (l * l + PI * PI).sqrt()
}

/// Restitution of the linear spring-dashpot impact with damping ratio `zeta >= 0`; with
/// `clamped` the force never pulls (see the module documentation for the closed forms).
pub fn linear_restitution(zeta: f64, clamped: bool) -> f64 {
    if zeta == 0.0 {
        return 1.0;
    }
    if !clamped {
        return if zeta < 1.0 {
            (-PI * zeta / (1.0 - zeta * zeta).sqrt()).exp()
        } else {
            0.0
        };
    }
    let s = (zeta * zeta - 1.0).abs().sqrt();
    let phase = if zeta < 1.0 {
        2.0 * zeta.acos() / s
    } else if zeta > 1.0 {
        2.0 * zeta.acosh() / s
    } else {
        2.0
    };
    (-zeta * phase).exp()
}

/// Restitution of the damped Hertz impact `x'' = -x^1.5 - g x^0.25 x'`,
/// `g = 2 sqrt(5/6) sqrt(3/2) zeta`, from `x = 0`, `x' = 1`; with `clamped` the force never
/// pulls. Classical Runge-Kutta with step `1e-4` (graded down to 1e-12 where `x` is zero); the exit (`x` back to zero, or clamped
/// the force back to zero, after which it stays zero) is located within its step.
pub fn hertz_restitution(zeta: f64, clamped: bool) -> f64 {
    hertz_restitution_with_step(zeta, clamped, 1e-4)
}

fn hertz_restitution_with_step(zeta: f64, clamped: bool, h: f64) -> f64 {
    let g = 2.0 * (5.0f64 / 6.0).sqrt() * 1.5f64.sqrt() * zeta;
    // The force per unit mass, positive repulsive.
    let force = |x: f64, v: f64| {
        let r = x.max(0.0).sqrt();
        r * r * r + g * r.sqrt() * v
    };
    let acc = |x: f64, v: f64| {
        let f = force(x, v);
        if clamped {
            -f.max(0.0)
        } else {
            -f
        }
    };
    let rk4 = |x: f64, v: f64, h: f64| {
        let (k1x, k1v) = (v, acc(x, v));
        let (k2x, k2v) = (v + 0.5 * h * k1v, acc(x + 0.5 * h * k1x, v + 0.5 * h * k1v));
        let (k3x, k3v) = (v + 0.5 * h * k2v, acc(x + 0.5 * h * k2x, v + 0.5 * h * k2v));
        let (k4x, k4v) = (v + h * k3v, acc(x + h * k3x, v + h * k3v));
        (
            x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
            v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
        )
    };
    let (mut x, mut v, mut t) = (0.0f64, 1.0f64, 0.0f64);
    // The damping term `x^0.25` is not smooth where `x` is zero: steps grow geometrically
    // from 1e-12 to `h` at the start (a tenth of the time elapsed) and shrink likewise
    // towards the exit (a tenth of the time `x` needs to reach zero at the current speed),
    // which keeps the error there far below the fixed step's.
    while t < 100.0 {
        let h = h.min((0.1 * t).max(1e-12));
        let h = if v < 0.0 {
            h.min((0.1 * x / -v).max(1e-12))
        } else {
            h
        };
        let (nx, nv) = rk4(x, v, h);
        if clamped && nv < 0.0 && force(nx, nv) <= 0.0 {
            // The force reaches zero within this step, and stays zero from there (the
            // overlap falls faster than the damping term): free flight at the speed there,
            // the point found by bisection on the sub-step.
            let (mut lo, mut hi) = (0.0, h);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                let (mx, mv) = rk4(x, v, mid);
                if mv < 0.0 && force(mx, mv) <= 0.0 {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            return -rk4(x, v, hi).1;
        }
        if t > 0.0 && nx <= 0.0 {
            // Unclamped: the exit lies within this step; Newton's method on the sub-step.
            let mut tau = h * x / (x - nx);
            let mut end = rk4(x, v, tau);
            for _ in 0..8 {
                if end.1 == 0.0 {
                    break;
                }
                tau -= end.0 / end.1;
                end = rk4(x, v, tau);
            }
            return -end.1;
        }
        (x, v, t) = (nx, nv, t + h);
    }
    // Overdamped and allowed to pull: the overlap never returns to zero.
    0.0
}

/// The `zeta >= 0` with `restitution(zeta) = e`, for a restitution that falls from 1 at
/// `zeta = 0` towards 0: bisection (to 1e-12 in `zeta`, or until the interval cannot be
/// halved).
fn invert(e: f64, restitution: impl Fn(f64) -> f64) -> f64 {
    if e >= 1.0 {
        return 0.0;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while restitution(hi) > e && hi < 1e6 {
        lo = hi;
        hi *= 2.0;
    }
    while hi - lo > 1e-12 * hi {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if restitution(mid) > e {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The linear impact integrated directly (semi-implicit, fine step), independent of
    /// the closed form.
    fn linear_by_integration(zeta: f64, clamped: bool) -> f64 {
        let (mut x, mut v, h) = (0.0f64, 1.0f64, 1e-6);
        loop {
            let f = x + 2.0 * zeta * v;
            let f = if clamped { f.max(0.0) } else { f };
            v -= f * h;
            x += v * h;
            if x <= 0.0 || (clamped && f == 0.0 && v < 0.0) {
                return -v;
            }
        }
    }

    #[test]
    fn linear_closed_form_matches_the_equation_of_motion() {
        for zeta in [0.05, 0.3, 0.7, 1.0, 1.5, 3.0] {
            let exact = linear_restitution(zeta, true);
            let direct = linear_by_integration(zeta, true);
            assert!((exact - direct).abs() < 1e-5, "{zeta}: {exact} vs {direct}");
        }
        for zeta in [0.05, 0.3, 0.7] {
            let exact = linear_restitution(zeta, false);
            let direct = linear_by_integration(zeta, false);
            assert!((exact - direct).abs() < 1e-5, "{zeta}: {exact} vs {direct}");
            assert!((damping_ratio(exact) - zeta).abs() < 1e-12);
        }
        // Continuous through critical damping.
        let e = |z| linear_restitution(z, true);
        assert!((e(1.0 - 1e-7) - e(1.0)).abs() < 1e-6 && (e(1.0 + 1e-7) - e(1.0)).abs() < 1e-6);
    }

    #[test]
    fn inverses_deliver_the_request() {
        for e in [0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99] {
            let z = DampingFrom::Collision.damping_ratio(e, DampingForm::Linear, false);
            assert!(
                (linear_restitution(z, true) - e).abs() < 1e-10,
                "linear {e}"
            );
            let z = DampingFrom::Collision.damping_ratio(e, DampingForm::Hertz, false);
            assert!((hertz_restitution(z, true) - e).abs() < 1e-10, "hertz {e}");
        }
        assert_eq!(
            DampingFrom::Collision.damping_ratio(1.0, DampingForm::Hertz, false),
            0.0
        );
        // The classical ratio with clamping rebounds faster (Hertz: 0.550 for 0.5).
        let z = DampingFrom::Oscillator.damping_ratio(0.5, DampingForm::Hertz, false);
        assert!((hertz_restitution(z, true) - 0.5503).abs() < 5e-4);
        // Elastic Hertz rebounds with 1; with attraction the classical ratio is nearly exact.
        assert!((hertz_restitution(0.0, true) - 1.0).abs() < 1e-9);
        assert!((hertz_restitution(damping_ratio(0.5), false) - 0.5).abs() < 1e-5);
    }

    #[test]
    fn hertz_step_is_fine_enough() {
        for zeta in [0.05, 0.4, 1.5] {
            for clamped in [true, false] {
                let a = hertz_restitution(zeta, clamped);
                let b = hertz_restitution_with_step(zeta, clamped, 2.5e-5);
                assert!((a - b).abs() < 1e-10, "{zeta} {clamped}: {a} vs {b}");
            }
        }
        // Clamping rebounds faster.
        assert!(hertz_restitution(0.4, true) > hertz_restitution(0.4, false));
    }
}
