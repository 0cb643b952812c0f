//! Volume and moments against the ellipsoid's elementary forms and a quadrature of the
//! implicit function; support points and the bounding radius against sampled surfaces.

use crate::shape::Superquadric;
use std::f64::consts::PI;

/// Volume and moments per unit density by midpoint quadrature over the quarter of the
/// x-y plane: at `(x, y)` the body spans `|z| <= h`, `h = c (1 - r)^(1/n1)`,
/// `r = (|x/a|^n2 + |y/b|^n2)^(n1/n2)`.
fn quadrature(s: &Superquadric, cells: usize) -> (f64, [f64; 3]) {
    let [a, b, c] = s.a;
    let [n1, n2] = s.n;
    let (dx, dy) = (a / cells as f64, b / cells as f64);
    let (mut v, mut jx, mut jy, mut jz) = (0.0, 0.0, 0.0, 0.0);
    for i in 0..cells {
        let x = (i as f64 + 0.5) * dx;
        for j in 0..cells {
            let y = (j as f64 + 0.5) * dy;
            let r = ((x / a).powf(n2) + (y / b).powf(n2)).powf(n1 / n2);
            if r >= 1.0 {
                continue;
            }
            let h = c * (1.0 - r).powf(1.0 / n1);
            let w = 4.0 * dx * dy;
            // Column |z| <= h: length 2h, its z^2 integral 2h^3/3.
            v += w * 2.0 * h;
            let z2 = w * 2.0 * h.powi(3) / 3.0;
            jx += w * 2.0 * h * y * y + z2;
            jy += w * 2.0 * h * x * x + z2;
            jz += w * 2.0 * h * (x * x + y * y);
        }
    }
    (v, [jx, jy, jz])
}

#[test]
fn an_ellipsoid_has_the_elementary_volume_and_moments() {
    let (a, b, c) = (0.3, 0.5, 0.2);
    let s = Superquadric::new([a, b, c], [2.0, 2.0]).unwrap();
    let v = 4.0 / 3.0 * PI * a * b * c;
    assert!((s.volume() - v).abs() < 1e-14 * v, "{} {v}", s.volume());
    let j = s.moments();
    let want = [
        v * (b * b + c * c) / 5.0,
        v * (a * a + c * c) / 5.0,
        v * (a * a + b * b) / 5.0,
    ];
    for k in 0..3 {
        assert!(
            (j[k] - want[k]).abs() < 1e-13 * want[k],
            "{k}: {} {}",
            j[k],
            want[k]
        );
    }
    assert!((s.bounding_radius - b).abs() < 2e-6 * b);
}

#[test]
fn blocky_bodies_match_a_quadrature_of_their_implicit_function() {
    for (axes, n) in [
        ([1.0, 0.6, 0.4], [4.0, 3.0]),
        ([0.5, 0.5, 1.0], [2.0, 8.0]),
        ([0.7, 0.4, 0.5], [6.0, 2.5]),
    ] {
        let s = Superquadric::new(axes, n).unwrap();
        let (v, j) = quadrature(&s, 3000);
        // The midpoint rule misses a sliver at the rim, of relative size ~ (1/3000)^1.1.
        let tol = 2e-4;
        assert!(
            (s.volume() - v).abs() < tol * v,
            "{n:?}: V {} against {v}",
            s.volume()
        );
        for (k, (got, want)) in s.moments().iter().zip(j).enumerate() {
            assert!(
                (got - want).abs() < tol * want,
                "{n:?} moment {k}: {got} against {want}"
            );
        }
    }
}

#[test]
fn a_near_box_approaches_the_box() {
    // Blockiness 10: between the ellipsoid and the box (8 a b c), closer to the box.
    let s = Superquadric::new([1.0, 1.0, 1.0], [10.0, 10.0]).unwrap();
    assert!(s.volume() > 0.9 * 8.0 && s.volume() < 8.0, "{}", s.volume());
}

/// Surface points on a grid of latitudes and longitudes.
fn samples(s: &Superquadric, k: usize) -> Vec<[f64; 3]> {
    let mut out = Vec::new();
    for i in 0..=k {
        let eta = -PI / 2.0 + PI * i as f64 / k as f64;
        for j in 0..2 * k {
            out.push(s.point(eta, -PI + PI * j as f64 / k as f64));
        }
    }
    out
}

#[test]
fn support_points_lie_on_the_surface_and_beat_every_sample() {
    let s = Superquadric::new([0.8, 0.5, 0.3], [5.0, 3.0]).unwrap();
    let pts = samples(&s, 400);
    let dirs = [
        [1.0, 0.0, 0.0],
        [0.3, -0.8, 0.52],
        [-0.1, 0.2, -0.97],
        [0.577, 0.577, 0.577],
        [0.0, 0.0, 1.0],
    ];
    for d in dirs {
        let p = s.support_point(d);
        assert!(
            (s.implicit(p) - 1.0).abs() < 1e-12,
            "{d:?}: F = {}",
            s.implicit(p)
        );
        let h = p[0] * d[0] + p[1] * d[1] + p[2] * d[2];
        let best = pts
            .iter()
            .map(|q| q[0] * d[0] + q[1] * d[1] + q[2] * d[2])
            .fold(f64::MIN, f64::max);
        assert!(best <= h + 1e-12, "{d:?}: a sample reaches {best} > {h}");
        assert!(h - best < 1e-4, "{d:?}: support {h}, samples {best}");
    }
}

#[test]
fn the_bounding_radius_covers_every_sample() {
    for n in [[2.0, 2.0], [10.0, 10.0], [3.0, 7.0]] {
        let s = Superquadric::new([0.9, 0.4, 0.6], n).unwrap();
        let far = samples(&s, 300)
            .iter()
            .map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
            .fold(0.0, f64::max);
        assert!(
            s.bounding_radius >= far,
            "{n:?}: {} < {far}",
            s.bounding_radius
        );
        assert!(
            s.bounding_radius < far * (1.0 + 1e-4),
            "{n:?}: {} vs {far}",
            s.bounding_radius
        );
    }
}

#[test]
fn out_of_range_parameters_are_refused() {
    assert!(Superquadric::new([1.0, 0.0, 1.0], [2.0, 2.0])
        .unwrap_err()
        .contains("half_axes"));
    assert!(Superquadric::new([1.0, 1.0, 1.0], [1.5, 2.0])
        .unwrap_err()
        .contains("blockiness"));
    assert!(Superquadric::new([1.0, f64::NAN, 1.0], [2.0, 2.0]).is_err());
}

/// Directions spread over the sphere (a Fibonacci lattice), with the axes, the planes
/// between them (zero components) and tiny components.
fn spread(count: usize) -> Vec<[f64; 3]> {
    let golden = PI * (3.0 - 5f64.sqrt());
    let mut out: Vec<[f64; 3]> = (0..count)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / count as f64;
            let r = (1.0 - z * z).sqrt();
            let phi = golden * i as f64;
            [r * phi.cos(), r * phi.sin(), z]
        })
        .collect();
    out.extend([
        [1.0, 0.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.6, 0.8, 0.0],
        [0.0, -0.6, 0.8],
        [1.0, 1e-200, -1e-9],
    ]);
    out
}

#[test]
fn the_fast_support_point_is_the_generic_one() {
    // `support_point` (in logarithms) against `support_over` (powers), which the
    // derivatives use: the same map to round-off.
    for (axes, n) in [
        ([0.8, 0.5, 0.3], [5.0, 3.0]),
        ([1.0, 1.0, 1.0], [2.0, 2.0]),
        ([0.002, 0.003, 0.001], [10.0, 2.5]),
        ([1.0, 2.0, 3.0], [3.0, 8.0]),
    ] {
        let s = Superquadric::new(axes, n).unwrap();
        let size = s.bounding_radius;
        for d in spread(2000) {
            let (fast, generic) = (s.support_point(d), s.support_over(d));
            for k in 0..3 {
                assert!(
                    (fast[k] - generic[k]).abs() <= 1e-13 * size,
                    "{axes:?} {n:?} along {d:?}: {fast:?} against {generic:?}"
                );
            }
            assert!(
                (s.implicit(fast) - 1.0).abs() < 1e-12,
                "{d:?}: off the surface"
            );
        }
    }
}
