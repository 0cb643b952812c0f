//! Size distributions: the `radius` of a generator as a value or a distribution of radii,
//! given by number (the fraction of particles) or by mass (the fraction of the mass, as a
//! sieve analysis gives it). A distribution by mass is sampled through the number
//! distribution it implies: for spheres of one density the mass of a particle is
//! proportional to `r^3`, so the number density is the mass density divided by `r^3`.
//! Radii are drawn by inverting a cumulative distribution (one uniform number per radius),
//! the log-normal by the Box-Muller transform (two).

use rand::Rng;
use serde::Deserialize;
use std::path::Path;

/// What the fractions of a distribution count.
#[derive(Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Basis {
    /// Fractions of the number of particles.
    #[default]
    Number,
    /// Fractions of the mass (of the volume, for one density).
    Mass,
}

/// A radius or a distribution of radii (m).
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum Radius {
    /// Every sphere the same.
    Const(f64),
    /// Uniform by number in `[min, max)`.
    Uniform(f64, f64),
    /// Given radii with their fractions (normalised to sum 1), by number or by mass.
    Discrete {
        /// `(radius m, fraction)` pairs.
        sizes: Vec<(f64, f64)>,
        /// What the fractions count.
        #[serde(default)]
        by: Basis,
    },
    /// Log-normal: `ln r` normal with median `median` (m) and standard deviation
    /// `sigma`, by number or by mass, truncated to `clip` (m) if given.
    LogNormal {
        /// Median radius of the distribution as given (by number or by mass), m.
        median: f64,
        /// Standard deviation of `ln r`.
        sigma: f64,
        /// What the distribution counts.
        #[serde(default)]
        by: Basis,
        /// Smallest and largest radius drawn, m.
        #[serde(default)]
        clip: Option<(f64, f64)>,
    },
    /// A cumulative curve read from a CSV file (relative to the scene file): rows
    /// `radius,cumulative` (m, fraction in [0, 1] rising to 1), linear between rows.
    Table {
        /// The CSV file.
        file: String,
        /// What the cumulative fraction counts.
        #[serde(default)]
        by: Basis,
    },
}

/// A distribution ready to draw radii from (validated; tables read).
#[derive(Debug, Clone)]
pub enum Sampler {
    /// One radius.
    Const(f64),
    /// Uniform by number in `[a, b)`.
    Uniform(f64, f64),
    /// Radii with the cumulative number fraction up to and including each.
    Discrete(Vec<(f64, f64)>),
    /// `ln r` normal (by number) with mean `mu` and deviation `sigma`, within `[lo, hi]`.
    LogNormal {
        mu: f64,
        sigma: f64,
        lo: f64,
        hi: f64,
    },
    /// Bins `[r_k, r_k+1]` with the cumulative number fraction at their ends and the
    /// basis of the density within a bin: uniform in `r` by number, or by mass (number
    /// density proportional to `r^-3`).
    Table { knots: Vec<(f64, f64)>, by: Basis },
}

/// Largest number of draws for one radius of a clipped log-normal before it is refused.
const CLIP_TRIES: usize = 10_000;

impl Radius {
    /// Validates the distribution and reads its table (paths relative to `base`); the
    /// error names the problem (the caller adds the field).
    pub fn sampler(&self, base: &Path) -> Result<Sampler, String> {
        let positive = |x: f64, what: &str| {
            if x > 0.0 && x.is_finite() {
                Ok(x)
            } else {
                Err(format!("{what} must be positive and finite, got {x}"))
            }
        };
        match self {
            Radius::Const(r) => Ok(Sampler::Const(positive(*r, "the radius")?)),
            Radius::Uniform(a, b) => {
                positive(*a, "the smallest radius")?;
                positive(*b, "the largest radius")?;
                if b < a {
                    return Err(format!("Uniform({a}, {b}): the range is inverted"));
                }
                Ok(Sampler::Uniform(*a, *b))
            }
            Radius::Discrete { sizes, by } => {
                if sizes.is_empty() {
                    return Err("Discrete: no sizes".into());
                }
                let mut weights = Vec::with_capacity(sizes.len());
                for &(r, f) in sizes {
                    positive(r, "a radius")?;
                    if !(f >= 0.0 && f.is_finite()) {
                        return Err(format!("Discrete: fraction {f} of radius {r} is not >= 0"));
                    }
                    weights.push((r, number_weight(f, r, *by)));
                }
                let total: f64 = weights.iter().map(|w| w.1).sum();
                if !(total > 0.0 && total.is_finite()) {
                    return Err("Discrete: the fractions sum to zero".into());
                }
                let mut sum = 0.0;
                let cumulative = weights
                    .into_iter()
                    .map(|(r, w)| {
                        sum += w / total;
                        (r, sum)
                    })
                    .collect();
                Ok(Sampler::Discrete(cumulative))
            }
            Radius::LogNormal {
                median,
                sigma,
                by,
                clip,
            } => {
                positive(*median, "LogNormal: the median")?;
                positive(*sigma, "LogNormal: sigma")?;
                let (lo, hi) = clip.unwrap_or((0.0, f64::INFINITY));
                if !(lo >= 0.0 && hi > lo) {
                    return Err(format!(
                        "LogNormal: clip ({lo}, {hi}) must have 0 <= lo < hi"
                    ));
                }
                // By mass: ln r of the number distribution is shifted by -3 sigma^2
                // (Hatch-Choate); the clip bounds the same radii either way.
                let mu = median.ln()
                    - if *by == Basis::Mass {
                        3.0 * sigma * sigma
                    } else {
                        0.0
                    };
                let s = Sampler::LogNormal {
                    mu,
                    sigma: *sigma,
                    lo,
                    hi,
                };
                // The share of the untruncated distribution inside the clip.
                let f = |x: f64| {
                    if x > 0.0 {
                        phi((x.ln() - mu) / sigma)
                    } else {
                        0.0
                    }
                };
                if f(hi) - f(lo) < 1e-3 {
                    return Err(format!(
                        "LogNormal: clip ({lo}, {hi}) keeps less than 0.1 % of the distribution"
                    ));
                }
                Ok(s)
            }
            Radius::Table { file, by } => {
                let path = base.join(file);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("Table: cannot read {}: {e}", path.display()))?;
                table(&text, *by).map_err(|e| format!("Table {}: {e}", path.display()))
            }
        }
    }
}

/// The number weight of a fraction `f` of particles of radius `r` counted by `by`.
fn number_weight(f: f64, r: f64, by: Basis) -> f64 {
    match by {
        Basis::Number => f,
        Basis::Mass => f / (r * r * r),
    }
}

/// Reads a cumulative curve `radius,cumulative` (a header line is allowed; `#` starts a
/// comment) into bins with the cumulative number fraction at each knot.
fn table(text: &str, by: Basis) -> Result<Sampler, String> {
    let mut rows: Vec<(f64, f64)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed = match cells.as_slice() {
            [r, c] => r.parse::<f64>().ok().zip(c.parse::<f64>().ok()),
            _ => None,
        };
        match parsed {
            Some((r, c)) => rows.push((r, c)),
            None if rows.is_empty() && n == 0 => continue, // the header
            None => {
                return Err(format!(
                    "line {}: expected `radius,cumulative`, got `{line}`",
                    n + 1
                ))
            }
        }
    }
    if rows.len() < 2 {
        return Err("needs at least two rows".into());
    }
    for w in rows.windows(2) {
        if !(w[0].0 > 0.0 && w[1].0 > w[0].0 && w[1].0.is_finite() && w[1].1 >= w[0].1) {
            return Err(format!(
                "radii must be positive, finite and rising, fractions not falling: ({}, {}) \
                 then ({}, {})",
                w[0].0, w[0].1, w[1].0, w[1].1
            ));
        }
    }
    let (first, last) = (rows[0].1, rows[rows.len() - 1].1);
    if !(first.abs() < 1e-9 && (last - 1.0).abs() < 1e-9 && rows.iter().all(|r| r.1.is_finite())) {
        return Err(format!(
            "the cumulative fraction must run from 0 to 1, got {first} to {last}"
        ));
    }
    // Number in each bin: the mass in it spread evenly over r, divided by r^3.
    let mut cumulative = vec![(rows[0].0, 0.0)];
    let mut sum = 0.0;
    for w in rows.windows(2) {
        let (a, b, f) = (w[0].0, w[1].0, w[1].1 - w[0].1);
        sum += match by {
            Basis::Number => f,
            Basis::Mass => f / (b - a) * (a.powi(-2) - b.powi(-2)) / 2.0,
        };
        cumulative.push((b, sum));
    }
    for k in &mut cumulative {
        k.1 /= sum;
    }
    Ok(Sampler::Table {
        knots: cumulative,
        by,
    })
}

/// The standard normal cumulative distribution.
fn phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

impl Sampler {
    /// Draws one radius, m.
    pub fn sample(&self, rng: &mut impl Rng) -> f64 {
        match self {
            Sampler::Const(r) => *r,
            Sampler::Uniform(a, b) if b > a => rng.random_range(*a..*b),
            Sampler::Uniform(a, _) => *a,
            Sampler::Discrete(c) => {
                let u: f64 = rng.random();
                c.iter().find(|k| u < k.1).unwrap_or(&c[c.len() - 1]).0
            }
            Sampler::LogNormal { mu, sigma, lo, hi } => {
                for _ in 0..CLIP_TRIES {
                    let (u1, u2): (f64, f64) = (rng.random(), rng.random());
                    let z = (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                    let r = (mu + sigma * z).exp();
                    if r >= *lo && r <= *hi {
                        return r;
                    }
                }
                // Unreachable in practice: the clip keeps at least 0.1 % (checked).
                lo.max(mu.exp()).min(*hi)
            }
            Sampler::Table { knots, by } => {
                let u: f64 = rng.random();
                let k = knots
                    .iter()
                    .position(|k| u < k.1)
                    .unwrap_or(knots.len() - 1)
                    .max(1);
                let ((a, fa), (b, fb)) = (knots[k - 1], knots[k]);
                let t = if fb > fa {
                    ((u - fa) / (fb - fa)).clamp(0.0, 1.0)
                } else {
                    0.5
                };
                match by {
                    Basis::Number => a + t * (b - a),
                    // Number density proportional to r^-3 in the bin: invert its CDF.
                    Basis::Mass => (a.powi(-2) - t * (a.powi(-2) - b.powi(-2))).powf(-0.5),
                }
            }
        }
    }

    /// Smallest radius it can give, m.
    pub fn min(&self) -> f64 {
        match self {
            Sampler::Const(r) => *r,
            Sampler::Uniform(a, _) => *a,
            Sampler::Discrete(c) => {
                // Cumulative fractions: a radius has a share where its fraction rises.
                let mut prev = 0.0;
                let mut low = f64::INFINITY;
                for &(r, f) in c {
                    if f > prev {
                        low = low.min(r);
                    }
                    prev = f;
                }
                low
            }
            Sampler::LogNormal { lo, .. } => *lo,
            Sampler::Table { knots, .. } => knots[0].0,
        }
    }

    /// Largest radius it can draw, m (infinite for an unclipped log-normal).
    pub fn max(&self) -> f64 {
        match self {
            Sampler::Const(r) => *r,
            Sampler::Uniform(_, b) => *b,
            Sampler::Discrete(c) => c
                .iter()
                .filter(|k| k.1 > 0.0)
                .map(|k| k.0)
                .fold(0.0, f64::max),
            Sampler::LogNormal { hi, .. } => *hi,
            Sampler::Table { knots, .. } => knots[knots.len() - 1].0,
        }
    }

    /// Fraction of the particles (by number) with a radius at most `r`.
    pub fn cdf(&self, r: f64) -> f64 {
        match self {
            Sampler::Const(c) => f64::from(r >= *c),
            Sampler::Uniform(a, b) if b > a => ((r - a) / (b - a)).clamp(0.0, 1.0),
            Sampler::Uniform(a, _) => f64::from(r >= *a),
            Sampler::Discrete(c) => c.iter().rev().find(|k| k.0 <= r).map_or(0.0, |k| k.1),
            Sampler::LogNormal { mu, sigma, lo, hi } => {
                let f = |x: f64| {
                    if x <= 0.0 {
                        0.0
                    } else {
                        phi((x.ln() - mu) / sigma)
                    }
                };
                let (flo, fhi) = (f(*lo), f(*hi));
                ((f(r.clamp(*lo, *hi)) - flo) / (fhi - flo)).clamp(0.0, 1.0)
            }
            Sampler::Table { knots, by } => {
                let k = knots.iter().position(|k| r < k.0);
                match k {
                    Some(0) => 0.0,
                    None => 1.0,
                    Some(k) => {
                        let ((a, fa), (b, fb)) = (knots[k - 1], knots[k]);
                        let t = match by {
                            Basis::Number => (r - a) / (b - a),
                            Basis::Mass => (a.powi(-2) - r.powi(-2)) / (a.powi(-2) - b.powi(-2)),
                        };
                        fa + t * (fb - fa)
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_distributions_are_refused_with_the_reason() {
        let base = Path::new(".");
        let e = |r: Radius| r.sampler(base).unwrap_err();
        assert!(e(Radius::Uniform(2.0, 1.0)).contains("inverted"));
        assert!(e(Radius::Discrete {
            sizes: vec![],
            by: Basis::Number
        })
        .contains("no sizes"));
        assert!(e(Radius::LogNormal {
            median: 1.0,
            sigma: 0.1,
            by: Basis::Number,
            clip: Some((5.0, 6.0))
        })
        .contains("keeps less than"));
        assert!(table("radius,cumulative\n1,0\n2,0.5\n", Basis::Number)
            .unwrap_err()
            .contains("from 0 to 1"));
        assert!(table("1,0\n0.5,1\n", Basis::Number)
            .unwrap_err()
            .contains("rising"));
        assert!(table("1,0\ninf,1\n", Basis::Number)
            .unwrap_err()
            .contains("finite"));
        assert!(table("1,0\n1.5;0.4\n2,1\n", Basis::Number)
            .unwrap_err()
            .starts_with("line 2:"));
    }
}
