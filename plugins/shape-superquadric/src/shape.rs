//! The superquadric shape: the body `(|x/a|^n2 + |y/b|^n2)^(n1/n2) + |z/c|^n1 <= 1` of
//! half-axes `a, b, c` and blockiness `n1` (towards the poles, along z) and `n2` (about
//! z), the convention of Podlozhnyuk, Pirker and Kloss (2017) and LIGGGHTS. Both
//! exponents 2 give an ellipsoid; larger ones give blockier bodies (a box in the limit).
//! The body is convex for exponents of at least 2; it is symmetric about its three
//! planes, so its frame is principal and its centroid the origin.
//!
//! Volume and moments are the closed forms with Beta functions of Jaklic, Leonardis and
//! Solina (2000), written with `e1 = 2/n1`, `e2 = 2/n2`. The support point (the surface
//! point farthest along a direction) is closed-form too: the exponents' dual norms give
//! it in two nested steps (see [`Superquadric::support_point`]).

use crate::real::Real;
use dem_api::sdk::{Param, Shape};
use dem_api::{ShapeProperties, Surface, Vec3};
use serde::{Deserialize, Serialize};

/// Smallest and largest blockiness accepted: convex from 2; above 10 the bodies are so
/// nearly boxes that their contact normal turns by large angles over tiny distances.
pub const BLOCKINESS: (f64, f64) = (2.0, 10.0);

/// Parameters of one superquadric body.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Half-axes along body x, y, z, m; required (the default, zeros, is refused).
    pub half_axes: [f64; 3],
    /// Blockiness `(n1, n2)`: `n1` towards the poles (z), `n2` about z; each in [2, 10].
    pub blockiness: [f64; 2],
}

impl Default for Params {
    fn default() -> Self {
        Params {
            half_axes: [0.0; 3],
            blockiness: [2.0, 2.0],
        }
    }
}

/// One superquadric body: the record its functors read.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Superquadric {
    /// Half-axes, m.
    pub a: [f64; 3],
    /// Blockiness `n1` (poles), `n2` (about z).
    pub n: [f64; 2],
    /// Largest distance of the surface from the centre, m.
    pub bounding_radius: f64,
    /// Volume-equivalent radius `(3 V / 4 pi)^(1/3)`, m.
    pub equivalent_radius: f64,
}

/// `B(x, y) = Gamma(x) Gamma(y) / Gamma(x + y)`.
pub fn beta(x: f64, y: f64) -> f64 {
    (libm::lgamma(x) + libm::lgamma(y) - libm::lgamma(x + y)).exp()
}

impl Superquadric {
    /// The body of the given half-axes (m) and blockiness, checked.
    pub fn new(half_axes: [f64; 3], blockiness: [f64; 2]) -> Result<Superquadric, String> {
        if half_axes == [0.0; 3] {
            return Err(
                "half_axes: required (no default), e.g. `half_axes: (0.01, 0.01, 0.02)`, m".into(),
            );
        }
        if !half_axes.iter().all(|&x| x.is_finite() && x > 0.0) {
            return Err(format!(
                "half_axes: each must be positive and finite, m; got {half_axes:?}"
            ));
        }
        let (lo, hi) = BLOCKINESS;
        if !blockiness.iter().all(|&n| (lo..=hi).contains(&n)) {
            return Err(format!(
                "blockiness: each exponent must be in [{lo}, {hi}] (convex and not too \
                 nearly a box); got {blockiness:?}"
            ));
        }
        let mut s = Superquadric {
            a: half_axes,
            n: blockiness,
            bounding_radius: 0.0,
            equivalent_radius: 0.0,
        };
        s.bounding_radius = s.farthest();
        s.equivalent_radius = (3.0 * s.volume() / (4.0 * std::f64::consts::PI)).cbrt();
        Ok(s)
    }

    /// `(e1, e2) = (2/n1, 2/n2)`.
    fn e(&self) -> (f64, f64) {
        (2.0 / self.n[0], 2.0 / self.n[1])
    }

    /// Volume, m^3.
    pub fn volume(&self) -> f64 {
        let (e1, e2) = self.e();
        let [a, b, c] = self.a;
        2.0 * a * b * c * e1 * e2 * beta(0.5 * e1 + 1.0, e1) * beta(0.5 * e2, 0.5 * e2)
    }

    /// Principal moments per unit density about x, y, z, m^5.
    pub fn moments(&self) -> [f64; 3] {
        let (e1, e2) = self.e();
        let [a, b, c] = self.a;
        let k = 0.5 * a * b * c * e1 * e2;
        let planar = beta(1.5 * e2, 0.5 * e2) * beta(0.5 * e1, 2.0 * e1 + 1.0);
        let polar = 4.0 * beta(0.5 * e2, 0.5 * e2 + 1.0) * beta(1.5 * e1, e1 + 1.0);
        [
            k * (b * b * planar + c * c * polar),
            k * (a * a * planar + c * c * polar),
            k * (a * a + b * b) * planar,
        ]
    }

    /// The surface point at latitude `eta` in [-pi/2, pi/2] and longitude `omega`.
    pub fn point(&self, eta: f64, omega: f64) -> [f64; 3] {
        let (e1, e2) = self.e();
        let (ce, se) = (eta.cos(), eta.sin());
        let (co, so) = (omega.cos(), omega.sin());
        let r = ce.signed_pow(e1);
        [
            self.a[0] * r * co.signed_pow(e2),
            self.a[1] * r * so.signed_pow(e2),
            self.a[2] * se.signed_pow(e1),
        ]
    }

    /// The largest distance of the surface from the centre, m: the largest over a fine
    /// grid of one octant (the body is symmetric), refined about the best node, with a
    /// margin of 1e-6 of it, and never above the corner of the box.
    fn farthest(&self) -> f64 {
        let norm2 = |p: [f64; 3]| p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        let h = std::f64::consts::FRAC_PI_2;
        let steps = 64;
        let mut best = (0.0, 0.0, 0.0);
        for i in 0..=steps {
            for j in 0..=steps {
                let (eta, omega) = (h * i as f64 / steps as f64, h * j as f64 / steps as f64);
                let r2 = norm2(self.point(eta, omega));
                if r2 > best.0 {
                    best = (r2, eta, omega);
                }
            }
        }
        // Refine by shrinking patterns about the best node.
        let (mut r2, mut eta, mut omega) = best;
        let mut step = h / steps as f64;
        while step > 1e-12 {
            let mut moved = false;
            for (de, dw) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
                let (e, w) = (
                    (eta + de * step).clamp(0.0, h),
                    (omega + dw * step).clamp(0.0, h),
                );
                let t = norm2(self.point(e, w));
                if t > r2 {
                    (r2, eta, omega, moved) = (t, e, w, true);
                }
            }
            if !moved {
                step *= 0.5;
            }
        }
        let corner = norm2(self.a).sqrt();
        (r2.sqrt() * (1.0 + 1e-6)).min(corner)
    }

    /// The support point along the body-frame direction `d` (any non-zero length): the
    /// surface point maximising `d . x`, m. With `u = x/a, v = y/b, w = z/c` the body is
    /// the unit ball of a nested norm; `d . x` is `alpha u + beta v + gamma w` with
    /// `(alpha, beta, gamma) = (a dx, b dy, c dz)`, and its maximum is attained where
    /// Hoelder's inequality is an equality, first for `n2` in the `(u, v)` plane, then
    /// for `n1` between that plane's norm and `w`.
    ///
    /// The same map as [`Superquadric::support_over`], computed in the logarithms of the
    /// components: 12 logarithms and exponentials where the powers of `support_over`
    /// take 18 (9 powers), for the probes of the common normal, which call it most.
    pub fn support_point(&self, d: [f64; 3]) -> [f64; 3] {
        let [n1, n2] = self.n;
        let (q1, q2) = (n1 / (n1 - 1.0), n2 / (n2 - 1.0));
        let [ax, ay, az] = self.a;
        let scale = (ax * d[0])
            .abs()
            .max((ay * d[1]).abs())
            .max((az * d[2]).abs());
        if scale == 0.0 || !scale.is_finite() {
            return [0.0, 0.0, az];
        }
        let (al, be, ga) = (ax * d[0] / scale, ay * d[1] / scale, az * d[2] / scale);
        // Base-2 logarithms of |al|, |be|, |ga|, of the plane's norm and of the whole
        // norm (minus infinity for a zero: its power is then 0).
        let (la, lb, lg) = (al.abs().log2(), be.abs().log2(), ga.abs().log2());
        let sum = (q2 * la).exp2() + (q2 * lb).exp2();
        let lp = sum.log2() / q2;
        let lw = ((q1 * lp).exp2() + (q1 * lg).exp2()).log2() / q1;
        let w = ((q1 - 1.0) * (lg - lw)).exp2().copysign(ga);
        let (u, v) = if sum > 0.0 {
            let lr = (q1 - 1.0) * (lp - lw);
            let of = |l: f64, x: f64| (lr + (q2 - 1.0) * (l - lp)).exp2().copysign(x);
            (of(la, al), of(lb, be))
        } else {
            (0.0, 0.0)
        };
        [ax * u, ay * v, az * w]
    }

    /// [`Superquadric::support_point`] over any [`Real`]: with [`crate::real::Dual`]
    /// directions it gives the support map's derivatives too.
    pub fn support_over<T: Real>(&self, d: [T; 3]) -> [T; 3] {
        let [n1, n2] = self.n;
        let (q1, q2) = (n1 / (n1 - 1.0), n2 / (n2 - 1.0));
        let [ax, ay, az] = self.a.map(T::constant);
        // Scaled first, by a constant (the map is homogeneous of degree 0): the powers of
        // tiny or huge components stay in range.
        let scale = (self.a[0] * d[0].value())
            .abs()
            .max((self.a[1] * d[1].value()).abs())
            .max((self.a[2] * d[2].value()).abs());
        if scale == 0.0 || !scale.is_finite() {
            return [T::constant(0.0), T::constant(0.0), az];
        }
        let k = T::constant(1.0 / scale);
        let (al, be, ga) = (ax * d[0] * k, ay * d[1] * k, az * d[2] * k);
        let plane = (al.abs_pow(q2) + be.abs_pow(q2)).abs_pow(1.0 / q2);
        let whole = (plane.abs_pow(q1) + ga.abs_pow(q1)).abs_pow(1.0 / q1);
        let rho = (plane / whole).abs_pow(q1 - 1.0);
        let w = (ga / whole).signed_pow(q1 - 1.0);
        let (u, v) = if plane.value() > 0.0 {
            (
                rho * (al / plane).signed_pow(q2 - 1.0),
                rho * (be / plane).signed_pow(q2 - 1.0),
            )
        } else {
            (T::constant(0.0), T::constant(0.0))
        };
        [ax * u, ay * v, az * w]
    }

    /// The implicit function `(|x/a|^n2 + |y/b|^n2)^(n1/n2) + |z/c|^n1`: 1 on the surface.
    pub fn implicit(&self, p: [f64; 3]) -> f64 {
        let [n1, n2] = self.n;
        let f = |i: usize| (p[i] / self.a[i]).abs();
        (f(0).powf(n2) + f(1).powf(n2)).powf(n1 / n2) + f(2).powf(n1)
    }

    /// A triangulation: `detail` latitude bands from pole to pole, `2 detail` longitudes.
    pub fn triangulate(&self, detail: u32) -> Surface {
        let (rows, cols) = (detail as usize, 2 * detail as usize);
        let pi = std::f64::consts::PI;
        let mut vertices = Vec::with_capacity((rows - 1) * cols + 2);
        let south = 0u32;
        vertices.push(Vec3::new(0.0, 0.0, -self.a[2]));
        for i in 1..rows {
            let eta = -0.5 * pi + pi * i as f64 / rows as f64;
            for j in 0..cols {
                let p = self.point(eta, -pi + 2.0 * pi * j as f64 / cols as f64);
                vertices.push(Vec3::new(p[0], p[1], p[2]));
            }
        }
        let north = vertices.len() as u32;
        vertices.push(Vec3::new(0.0, 0.0, self.a[2]));
        let at = |i: usize, j: usize| (1 + (i - 1) * cols + j % cols) as u32;
        let mut triangles = Vec::new();
        for j in 0..cols {
            triangles.push([south, at(1, j + 1), at(1, j)]);
            triangles.push([north, at(rows - 1, j), at(rows - 1, j + 1)]);
        }
        for i in 1..rows - 1 {
            for j in 0..cols {
                triangles.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
                triangles.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
            }
        }
        Surface {
            vertices: vertices.into(),
            triangles: triangles.into(),
        }
    }
}

impl Shape for Superquadric {
    type Params = Params;
    const NAME: &'static str = "Superquadric";
    const DESCRIPTION: &'static str = "Superquadric (|x/a|^n2 + |y/b|^n2)^(n1/n2) + |z/c|^n1 \
        <= 1, convex for blockiness >= 2 (both 2: an ellipsoid). Volume and moments from \
        Jaklic et al. (2000); contacts by the common normal of the two support functions.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "half_axes",
            unit: "m",
            doc: "half-axes (a, b, c) along body x, y, z; required (no default)",
        },
        Param {
            name: "blockiness",
            unit: "-",
            doc: "(n1, n2): n1 towards the poles (z), n2 about z; each in [2, 10]",
        },
    ];

    fn new(p: Params) -> Result<Self, String> {
        Superquadric::new(p.half_axes, p.blockiness)
    }

    fn properties(&self) -> ShapeProperties {
        let j = self.moments();
        ShapeProperties {
            volume: self.volume(),
            inertia: Vec3::new(j[0], j[1], j[2]),
            bounding_radius: self.bounding_radius,
            half_extents: Vec3::new(self.a[0], self.a[1], self.a[2]),
        }
    }

    fn surface(&self, detail: u32) -> Surface {
        self.triangulate(detail)
    }

    fn support(&self, d: Vec3) -> Vec3 {
        let s = self.support_point([d.x, d.y, d.z]);
        Vec3::new(s[0], s[1], s[2])
    }

    fn scaled(p: &Params, factor: f64) -> Option<Params> {
        Some(Params {
            half_axes: p.half_axes.map(|a| a * factor),
            blockiness: p.blockiness,
        })
    }
}
