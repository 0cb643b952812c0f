//! Reference solutions computed independently of the solver: the coefficient of
//! restitution of a one-dimensional force law, from its equation of motion integrated
//! with classical Runge-Kutta at a step far finer than any DEM step.

/// Restitution of `x'' = -f(x, x')` for an impact that starts at `x = 0` with `x' = 1`
/// (`x` the overlap, `f` the repulsive force per unit mass; the dimensionless form of a
/// self-similar law): the exit speed where `x` returns to zero. `h` is the RK4 step.
pub fn restitution(f: impl Fn(f64, f64) -> f64, h: f64) -> f64 {
    // The force law as continued from inside the contact (x >= 0).
    let acc = |x: f64, v: f64| -f(x.max(0.0), v);
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
    let (mut x, mut v) = (0.0f64, 1.0f64);
    for step in 0..100_000_000u64 {
        let (nx, nv) = rk4(x, v, h);
        if step > 0 && nx <= 0.0 {
            // The exit lies within this step: find it by Newton's method on the sub-step.
            let mut tau = h * x / (x - nx);
            let mut end = rk4(x, v, tau);
            for _ in 0..8 {
                tau -= end.0 / end.1;
                end = rk4(x, v, tau);
            }
            return -end.1;
        }
        (x, v) = (nx, nv);
    }
    panic!("no exit");
}

/// Damping ratio of a linear oscillator for restitution `e`.
pub fn damping_ratio(e: f64) -> f64 {
    let l = e.ln();
    -l / (l * l + std::f64::consts::PI.powi(2)).sqrt()
}

/// Restitution of the damped Hertz law `F = kh d^1.5 + 2 sqrt(5/6) zeta sqrt(S_n m) d'`
/// requested with `e`: with `clamped`, the force never pulls.
pub fn hertz_restitution(e: f64, clamped: bool) -> f64 {
    let g = 2.0 * (5.0f64 / 6.0).sqrt() * damping_ratio(e) * 1.5f64.sqrt();
    restitution(
        |x, v| {
            let f = x.powf(1.5) + g * x.powf(0.25) * v;
            if clamped {
                f.max(0.0)
            } else {
                f
            }
        },
        1e-5,
    )
}

/// Restitution of the Flores et al. law `F = c d^1.5 (1 + 8 (1 - e) / (5 e) d'/d'^-)`
/// (Modia3D's, clamped at zero) requested with `e`.
pub fn flores_restitution(e: f64) -> f64 {
    let d = 8.0 * (1.0 - e) / (5.0 * e);
    restitution(|x, v| (x.powf(1.5) * (1.0 + d * v)).max(0.0), 1e-5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undamped_and_linear_cases_are_exact() {
        // Elastic Hertz: restitution 1.
        assert!((restitution(|x, _| x.powf(1.5), 1e-4) - 1.0).abs() < 1e-9);
        // Linear spring-dashpot with attraction: exp(-zeta pi / sqrt(1 - zeta^2)) = e.
        let z = damping_ratio(0.5);
        let e = restitution(|x, v| x + 2.0 * z * v, 1e-4);
        assert!((e - 0.5).abs() < 1e-9, "{e}");
    }
}
