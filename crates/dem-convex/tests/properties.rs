//! Property tests on thousands of seeded random pairs: symmetry under swapping A and
//! B, covariance under rigid motion, scaling laws, validity of every intersection.

use dem_convex::generate::{corner_tetrahedron, cube, prism, rock};
use dem_convex::{
    contact, intersect, Contact, ContactKind, ContactOptions, IntersectionError, Polyhedron,
};
use nalgebra::{Isometry3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn random_pose(rng: &mut Pcg64, spread: f64) -> Isometry3<f64> {
    let axis = Vector3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    );
    let t = Vector3::new(
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
    );
    Isometry3::from_parts(t.into(), UnitQuaternion::from_scaled_axis(axis * 3.0))
}

fn random_shape(rng: &mut Pcg64) -> Polyhedron {
    match rng.random_range(0..5) {
        0 => cube(1.0).unwrap(),
        1 => corner_tetrahedron(1.2).unwrap(),
        2 => prism(rng.random_range(3..9), 0.6, 0.8).unwrap(),
        _ => {
            let axes = Vector3::new(
                rng.random_range(0.3..0.8),
                rng.random_range(0.3..0.8),
                rng.random_range(0.3..0.8),
            );
            rock(rng.random(), rng.random_range(8..40), axes).unwrap()
        }
    }
}

fn pairs(n: usize, seed: u64) -> Vec<(Polyhedron, Polyhedron)> {
    let mut rng = Pcg64::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let a = random_shape(&mut rng).transformed(&random_pose(&mut rng, 0.5));
            let b = random_shape(&mut rng).transformed(&random_pose(&mut rng, 0.5));
            (a, b)
        })
        .collect()
}

fn same(c: &Contact, d: &Contact, flip: f64, size: f64, check_normal: bool) {
    let tol = 1e-9;
    assert_eq!(c.kind, d.kind);
    assert!(
        (c.point - d.point).norm() <= tol * size,
        "point {} vs {}",
        c.point,
        d.point
    );
    assert!(
        (c.area - d.area).abs() <= tol * size * size,
        "area {} vs {}",
        c.area,
        d.area
    );
    assert!(
        (c.volume - d.volume).abs() <= tol * size.powi(3),
        "volume {} vs {}",
        c.volume,
        d.volume
    );
    assert!(
        (c.gap - d.gap).abs() <= tol * size,
        "gap {} vs {}",
        c.gap,
        d.gap
    );
    if check_normal {
        assert!(
            (c.normal - flip * d.normal).norm() <= 1e-7,
            "normal {} vs {}",
            c.normal,
            d.normal
        );
    }
}

#[test]
fn swap_symmetry() {
    let opts = ContactOptions::for_size(1.0);
    let (mut overlaps, mut separated) = (0, 0);
    for (i, (a, b)) in pairs(3000, 11).iter().enumerate() {
        match (contact(a, b, &opts), contact(b, a, &opts)) {
            (Ok(c), Ok(d)) => {
                same(
                    &c,
                    &d,
                    -1.0,
                    a.diameter(),
                    c.conditioning > 1e-3 && c.kind == ContactKind::Overlap,
                );
                overlaps += 1;
            }
            (
                Err(IntersectionError::Separated { distance: x, .. }),
                Err(IntersectionError::Separated { distance: y, .. }),
            ) => {
                assert!((x - y).abs() < 1e-9, "pair {i}: {x} vs {y}");
                separated += 1;
            }
            (x, y) => panic!("pair {i}: {x:?} vs {y:?}"),
        }
    }
    println!("swap: {overlaps} overlapping and {separated} separated pairs");
    assert!(overlaps > 1000);
}

#[test]
fn rigid_motion_and_scaling() {
    let mut rng = Pcg64::seed_from_u64(12);
    let mut checked = 0;
    for (i, (a, b)) in pairs(2000, 13).iter().enumerate() {
        let opts = ContactOptions::for_size(1.0);
        let Ok(c) = contact(a, b, &opts) else {
            continue;
        };
        if c.kind != ContactKind::Overlap {
            continue;
        }
        // Rigid motion.
        let iso = random_pose(&mut rng, 10.0);
        let d = contact(&a.transformed(&iso), &b.transformed(&iso), &opts)
            .unwrap_or_else(|e| panic!("pair {i}: {e}"));
        let moved = Contact {
            point: iso * c.point,
            normal: iso.rotation * c.normal,
            ..c.clone()
        };
        same(&moved, &d, 1.0, 10.0, c.conditioning > 1e-3);
        // Scaling by s about the origin, epsilon scaled with the model.
        for s in [1e-3, 7.5, 1e3] {
            let so = ContactOptions::for_size(s);
            let e = contact(&a.scaled(s), &b.scaled(s), &so)
                .unwrap_or_else(|e| panic!("pair {i} s {s}: {e}"));
            let scaled = Contact {
                point: (c.point.coords * s).into(),
                area: c.area * s * s,
                volume: c.volume * s.powi(3),
                gap: c.gap * s,
                ..c.clone()
            };
            assert!(
                ((e.volume - scaled.volume) / scaled.volume).abs() < 1e-9,
                "volume scaling"
            );
            same(&scaled, &e, 1.0, s, c.conditioning > 1e-3);
        }
        checked += 1;
    }
    println!("rigid motion and scaling: {checked} overlapping pairs");
    assert!(checked > 700);
}

#[test]
fn intersections_are_valid_polyhedra() {
    let eps = 1e-6;
    let mut n = 0;
    for (i, (a, b)) in pairs(3000, 14).iter().enumerate() {
        let Ok(x) = intersect(a, b, eps) else {
            continue;
        };
        let p = &x.polyhedron;
        let (v, e, f) = (p.vertices().len(), p.edge_count(), p.faces().len());
        assert_eq!(v + f, e + 2, "pair {i}: Euler");
        let tol = 1e-9 * a.diameter();
        for q in p.vertices() {
            assert!(
                a.contains(q, tol) && b.contains(q, tol),
                "pair {i}: vertex outside a body"
            );
        }
        for (face, src) in p.faces().iter().zip(&x.sources) {
            assert!(src.a.is_some() || src.b.is_some());
            for &k in &face.vertices {
                let d = face.normal.dot(&p.vertices()[k].coords) - face.offset;
                assert!(
                    d.abs() <= tol,
                    "pair {i}: vertex off its face plane by {d:e}"
                );
            }
        }
        assert!((p.volume() - p.mass_properties().volume).abs() < 1e-12);
        n += 1;
    }
    println!("valid intersections: {n}");
}

#[test]
fn identical_and_flush_bodies() {
    let opts = ContactOptions::for_size(1.0);
    let a = cube(1.0).unwrap();
    let c = contact(&a, &a, &opts).unwrap();
    assert!((c.volume - 1.0).abs() < 1e-12);
    assert!((c.area - 3.0).abs() < 1e-12);
    assert!(c.conditioning < 1e-12, "every face is flush: no direction");
    // Flush on one side: B is A shifted along x by 0.5; the faces at y and z are flush.
    let b = a.translated(&Vector3::new(0.5, 0.0, 0.0));
    let c = contact(&a, &b, &opts).unwrap();
    assert!((c.volume - 0.5).abs() < 1e-12);
    assert!((c.normal - Vector3::x()).norm() < 1e-12, "{}", c.normal);
    let x = intersect(&a, &b, 1e-6).unwrap();
    let both = x
        .sources
        .iter()
        .filter(|s| s.a.is_some() && s.b.is_some())
        .count();
    assert_eq!(both, 4, "four flush faces carry both sources");
}

#[test]
fn gjk_distance_is_certified() {
    // For separated pairs the witness points certify optimality: the plane through
    // them orthogonal to their difference separates the bodies.
    let mut n = 0;
    for (i, (a, b)) in pairs(3000, 15).iter().enumerate() {
        let b = b.translated(&Vector3::new(1.2, 0.0, 0.0));
        let p = dem_convex::gjk_distance(a, &b);
        if p.distance <= 1e-6 {
            continue;
        }
        let d = p.point_b - p.point_a;
        assert!((d.norm() - p.distance).abs() < 1e-12, "pair {i}");
        let u = d / d.norm();
        let tol = 1e-9;
        let ha = a
            .vertices()
            .iter()
            .map(|v| u.dot(&v.coords))
            .fold(f64::NEG_INFINITY, f64::max);
        let lb = b
            .vertices()
            .iter()
            .map(|v| u.dot(&v.coords))
            .fold(f64::INFINITY, f64::min);
        assert!(
            ha <= u.dot(&p.point_a.coords) + tol,
            "pair {i}: A beyond its witness"
        );
        assert!(
            lb >= u.dot(&p.point_b.coords) - tol,
            "pair {i}: B beyond its witness"
        );
        assert!(
            a.contains(&p.point_a, tol) && b.contains(&p.point_b, tol),
            "pair {i}"
        );
        n += 1;
    }
    println!("gjk certified on {n} separated pairs");
    assert!(n > 500);
}

#[test]
fn polar_hulls_are_exactly_valid() {
    // The polar points of every overlapping pair, as the intersection builds them,
    // hulled and checked: every point on the inner side of (or on) every triangle by
    // the exact predicate, after the same power-of-two scaling the hull uses.
    use dem_convex::hull::{convex_hull, orient};
    let mut n = 0;
    for (i, (a, b)) in pairs(2000, 16).iter().enumerate() {
        let Ok(c) = dem_convex::chebyshev_centre(a, b) else {
            panic!("pair {i}: LP failed")
        };
        if c.radius <= 1e-6 {
            continue;
        }
        let q: Vec<nalgebra::Point3<f64>> = a
            .faces()
            .iter()
            .chain(b.faces())
            .map(|f| (f.normal * (c.radius / (f.offset - f.normal.dot(&c.point.coords)))).into())
            .collect();
        let h = convex_hull(&q).unwrap_or_else(|e| panic!("pair {i}: {e}"));
        for t in &h.triangles {
            for (k, p) in q.iter().enumerate() {
                assert!(
                    orient(&q[t[0]], &q[t[1]], &q[t[2]], p) >= 0.0,
                    "pair {i}: polar point {k} outside"
                );
            }
        }
        let mut used: Vec<usize> = h.faces.iter().flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        let e: usize = h.faces.iter().map(|f| f.len()).sum::<usize>() / 2;
        assert_eq!(used.len() + h.faces.len(), e + 2, "pair {i}: Euler");
        n += 1;
    }
    println!("polar hulls checked: {n}");
    assert!(n > 1000);
}
