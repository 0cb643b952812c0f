//! The quickhull on good and degenerate inputs: every hull is checked exactly
//! (every input point on the inner side of every triangle by `orient3d`, Euler's
//! formula on triangles and on polygon faces), and degenerate inputs give typed
//! errors, never a panic.

use dem_convex::hull::{convex_hull, orient, Hull};
use dem_convex::{ConvexError, Polyhedron};
use nalgebra::{Point3, Vector3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Exact check of a hull. The points are first scaled by a power of two (exact) so
/// that the predicates do not underflow or overflow on tiny or huge coordinates.
fn check(points: &[Point3<f64>], h: &Hull) {
    let max = points
        .iter()
        .flat_map(|p| [p.x.abs(), p.y.abs(), p.z.abs()])
        .fold(0.0, f64::max);
    let e = max.log2().floor() as i32;
    let points: Vec<Point3<f64>> = points
        .iter()
        .map(|p| (p.coords * 2f64.powi(-e / 2) * 2f64.powi(-(e - e / 2))).into())
        .collect();
    for t in &h.triangles {
        for (i, q) in points.iter().enumerate() {
            assert!(
                orient(&points[t[0]], &points[t[1]], &points[t[2]], q) >= 0.0,
                "point {i} outside triangle {t:?}"
            );
        }
    }
    let mut used: Vec<usize> = h.faces.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let e: usize = h.faces.iter().map(|f| f.len()).sum::<usize>();
    assert_eq!(e % 2, 0);
    assert_eq!(used.len() + h.faces.len(), e / 2 + 2, "Euler on polygons");
    let mut tv: Vec<usize> = h.triangles.iter().flatten().copied().collect();
    tv.sort_unstable();
    tv.dedup();
    assert_eq!(
        tv.len() + h.triangles.len(),
        3 * h.triangles.len() / 2 + 2,
        "Euler on triangles"
    );
}

fn cube_points() -> Vec<Point3<f64>> {
    (0..8)
        .map(|i| Point3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64))
        .collect()
}

#[test]
fn cube_with_duplicates_and_interior_points() {
    let mut pts = cube_points();
    for _ in 0..4 {
        pts.extend(cube_points());
    }
    pts.push(Point3::new(0.5, 0.5, 0.5));
    pts.push(Point3::new(0.5, 0.5, 1.0)); // on a face
    pts.push(Point3::new(0.5, 0.0, 0.0)); // on an edge
    let h = convex_hull(&pts).unwrap();
    check(&pts, &h);
    assert_eq!(h.faces.len(), 6);
    assert!(h.faces.iter().all(|f| f.len() == 4), "{:?}", h.faces);
    let p = Polyhedron::from_points(&pts).unwrap();
    assert_eq!(p.vertices().len(), 8);
    assert!((p.volume() - 1.0).abs() < 1e-15);
}

#[test]
fn grid_is_a_cube() {
    let mut pts = Vec::new();
    for i in 0..5 {
        for j in 0..5 {
            for k in 0..5 {
                pts.push(Point3::new(i as f64, j as f64, k as f64) * 0.25);
            }
        }
    }
    let mut rng = Pcg64::seed_from_u64(1);
    for i in (1..pts.len()).rev() {
        pts.swap(i, rng.random_range(0..=i));
    }
    let h = convex_hull(&pts).unwrap();
    check(&pts, &h);
    assert_eq!(h.faces.len(), 6);
    assert!(h.faces.iter().all(|f| f.len() == 4));
}

#[test]
fn random_clouds_many_coplanar() {
    let mut rng = Pcg64::seed_from_u64(2);
    for trial in 0..2000 {
        let n = rng.random_range(4..60);
        let grid = rng.random_range(1..5) as f64;
        let pts: Vec<Point3<f64>> = (0..n)
            .map(|_| {
                let mut p = Vector3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                );
                if trial % 2 == 0 {
                    p = (p * grid).map(f64::round) / grid; // lattice: many coplanar points
                }
                p.into()
            })
            .collect();
        match convex_hull(&pts) {
            Ok(h) => check(&pts, &h),
            Err(
                ConvexError::Coplanar | ConvexError::Collinear | ConvexError::TooFewPoints { .. },
            ) => {}
            Err(e) => panic!("trial {trial}: {e}"),
        }
    }
}

#[test]
fn points_on_a_sphere_and_rounded_sphere() {
    let mut rng = Pcg64::seed_from_u64(3);
    for trial in 0..200 {
        let n = rng.random_range(4..300);
        let pts: Vec<Point3<f64>> = (0..n)
            .map(|_| {
                let v = Vector3::new(
                    rng.random_range(-1.0..1.0f64),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                )
                .normalize();
                if trial % 2 == 0 {
                    (v * 64.0).map(f64::round).into()
                } else {
                    v.into()
                }
            })
            .collect();
        match convex_hull(&pts) {
            Ok(h) => check(&pts, &h),
            Err(e) => panic!("trial {trial}: {e}"),
        }
    }
}

#[test]
fn degenerate_inputs_give_typed_errors() {
    let p = |x, y, z| Point3::new(x, y, z);
    assert!(matches!(
        convex_hull(&[]),
        Err(ConvexError::TooFewPoints { .. })
    ));
    assert!(matches!(
        convex_hull(&[p(0., 0., 0.), p(1., 0., 0.), p(0., 1., 0.)]),
        Err(ConvexError::TooFewPoints { count: 3 })
    ));
    assert!(matches!(
        convex_hull(&[p(0., 0., 0.); 10]),
        Err(ConvexError::TooFewPoints { count: 1 })
    ));
    let line: Vec<_> = (0..10).map(|i| p(i as f64, 2.0 * i as f64, 0.5)).collect();
    assert_eq!(convex_hull(&line), Err(ConvexError::Collinear));
    let plane: Vec<_> = (0..30)
        .map(|i| p((i % 7) as f64, (i / 7) as f64 * 0.3, 0.0))
        .collect();
    assert_eq!(convex_hull(&plane), Err(ConvexError::Coplanar));
    let tilted: Vec<_> = (0..30)
        .map(|i| {
            let (x, y) = ((i % 7) as f64, (i / 7) as f64);
            p(x, y, 0.25 * x + 0.5 * y)
        })
        .collect();
    assert_eq!(convex_hull(&tilted), Err(ConvexError::Coplanar));
    // With coefficients 0.1 and 0.2 the points are not exactly coplanar after
    // rounding: either a (very flat) valid hull or Coplanar, never a panic.
    let rounded: Vec<_> = (0..30)
        .map(|i| {
            let (x, y) = ((i % 7) as f64, (i / 7) as f64);
            p(x, y, 0.1 * x + 0.2 * y)
        })
        .collect();
    if let Ok(h) = convex_hull(&rounded) {
        check(&rounded, &h);
    }
    let mut nan = cube_points();
    nan[3].y = f64::NAN;
    assert_eq!(convex_hull(&nan), Err(ConvexError::NonFinite { index: 3 }));
    nan[3].y = f64::INFINITY;
    assert_eq!(convex_hull(&nan), Err(ConvexError::NonFinite { index: 3 }));
}

#[test]
fn slivers_needles_huge_and_tiny() {
    let mut rng = Pcg64::seed_from_u64(4);
    for &scale in &[1e-150, 1e-20, 1.0, 1e20, 1e150, 1e300] {
        // Sliver: a flat square lifted by one point barely off the plane.
        let mut sliver: Vec<Point3<f64>> =
            cube_points().into_iter().filter(|q| q.z == 0.0).collect();
        sliver.push(Point3::new(0.3, 0.4, 1e-14));
        // Needle: points along a line with tiny offsets.
        let mut needle: Vec<Point3<f64>> =
            (0..20).map(|i| Point3::new(i as f64, 0.0, 0.0)).collect();
        needle.push(Point3::new(5.0, 1e-12, 0.0));
        needle.push(Point3::new(7.0, 0.0, 1e-12));
        // Random cloud.
        let cloud: Vec<Point3<f64>> = (0..50)
            .map(|_| {
                Point3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                )
            })
            .collect();
        for (name, set) in [
            ("sliver", sliver),
            ("needle", needle),
            ("cloud", cloud),
            ("cube", cube_points()),
        ] {
            let pts: Vec<Point3<f64>> = set.iter().map(|q| (q.coords * scale).into()).collect();
            let h = convex_hull(&pts).unwrap_or_else(|e| panic!("{name} at {scale:e}: {e}"));
            check(&pts, &h);
            if name == "cube" {
                assert_eq!(h.faces.len(), 6, "cube at {scale:e}");
            }
        }
    }
    // A flat square offset by less than the predicates' range is exactly coplanar.
    let mut flat: Vec<Point3<f64>> = cube_points().into_iter().filter(|q| q.z == 0.0).collect();
    flat.push(Point3::new(0.3, 0.4, 0.0));
    assert_eq!(convex_hull(&flat), Err(ConvexError::Coplanar));
}

#[test]
fn from_faces_validation() {
    let v = cube_points();
    let faces = vec![
        vec![0, 4, 6, 2],
        vec![1, 3, 7, 5],
        vec![0, 1, 5, 4],
        vec![2, 6, 7, 3],
        vec![0, 2, 3, 1],
        vec![4, 5, 7, 6],
    ];
    assert!(Polyhedron::from_faces(v.clone(), faces.clone()).is_ok());
    let inverted: Vec<Vec<usize>> = faces
        .iter()
        .map(|f| f.iter().rev().copied().collect())
        .collect();
    assert!(matches!(
        Polyhedron::from_faces(v.clone(), inverted),
        Err(ConvexError::Inverted { .. })
    ));
    assert!(matches!(
        Polyhedron::from_faces(v.clone(), faces[..5].to_vec()),
        Err(ConvexError::NotClosed(..))
    ));
    let mut flipped = faces.clone();
    flipped[0].reverse();
    assert!(matches!(
        Polyhedron::from_faces(v.clone(), flipped),
        Err(ConvexError::NotClosed(..))
    ));
    let mut dented = v.clone();
    dented[7] = Point3::new(0.8, 0.8, 0.8);
    assert!(matches!(
        Polyhedron::from_faces(dented, faces.clone()),
        Err(ConvexError::NotConvex { .. })
    ));
    let mut bad = faces.clone();
    bad[0][0] = 99;
    assert!(matches!(
        Polyhedron::from_faces(v.clone(), bad),
        Err(ConvexError::InvalidFaces(_))
    ));
    let mut nan = v.clone();
    nan[0].x = f64::NAN;
    assert!(matches!(
        Polyhedron::from_faces(nan, faces),
        Err(ConvexError::NonFinite { index: 0 })
    ));
}

#[test]
fn polyhedra_at_extreme_scales() {
    let faces = vec![
        vec![0, 4, 6, 2],
        vec![1, 3, 7, 5],
        vec![0, 1, 5, 4],
        vec![2, 6, 7, 3],
        vec![0, 2, 3, 1],
        vec![4, 5, 7, 6],
    ];
    // Volumes (s³) and inertias (s⁵) must stay representable: |log10 s| <= 60.
    for s in [1e-60, 1e-30, 1e30, 1e60] {
        let v: Vec<Point3<f64>> = cube_points()
            .iter()
            .map(|p| (p.coords * s).into())
            .collect();
        let a = Polyhedron::from_faces(v.clone(), faces.clone())
            .unwrap_or_else(|e| panic!("{s:e}: {e}"));
        let b = Polyhedron::from_points(&v).unwrap_or_else(|e| panic!("{s:e}: {e}"));
        for p in [&a, &b] {
            let m = p.mass_properties();
            assert!(
                (m.volume / s.powi(3) - 1.0).abs() < 1e-12,
                "{s:e}: {}",
                m.volume
            );
            assert!((m.centroid.coords / s - Vector3::repeat(0.5)).norm() < 1e-12);
            assert!(
                (m.inertia[(0, 0)] / s.powi(5) - 1.0 / 6.0).abs() < 1e-12,
                "{s:e}"
            );
        }
    }
}
