//! Continuous penalty forces (Tang et al. 2012): the impulse of a penalty force integrated
//! over the penetration interval of a linear trajectory, in closed form.
//!
//! A step's trajectory is the relative centre `c(s) = a + b s`, `s` in [0, 1] (centre of
//! body 2 minus centre of body 1). The penetration is `delta(s) = S - |c(s)|` for two
//! spheres of radii summing to `S`, with normal `n(s) = c(s)/|c(s)|`; against a plane it is
//! linear in `s` with a fixed normal. The mean force over the step is
//! `k int_0^1 max(delta, 0)^p n ds`, `p` = 1 (linear) or 3/2 (Hertzian).
//!
//! Two spheres, `p = 1`: with `q(s) = |c|^2 = A s^2 + B s + C` (`A = b.b`, `B = 2 a.b`,
//! `C = a.a`), over the interval `[s0, s1]` where `q < S^2`:
//!
//! `int (S - |c|) c/|c| ds = S (c_p J0 + b (|c(s1)| - |c(s0)|)/A) - (a (s1 - s0) + b (s1^2 - s0^2)/2)`,
//!
//! with `c_p = a + b s*`, `s* = -B/(2A)` the closest approach of the line to the origin,
//! `h = |c_p|/sqrt(A)`, `x = s - s*` and `J0 = int ds/|c| = (asinh(x1/h) - asinh(x0/h))/sqrt(A)`
//! (written with logarithms of `|x| + sqrt(x^2 + h^2)` so that head-on motion, `h = 0`,
//! has no cancellation). When the relative motion is negligible (`A` tiny) the trajectory
//! is a point.
//!
//! Two spheres, `p = 3/2`: no elementary antiderivative. Over the same interval
//! `[s0, s1]`, the substitution `s = s0 + (s1 - s0) (3u^2 - 2u^3)` makes the integrand
//! analytic in `u` on [0, 1] (`delta^(3/2)` grows like `u^3` from a root, and the nearest
//! singularities are at `u = -1/2` and `u = 3/2`), so 20-point Gauss-Legendre quadrature
//! is exact to rounding (its error falls like `3.7^(-2n)`).
//!
//! Plane: with `delta` linear from `d0` to `d1`, over the part of
//! the step where it is positive: `int delta^p ds = (d1^(p+1) - d0^(p+1)) / ((p+1)(d1 - d0))`
//! with negative ends clipped to the crossing; for `p = 1` and both ends positive this is
//! the trapezoid `(d0 + d1)/2`; entering, `d1^2 / (2 (d1 - d0))`; leaving,
//! `d0^2 / (2 (d0 - d1))`.

use dem_api::nalgebra::Vector3;

/// `int_0^1 max(d(s), 0)^p ds` for `d` linear from `d0` to `d1`.
pub fn linear_depth_integral(d0: f64, d1: f64, p: f64) -> f64 {
    let f = |d: f64| d.max(0.0).powf(p + 1.0) / (p + 1.0);
    if (d1 - d0).abs() <= 1e-14 * (d0.abs() + d1.abs()) {
        // No motion along the normal: the depth is constant.
        return d0.max(0.0).powf(p);
    }
    (f(d1) - f(d0)) / (d1 - d0)
}

/// Mean force per unit stiffness over a step for two spheres (radii summing to `sum`)
/// whose relative centre moves from `c0` to `c1`: `int_0^1 max(S - |c|, 0)^p c/|c| ds`.
pub fn sphere_sphere(c0: &Vector3<f64>, c1: &Vector3<f64>, sum: f64, p: f64) -> Vector3<f64> {
    let (a, b) = (*c0, c1 - c0);
    let (qa, qb, qc) = (b.dot(&b), 2.0 * a.dot(&b), a.dot(&a));
    if qa <= 1e-24 * qc {
        // The centres do not move relative to each other.
        let d = sum - a.norm();
        return if d > 0.0 && qc > 0.0 {
            a.normalize() * d.powf(p)
        } else {
            Vector3::zeros()
        };
    }
    // Penetration interval: q(s) < S^2.
    let disc = qb * qb - 4.0 * qa * (qc - sum * sum);
    if disc <= 0.0 {
        return Vector3::zeros();
    }
    let root = disc.sqrt();
    // Stable roots of the quadratic.
    let t = -0.5 * (qb + qb.signum() * root);
    let (r0, r1) = if t != 0.0 {
        let (x, y) = (t / qa, (qc - sum * sum) / t);
        (x.min(y), x.max(y))
    } else {
        let x = root / (2.0 * qa);
        (-x, x)
    };
    let (s0, s1) = (r0.max(0.0), r1.min(1.0));
    if s1 <= s0 {
        return Vector3::zeros();
    }
    if p != 1.0 {
        return smoothed_quadrature(&a, &b, s0, s1, sum, p);
    }
    // Split c = c_perp + b (s - s*), with c_perp the closest approach (perpendicular to
    // b): then |c| = sqrt(A) sqrt(x^2 + h^2), x = s - s*, h = |c_perp| / sqrt(A), and
    // int c/|c| ds = c_perp J0 + b (|c(s1)| - |c(s0)|) / A, J0 = int ds/|c|, in a form
    // without cancellation for head-on (h = 0) and nearly head-on motion.
    let sa = qa.sqrt();
    let s_star = -qb / (2.0 * qa);
    let c_perp = a + b * s_star;
    let h = c_perp.norm() / sa;
    let (x0, x1) = (s0 - s_star, s1 - s_star);
    let g = |x: f64| (x.abs() + x.hypot(h)).ln();
    let d = if x0 >= 0.0 {
        g(x1) - g(x0)
    } else if x1 <= 0.0 {
        g(x0) - g(x1)
    } else {
        (x1 / h).asinh() + (-x0 / h).asinh()
    };
    let j0 = if c_perp.norm() > 0.0 { d / sa } else { 0.0 };
    let c = |s: f64| (a + b * s).norm();
    let k = (c(s1) - c(s0)) / qa;
    (c_perp * j0 + b * k) * sum - (a * (s1 - s0) + b * (0.5 * (s1 * s1 - s0 * s0)))
}

/// `int_s0^s1 (S - |c|)^p c/|c| ds` with `c = a + b s`, by Gauss-Legendre quadrature in
/// `u` with `s = s0 + (s1 - s0) (3u^2 - 2u^3)` (see the module documentation).
fn smoothed_quadrature(
    a: &Vector3<f64>,
    b: &Vector3<f64>,
    s0: f64,
    s1: f64,
    sum: f64,
    p: f64,
) -> Vector3<f64> {
    let len = s1 - s0;
    let mut out = Vector3::zeros();
    for &(x, w) in gauss_legendre().iter() {
        let u = 0.5 * (x + 1.0);
        let s = s0 + len * u * u * (3.0 - 2.0 * u);
        let ds_du = len * 6.0 * u * (1.0 - u);
        let c = a + b * s;
        let r = c.norm();
        let depth = (sum - r).max(0.0);
        if r > 0.0 && depth > 0.0 {
            out += c * (depth.powf(p) / r * ds_du * 0.5 * w);
        }
    }
    out
}

/// Nodes and weights of 20-point Gauss-Legendre quadrature on [-1, 1], by Newton's method
/// on the Legendre polynomial (computed once).
fn gauss_legendre() -> &'static [(f64, f64); 20] {
    static RULE: std::sync::OnceLock<[(f64, f64); 20]> = std::sync::OnceLock::new();
    RULE.get_or_init(|| {
        const N: usize = 20;
        let mut rule = [(0.0, 0.0); N];
        for (i, node) in rule.iter_mut().enumerate() {
            // Initial guess: Chebyshev-like estimate of the i-th root.
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (N as f64 + 0.5)).cos();
            let mut dp = 0.0;
            for _ in 0..100 {
                // P_N(x) and its derivative by the three-term recurrence.
                let (mut p0, mut p1) = (1.0, x);
                for k in 2..=N {
                    let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                    p0 = p1;
                    p1 = p2;
                }
                dp = N as f64 * (x * p1 - p0) / (x * x - 1.0);
                let dx = p1 / dp;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            *node = (x, 2.0 / ((1.0 - x * x) * dp * dp));
        }
        rule
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adaptive Simpson quadrature, to compare with the closed forms.
    fn simpson(f: &dyn Fn(f64) -> f64, a: f64, b: f64, tol: f64) -> f64 {
        #[allow(clippy::too_many_arguments)]
        fn rec(
            f: &dyn Fn(f64) -> f64,
            a: f64,
            b: f64,
            fa: f64,
            fm: f64,
            fb: f64,
            whole: f64,
            tol: f64,
            depth: u32,
        ) -> f64 {
            let m = 0.5 * (a + b);
            let (lm, rm) = (0.5 * (a + m), 0.5 * (m + b));
            let (flm, frm) = (f(lm), f(rm));
            let left = (m - a) / 6.0 * (fa + 4.0 * flm + fm);
            let right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);
            if depth > 40 || (left + right - whole).abs() <= 15.0 * tol {
                return left + right + (left + right - whole) / 15.0;
            }
            rec(f, a, m, fa, flm, fm, left, tol / 2.0, depth + 1)
                + rec(f, m, b, fm, frm, fb, right, tol / 2.0, depth + 1)
        }
        let (fa, fm, fb) = (f(a), f(0.5 * (a + b)), f(b));
        rec(
            f,
            a,
            b,
            fa,
            fm,
            fb,
            (b - a) / 6.0 * (fa + 4.0 * fm + fb),
            tol,
            0,
        )
    }

    /// The same integral by quadrature, component by component, split at the crossings
    /// so that the kinks do not limit the accuracy.
    fn quadrature(c0: Vector3<f64>, c1: Vector3<f64>, sum: f64, p: f64) -> Vector3<f64> {
        let c = |s: f64| c0 + (c1 - c0) * s;
        let mut cuts = vec![0.0, 1.0];
        let n = 4096;
        for i in 0..n {
            let (x, y) = (i as f64 / n as f64, (i + 1) as f64 / n as f64);
            let (dx, dy) = (sum - c(x).norm(), sum - c(y).norm());
            if dx.signum() != dy.signum() {
                // Bisection to the crossing.
                let (mut lo, mut hi) = (x, y);
                for _ in 0..200 {
                    let m = 0.5 * (lo + hi);
                    if (sum - c(m).norm()).signum() == dx.signum() {
                        lo = m;
                    } else {
                        hi = m;
                    }
                }
                cuts.push(0.5 * (lo + hi));
            }
        }
        cuts.sort_by(f64::total_cmp);
        let mut out = Vector3::zeros();
        for w in cuts.windows(2) {
            for k in 0..3 {
                let f = |s: f64| {
                    let cs = c(s);
                    (sum - cs.norm()).max(0.0).powf(p) * cs[k] / cs.norm()
                };
                // Tolerance relative to the size of the integrand on the piece.
                let peak = (0..=64)
                    .map(|i| f(w[0] + (w[1] - w[0]) * i as f64 / 64.0).abs())
                    .fold(0.0, f64::max);
                let tol = (1e-14 * peak * (w[1] - w[0])).max(f64::MIN_POSITIVE);
                out[k] += simpson(&f, w[0], w[1], tol);
            }
        }
        out
    }

    #[test]
    fn sphere_sphere_matches_quadrature() {
        let s = 0.02;
        let cases = [
            (
                "fully inside",
                Vector3::new(0.0199, 0.0, 0.0),
                Vector3::new(0.0198, 0.0001, 0.0),
            ),
            (
                "entering",
                Vector3::new(0.0201, 0.0, 0.0),
                Vector3::new(0.0199, 0.0, 0.0),
            ),
            (
                "leaving",
                Vector3::new(0.0199, 0.0, 0.0),
                Vector3::new(0.0202, 0.0, 0.0),
            ),
            (
                "head-on through",
                Vector3::new(0.0201, 0.0, 0.0),
                Vector3::new(0.0195, 0.0, 0.0),
            ),
            (
                "oblique",
                Vector3::new(0.0201, -0.001, 0.0003),
                Vector3::new(0.0197, 0.002, -0.0004),
            ),
            (
                "grazing",
                Vector3::new(0.01999, -0.003, 0.0),
                Vector3::new(0.01999, 0.003, 0.0),
            ),
            (
                "in and out",
                Vector3::new(0.0201, -0.004, 0.0),
                Vector3::new(0.0199, 0.004, 0.0),
            ),
            (
                "missing",
                Vector3::new(0.0201, -0.003, 0.0),
                Vector3::new(0.0201, 0.003, 0.0),
            ),
        ];
        for p in [1.0, 1.5] {
            for (name, c0, c1) in cases {
                let exact = sphere_sphere(&c0, &c1, s, p);
                let quad = quadrature(c0, c1, s, p);
                let scale = quad.norm().max(1e-300);
                let err = (exact - quad).norm();
                println!(
                    "p = {p}, {name}: {exact:?} vs {quad:?}, relative error {:e}",
                    err / scale
                );
                assert!(
                    err <= 1e-10 * scale || err < 1e-20,
                    "p = {p}, {name}: {exact:?} vs {quad:?}"
                );
            }
        }
        // The Gauss-Legendre rule integrates polynomials of degree 39 exactly.
        let rule = gauss_legendre();
        let x38: f64 = rule.iter().map(|&(x, w)| w * x.powi(38)).sum();
        assert!((x38 - 2.0 / 39.0).abs() < 1e-15, "{x38}");
        assert!((rule.iter().map(|r| r.1).sum::<f64>() - 2.0).abs() < 1e-14);
    }

    #[test]
    fn plane_closed_forms_match_quadrature() {
        for (d0, d1) in [
            (1e-4, 2e-4),
            (-1e-4, 2e-4),
            (2e-4, -1e-4),
            (-1e-4, -2e-4),
            (3e-5, 3e-5),
        ] {
            for p in [1.0, 1.5] {
                let f = |s: f64| (d0 + (d1 - d0) * s).max(0.0).powf(p);
                let cut = if (d0 > 0.0) != (d1 > 0.0) {
                    d0 / (d0 - d1)
                } else {
                    0.5
                };
                let quad = simpson(&f, 0.0, cut, 1e-22) + simpson(&f, cut, 1.0, 1e-22);
                let exact = linear_depth_integral(d0, d1, p);
                assert!(
                    (exact - quad).abs() <= 1e-10 * quad.abs().max(1e-30),
                    "{d0} {d1} {p}: {exact} vs {quad}"
                );
            }
        }
        // The reference's special cases for p = 1.
        assert!((linear_depth_integral(-1.0, 3.0, 1.0) - 9.0 / 8.0).abs() < 1e-15);
        assert!((linear_depth_integral(3.0, -1.0, 1.0) - 9.0 / 8.0).abs() < 1e-15);
        assert!((linear_depth_integral(1.0, 3.0, 1.0) - 2.0).abs() < 1e-15);
    }
}
