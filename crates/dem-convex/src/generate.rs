//! Seeded generators of convex shapes: random rocks (hull of random points on an
//! ellipsoid), boxes, tetrahedra and regular prisms. Lengths in model units.

use crate::error::ConvexError;
use crate::polyhedron::Polyhedron;
use nalgebra::{Point3, Vector3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Axis-aligned box with corners `lo` and `hi` (length).
pub fn cuboid(lo: Point3<f64>, hi: Point3<f64>) -> Result<Polyhedron, ConvexError> {
    let v = |i: usize| {
        Point3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        )
    };
    let vertices = (0..8).map(v).collect();
    let faces = vec![
        vec![0, 4, 6, 2], // -x
        vec![1, 3, 7, 5], // +x
        vec![0, 1, 5, 4], // -y
        vec![2, 6, 7, 3], // +y
        vec![0, 2, 3, 1], // -z
        vec![4, 5, 7, 6], // +z
    ];
    Polyhedron::from_faces(vertices, faces)
}

/// Cube of edge `side` (length) centred at the origin.
pub fn cube(side: f64) -> Result<Polyhedron, ConvexError> {
    let h = 0.5 * side;
    cuboid(Point3::new(-h, -h, -h), Point3::new(h, h, h))
}

/// Tetrahedron with the given corners (any order).
pub fn tetrahedron(corners: [Point3<f64>; 4]) -> Result<Polyhedron, ConvexError> {
    Polyhedron::from_points(&corners)
}

/// The corner tetrahedron conv{0, s e1, s e2, s e3} (edge `s`, length).
pub fn corner_tetrahedron(s: f64) -> Result<Polyhedron, ConvexError> {
    tetrahedron([
        Point3::origin(),
        Point3::new(s, 0.0, 0.0),
        Point3::new(0.0, s, 0.0),
        Point3::new(0.0, 0.0, s),
    ])
}

/// Regular `n`-gon prism along z, circumradius `radius`, height `height` (length),
/// centred at the origin. `n >= 3`.
pub fn prism(n: usize, radius: f64, height: f64) -> Result<Polyhedron, ConvexError> {
    if n < 3 {
        return Err(ConvexError::TooFewPoints { count: 2 * n });
    }
    let mut vertices = Vec::with_capacity(2 * n);
    for z in [-0.5 * height, 0.5 * height] {
        for k in 0..n {
            let t = std::f64::consts::TAU * k as f64 / n as f64;
            vertices.push(Point3::new(radius * t.cos(), radius * t.sin(), z));
        }
    }
    let mut faces = vec![(0..n).rev().collect::<Vec<_>>(), (n..2 * n).collect()];
    for k in 0..n {
        let k1 = (k + 1) % n;
        faces.push(vec![k, k1, n + k1, n + k]);
    }
    Polyhedron::from_faces(vertices, faces)
}

/// Random convex rock: hull of `points` random points (uniform in angle) on the
/// ellipsoid with semi-axes `semi_axes` (length), from `seed`. Same seed, same rock.
pub fn rock(seed: u64, points: usize, semi_axes: Vector3<f64>) -> Result<Polyhedron, ConvexError> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let pts: Vec<Point3<f64>> = (0..points)
        .map(|_| {
            let z: f64 = rng.random_range(-1.0..=1.0);
            let phi: f64 = rng.random_range(0.0..std::f64::consts::TAU);
            let s = (1.0 - z * z).max(0.0).sqrt();
            Point3::new(
                semi_axes.x * s * phi.cos(),
                semi_axes.y * s * phi.sin(),
                semi_axes.z * z,
            )
        })
        .collect();
    Polyhedron::from_points(&pts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocks_are_seeded_and_on_the_ellipsoid() {
        let axes = Vector3::new(1.0, 0.5, 0.25);
        let a = rock(42, 50, axes).unwrap();
        let b = rock(42, 50, axes).unwrap();
        let c = rock(43, 50, axes).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        for v in a.vertices() {
            let r = (v.x / axes.x).powi(2) + (v.y / axes.y).powi(2) + (v.z / axes.z).powi(2);
            assert!((r - 1.0).abs() < 1e-12);
        }
        assert!(a.volume() > 0.0 && a.volume() < 4.0 / 3.0 * std::f64::consts::PI * 0.125);
    }

    #[test]
    fn shapes_have_the_right_counts_and_volumes() {
        let p = prism(6, 1.0, 2.0).unwrap();
        assert_eq!(
            (p.vertices().len(), p.faces().len(), p.edge_count()),
            (12, 8, 18)
        );
        let hex = 1.5 * 3f64.sqrt();
        assert!((p.volume() - hex * 2.0).abs() < 1e-12);
        let t = corner_tetrahedron(3.0).unwrap();
        assert_eq!((t.vertices().len(), t.faces().len()), (4, 4));
        assert!((t.volume() - 4.5).abs() < 1e-12);
        assert!((cube(2.0).unwrap().volume() - 8.0).abs() < 1e-12);
        assert!(prism(2, 1.0, 1.0).is_err());
    }
}
