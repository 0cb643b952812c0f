//! Mass properties against closed forms and an independent integration: each body
//! cut into tetrahedra from its vertex mean, each tetrahedron integrated with the
//! 4-point degree-2 Gauss rule (exact for the quadratic integrands of inertia).

use dem_convex::generate::{corner_tetrahedron, cube, cuboid, prism, rock};
use dem_convex::Polyhedron;
use nalgebra::{Isometry3, Matrix3, Point3, Vector3};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

fn close_m(a: &Matrix3<f64>, b: &Matrix3<f64>, tol: f64) -> bool {
    (a - b).norm() <= tol * (1.0 + b.norm())
}

/// Volume, centroid, inertia about the centroid by Gauss quadrature on tetrahedra.
fn by_quadrature(p: &Polyhedron) -> (f64, Vector3<f64>, Matrix3<f64>) {
    let v = p.vertices();
    let o = v.iter().map(|q| q.coords).sum::<Vector3<f64>>() / v.len() as f64;
    let (alpha, beta) = (0.585_410_196_624_968_5, 0.138_196_601_125_010_5);
    let mut tets = Vec::new();
    for f in p.faces() {
        for k in 1..f.vertices.len() - 1 {
            tets.push([
                o,
                v[f.vertices[0]].coords,
                v[f.vertices[k]].coords,
                v[f.vertices[k + 1]].coords,
            ]);
        }
    }
    let (mut vol, mut m1, mut m2) = (0.0, Vector3::zeros(), Matrix3::zeros());
    for t in &tets {
        let w = (t[1] - t[0]).dot(&(t[2] - t[0]).cross(&(t[3] - t[0]))) / 6.0;
        vol += w;
        for i in 0..4 {
            let mut x = Vector3::zeros();
            for (j, c) in t.iter().enumerate() {
                x += if i == j { alpha } else { beta } * c;
            }
            m1 += 0.25 * w * x;
            m2 += 0.25 * w * x * x.transpose();
        }
    }
    let c = m1 / vol;
    let cov = m2 - vol * c * c.transpose();
    (vol, c, Matrix3::identity() * cov.trace() - cov)
}

#[test]
fn cube_closed_form() {
    let a = 1.7;
    let m = cube(a).unwrap().mass_properties();
    assert!(close(m.volume, a.powi(3)));
    assert!(m.centroid.coords.norm() < 1e-15);
    assert!(close_m(
        &m.inertia,
        &(Matrix3::identity() * a.powi(5) / 6.0),
        1e-14
    ));
    let b = cuboid(Point3::new(1.0, 2.0, 3.0), Point3::new(2.0, 4.0, 6.0))
        .unwrap()
        .mass_properties();
    assert!(close(b.volume, 6.0));
    assert!((b.centroid - Point3::new(1.5, 3.0, 4.5)).norm() < 1e-14);
    let (x, y, z) = (1.0f64, 2.0f64, 3.0f64);
    let expect = Matrix3::from_diagonal(&Vector3::new(y * y + z * z, x * x + z * z, x * x + y * y))
        * 6.0
        / 12.0;
    assert!(close_m(&b.inertia, &expect, 1e-14));
}

#[test]
fn tetrahedron_closed_form() {
    let s = 2.0f64;
    let m = corner_tetrahedron(s).unwrap().mass_properties();
    assert!(close(m.volume, s.powi(3) / 6.0));
    assert!((m.centroid - Point3::from(Vector3::repeat(s / 4.0))).norm() < 1e-15);
    // About the centroid: ∫x² = s⁵/160, ∫xy = -s⁵/480 (derived from ∫x² = s⁵/60 and
    // ∫xy = s⁵/120 about the corner).
    let d = 2.0 * s.powi(5) / 160.0;
    let off = s.powi(5) / 480.0;
    let expect = Matrix3::new(d, off, off, off, d, off, off, off, d);
    assert!(close_m(&m.inertia, &expect, 1e-14), "{}", m.inertia);
}

#[test]
fn prism_closed_form() {
    // Square prism (n = 4, circumradius r): a box of side r√2 and height h.
    let (r, h) = (0.5f64, 2.0f64);
    let m = prism(4, r, h).unwrap().mass_properties();
    let a = r * 2f64.sqrt();
    assert!(close(m.volume, a * a * h));
    let ixx = a * a * h * (a * a + h * h) / 12.0;
    let izz = a * a * h * (2.0 * a * a) / 12.0;
    assert!(close(m.inertia[(0, 0)], ixx) && close(m.inertia[(2, 2)], izz));
}

#[test]
fn random_hulls_against_quadrature() {
    for seed in 0..50 {
        let r = rock(seed, 10 + seed as usize * 3, Vector3::new(1.0, 0.6, 0.3)).unwrap();
        let r = r.translated(&Vector3::new(3.0, -2.0, 1.0));
        let m = r.mass_properties();
        let (vol, c, inertia) = by_quadrature(&r);
        assert!(close(m.volume, vol), "seed {seed}");
        assert!((m.centroid.coords - c).norm() < 1e-12, "seed {seed}");
        assert!(close_m(&m.inertia, &inertia, 1e-12), "seed {seed}");
    }
}

#[test]
fn principal_frame() {
    for seed in 0..50 {
        let r = rock(100 + seed, 30, Vector3::new(1.0, 0.6, 0.3)).unwrap();
        let iso = Isometry3::new(Vector3::new(1.0, 2.0, 3.0), Vector3::new(0.3, -1.1, 0.7));
        let r = r.transformed(&iso);
        let m = r.mass_properties();
        let f = m.principal();
        let rot = f.rotation.to_rotation_matrix().into_inner();
        assert!((rot.determinant() - 1.0).abs() < 1e-12);
        assert!(f.moments[0] <= f.moments[1] && f.moments[1] <= f.moments[2]);
        let back = rot * Matrix3::from_diagonal(&f.moments) * rot.transpose();
        assert!(close_m(&back, &m.inertia, 1e-12), "seed {seed}");
        let (p, f2, pose) = r.to_principal();
        let mp = p.mass_properties();
        assert!(mp.centroid.coords.norm() < 1e-12);
        assert!(
            close_m(&mp.inertia, &Matrix3::from_diagonal(&f.moments), 1e-12),
            "seed {seed}: {}",
            mp.inertia
        );
        assert_eq!(f, f2);
        // Mapping back gives the original vertices.
        for (a, b) in p.vertices().iter().zip(r.vertices()) {
            assert!((pose * a - b).norm() < 1e-12);
        }
    }
}
