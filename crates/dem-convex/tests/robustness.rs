//! Contact on degenerate and extreme inputs: never a panic, always a contact or a
//! typed error; overlapping bodies never come back as "no contact".

use dem_convex::generate::{cube, cuboid, rock};
use dem_convex::{contact, ContactKind, ContactOptions, IntersectionError, Polyhedron};
use nalgebra::{Isometry3, Point3, Vector3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn shapes(rng: &mut Pcg64) -> Polyhedron {
    match rng.random_range(0..4) {
        // Sliver: a thin plate.
        0 => cuboid(Point3::new(-0.5, -0.5, -1e-7), Point3::new(0.5, 0.5, 1e-7)).unwrap(),
        // Needle.
        1 => cuboid(
            Point3::new(-1e-6, -1e-6, -0.7),
            Point3::new(1e-6, 1e-6, 0.7),
        )
        .unwrap(),
        // Rock with nearly coplanar faces (many points on a flattened ellipsoid).
        2 => rock(rng.random(), 200, Vector3::new(0.6, 0.6, 1e-4)).unwrap(),
        _ => cube(1.0).unwrap(),
    }
}

#[test]
fn degenerate_pairs_never_panic_or_vanish() {
    let mut rng = Pcg64::seed_from_u64(21);
    let (mut overlap, mut touching, mut separated, mut other) = (0, 0, 0, 0);
    for _ in 0..1500 {
        let a = shapes(&mut rng);
        let b = shapes(&mut rng);
        let iso = Isometry3::new(
            Vector3::new(
                rng.random_range(-0.3..0.3),
                rng.random_range(-0.3..0.3),
                rng.random_range(-0.3..0.3),
            ),
            Vector3::new(
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
            ),
        );
        let b = b.transformed(&iso);
        match contact(&a, &b, &ContactOptions::for_size(1.0)) {
            Ok(c) => {
                assert!(c.point.coords.iter().all(|x| x.is_finite()));
                assert!((c.normal.norm() - 1.0).abs() < 1e-9);
                assert!(c.area >= 0.0 && c.volume >= 0.0 && c.gap <= 1e-6);
                match c.kind {
                    ContactKind::Overlap => overlap += 1,
                    ContactKind::Touching => touching += 1,
                }
            }
            Err(IntersectionError::Separated { .. }) => separated += 1,
            Err(e) => {
                eprintln!("typed error: {e}");
                other += 1;
            }
        }
    }
    println!("degenerate pairs: {overlap} overlap, {touching} touching, {separated} separated, {other} other errors");
    assert_eq!(other, 0);
}

#[test]
fn huge_and_tiny_models() {
    let a = cuboid(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0)).unwrap();
    let b = cuboid(Point3::new(0.5, 0.25, 0.1), Point3::new(1.5, 1.25, 1.1)).unwrap();
    for s in [1e-100, 1e-30, 1e30, 1e100] {
        let c = contact(&a.scaled(s), &b.scaled(s), &ContactOptions::for_size(s)).unwrap();
        assert!(
            ((c.volume / s.powi(3)) - 0.3375).abs() < 1e-9,
            "s {s:e}: {}",
            c.volume
        );
        assert!(((c.area / (s * s)) - 1.5).abs() < 1e-9, "s {s:e}");
        assert!(((c.gap / s) + 0.735430).abs() < 1e-6, "s {s:e}: {c:?}");
    }
    // Far from the origin: a unit pair translated by 1e6.
    let t = Vector3::new(1e6, -2e6, 3e6);
    let c = contact(
        &a.translated(&t),
        &b.translated(&t),
        &ContactOptions::for_size(1.0),
    )
    .unwrap();
    assert!((c.volume - 0.3375).abs() < 1e-8, "{}", c.volume);
}

#[test]
fn nearly_identical_bodies() {
    // B = A turned by a tiny angle: every plane of B nearly duplicates one of A.
    let a = cube(1.0).unwrap();
    let opts = ContactOptions::for_size(1.0);
    for angle in [0.0, 1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4] {
        let iso = Isometry3::new(
            Vector3::zeros(),
            Vector3::new(0.3, -0.2, 0.9).normalize() * angle,
        );
        let b = a.transformed(&iso);
        let c = contact(&a, &b, &opts).unwrap_or_else(|e| panic!("angle {angle:e}: {e}"));
        assert_eq!(c.kind, ContactKind::Overlap);
        assert!(
            (c.volume - 1.0).abs() < 1e-3 + 10.0 * angle,
            "angle {angle:e}: {}",
            c.volume
        );
        assert!(
            (c.area - 3.0).abs() < 1e-3 + 10.0 * angle,
            "angle {angle:e}: {}",
            c.area
        );
        assert!(
            c.point.coords.norm() < 1e-9 + angle,
            "angle {angle:e}: {}",
            c.point
        );
    }
}

#[test]
fn shallow_overlaps_keep_their_volume() {
    // Cube pairs overlapping by a depth from 1e-5 to 1e-2 along a face normal, with
    // the upper cube turned about z: the intersection is a thin prism of known volume
    // (area of the overlap of the two squares × depth).
    let a = cube(1.0).unwrap();
    let opts = ContactOptions::for_size(1.0);
    for depth in [1e-5, 1e-4, 1e-3, 1e-2] {
        let iso = Isometry3::new(
            Vector3::new(0.0, 0.0, 1.0 - depth),
            Vector3::z() * std::f64::consts::FRAC_PI_4,
        );
        let b = a.transformed(&iso);
        let c = contact(&a, &b, &opts).unwrap();
        let octagon = 2.0 * (2f64.sqrt() - 1.0);
        assert!(
            (c.volume / (octagon * depth) - 1.0).abs() < 1e-9,
            "depth {depth:e}: {}",
            c.volume
        );
        assert!((c.normal - Vector3::z()).norm() < 1e-9);
        assert!(
            (c.gap + depth).abs() < 1e-12,
            "depth {depth:e}: gap {}",
            c.gap
        );
    }
}
