//! The radii a contact reports against the principal radii of curvature of the
//! ellipsoid (closed forms), on its axes and off them, and their bound, the bounding
//! radius: at a triaxial ellipsoid's flattest pole and at a blocky face.

use crate::common_normal::curvature_radius;
use crate::posed::Posed;
use crate::shape::Superquadric;
use dem_api::nalgebra::{Matrix3, Rotation3, Vector3};

/// The ellipsoid `x^2/a^2 + y^2/b^2 + z^2/c^2 = 1` at the surface point of outward
/// normal `n`: the geometric mean of its principal radii of curvature, `1 / sqrt(K)`
/// with the Gaussian curvature `K = 1 / (a b c)^2 / |(x/a^2, y/b^2, z/c^2)|^4`.
fn ellipsoid_radius([a, b, c]: [f64; 3], n: Vector3<f64>) -> f64 {
    // The point of normal n: x = a^2 n_x / sqrt(a^2 n_x^2 + ...).
    let h = (a * a * n.x * n.x + b * b * n.y * n.y + c * c * n.z * n.z).sqrt();
    let p = Vector3::new(a * a * n.x, b * b * n.y, c * c * n.z) / h;
    let g = Vector3::new(p.x / (a * a), p.y / (b * b), p.z / (c * c)).norm();
    a * b * c * g * g
}

#[test]
fn an_ellipsoid_shows_its_radii_of_curvature_on_its_axes_and_off_them() {
    let axes = [0.03, 0.02, 0.04];
    let s = Superquadric::new(axes, [2.0, 2.0]).unwrap();
    let turn = Rotation3::from_scaled_axis(Vector3::new(0.3, -0.5, 0.2));
    for rot in [Matrix3::identity(), turn.into_inner()] {
        let posed = Posed { shape: &s, rot };
        let mut directions = vec![];
        for i in 0..3 {
            for sign in [1.0, -1.0] {
                let mut d = Vector3::zeros();
                d[i] = sign;
                directions.push(d);
            }
        }
        directions.push(Vector3::new(0.3, -0.5, 0.8).normalize());
        directions.push(Vector3::new(-0.9, 0.1, 0.2).normalize());
        for local in directions {
            // Along y, `a c / b` = 0.06 m: bounded by the bounding radius, 0.04 m.
            let want = ellipsoid_radius(axes, local).min(s.bounding_radius);
            let got = curvature_radius(&posed, &(rot * local));
            assert!(
                (got - want).abs() < 1e-7 * want,
                "along {local:?}: {got} against {want}"
            );
        }
    }
}

#[test]
fn a_blocky_face_shows_the_bounding_radius() {
    // The middle of a (6, 6) cube's face is flat: its radii of curvature are unbounded
    // there, and near it. The radius shown is the bounding radius, the distance to the
    // surface along a diagonal, where `3 t^6 = a^6`: `sqrt(3) t = 3^(1/3) a`.
    let a = 0.005;
    let s = Superquadric::new([a, a, a], [6.0, 6.0]).unwrap();
    let bound = 3f64.cbrt() * a;
    // (The bounding radius is the farthest surface point found, plus 1e-6 of it.)
    assert!((s.bounding_radius - bound).abs() < 2e-6 * bound);
    let posed = Posed {
        shape: &s,
        rot: Matrix3::identity(),
    };
    for n in [
        Vector3::new(0.0, 0.0, -1.0),
        Vector3::new(1.0, 0.0, 0.0),
        Vector3::new(1e-4, -2e-4, 1.0).normalize(),
    ] {
        let r = curvature_radius(&posed, &n);
        assert_eq!(r, s.bounding_radius, "along {n:?}");
    }
    // Towards a corner the surface is curved: radii below the bound, as they are.
    let corner = curvature_radius(&posed, &Vector3::new(1.0, 1.0, 1.0).normalize());
    assert!(corner > 0.0 && corner < 0.5 * bound, "{corner}");
}
