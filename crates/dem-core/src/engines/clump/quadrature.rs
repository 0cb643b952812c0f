//! Gauss-Legendre quadrature rules, computed by Newton's method on the Legendre
//! polynomial (Golub & Welsch's tables agree to round-off for the orders used here).

/// Nodes and weights of the `n`-point Gauss-Legendre rule on [-1, 1]: exact for
/// polynomials of degree up to `2n - 1`.
pub fn gauss_legendre(n: usize) -> Vec<(f64, f64)> {
    let mut rule = Vec::with_capacity(n);
    for i in 0..n {
        // Tricomi's first guess for root i (descending), then Newton.
        let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
        let mut dp = 1.0;
        for _ in 0..100 {
            let (p, d) = legendre(n, x);
            dp = d;
            let step = p / d;
            x -= step;
            if step.abs() <= 1e-16 {
                break;
            }
        }
        let (_, d) = legendre(n, x);
        dp = if d != 0.0 { d } else { dp };
        rule.push((x, 2.0 / ((1.0 - x * x) * dp * dp)));
    }
    rule
}

/// `P_n(x)` and its derivative, by the three-term recurrence.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    if n == 0 {
        return (1.0, 0.0);
    }
    for k in 2..=n {
        let k = k as f64;
        let p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
    }
    let n = n as f64;
    (p1, n * (x * p1 - p0) / (x * x - 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_integrate_polynomials_up_to_their_degree_exactly() {
        for n in [1, 2, 5, 12, 24] {
            let rule = gauss_legendre(n);
            for degree in 0..2 * n {
                let got: f64 = rule.iter().map(|(x, w)| w * x.powi(degree as i32)).sum();
                let exact = if degree % 2 == 1 {
                    0.0
                } else {
                    2.0 / (degree as f64 + 1.0)
                };
                assert!((got - exact).abs() < 1e-14, "n {n} degree {degree}: {got}");
            }
        }
    }
}
