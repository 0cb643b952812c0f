//! Closed-form contact cases from issue 4 and the Solfec notes.

use dem_convex::generate::{corner_tetrahedron, cuboid};
use dem_convex::{contact, intersect, ContactKind, ContactOptions, IntersectionError, Polyhedron};
use nalgebra::{Isometry3, Point3, Vector3};

fn boxp(lo: [f64; 3], hi: [f64; 3]) -> Polyhedron {
    cuboid(Point3::from(lo), Point3::from(hi)).unwrap()
}

fn opts() -> ContactOptions {
    ContactOptions::for_size(1.0)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn offset_boxes() {
    let a = boxp([0.0; 3], [1.0; 3]);
    let b = boxp([0.5, 0.25, 0.1], [1.5, 1.25, 1.1]);
    let c = contact(&a, &b, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Overlap);
    assert!(close(c.volume, 0.3375, 1e-9), "{}", c.volume);
    assert!(close(c.area, 1.5, 1e-9), "{}", c.area);
    assert!(
        (c.point - Point3::new(0.75, 0.625, 0.55)).norm() < 1e-9,
        "{}",
        c.point
    );
    let n = Vector3::new(0.675f64.powi(2), 0.45f64.powi(2), 0.375f64.powi(2)).normalize();
    assert!((c.normal - n).norm() < 1e-9, "{}", c.normal);
    assert!(close(c.gap, -0.735430, 5e-7), "{}", c.gap);
    println!("offset boxes: {c:?}");
}

#[test]
fn stacked_boxes() {
    let a = boxp([0.0; 3], [1.0; 3]);
    let b = boxp([0.0, 0.0, 0.9], [1.0, 1.0, 1.9]);
    let c = contact(&a, &b, &opts()).unwrap();
    assert!(close(c.volume, 0.1, 1e-9));
    assert!(close(c.area, 1.2, 1e-9));
    assert!((c.point - Point3::new(0.5, 0.5, 0.95)).norm() < 1e-9);
    assert!((c.normal - Vector3::z()).norm() < 1e-9);
    assert!(close(c.gap, -0.1, 1e-9), "{}", c.gap);
}

#[test]
fn rotated_cube() {
    let d = 0.05;
    let a = boxp([-0.5; 3], [0.5; 3]);
    let iso = Isometry3::new(
        Vector3::new(0.0, 0.0, 1.0 - d),
        Vector3::z() * std::f64::consts::FRAC_PI_4,
    );
    let b = a.transformed(&iso);
    let c = contact(&a, &b, &opts()).unwrap();
    let s = 2f64.sqrt() - 1.0;
    assert!(close(c.volume, 2.0 * s * d, 1e-9), "{}", c.volume);
    assert!(close(c.area, 2.0 * s + 4.0 * s * d, 1e-9), "{}", c.area);
    assert!(
        (c.point - Point3::new(0.0, 0.0, 0.5 - d / 2.0)).norm() < 1e-9,
        "{}",
        c.point
    );
    assert!((c.normal - Vector3::z()).norm() < 1e-9, "{}", c.normal);
    assert!(close(c.gap, -d, 1e-9), "{}", c.gap);
}

#[test]
fn tetrahedra() {
    let t = 0.25;
    let a = corner_tetrahedron(1.0).unwrap();
    let b = Polyhedron::from_points(
        &a.vertices()
            .iter()
            .map(|v| Point3::from(Vector3::repeat(t) - v.coords))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let c = contact(&a, &b, &opts()).unwrap();
    assert!(close(c.volume, t.powi(3), 1e-9), "{}", c.volume);
    assert!(close(c.area, 3.0 * t * t, 1e-9), "{}", c.area);
    assert!(
        (c.point - Point3::from(Vector3::repeat(t / 2.0))).norm() < 1e-9,
        "{}",
        c.point
    );
    assert!(
        (c.normal + Vector3::repeat(1.0).normalize()).norm() < 1e-9,
        "{}",
        c.normal
    );
    assert!(close(c.gap, -(3f64.sqrt()) * t, 1e-9), "{}", c.gap);
}

#[test]
fn touching_cubes() {
    let a = boxp([0.0; 3], [1.0; 3]);
    let b = a.translated(&Vector3::new(0.0, 0.0, 1.0));
    assert!(matches!(
        intersect(&a, &b, opts().epsilon),
        Err(IntersectionError::Touching { .. })
    ));
    let c = contact(&a, &b, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Touching);
    assert!((c.normal - Vector3::z()).norm() < 1e-9, "{}", c.normal);
    assert!(close(c.area, 1.0, 1e-9), "{}", c.area);
    assert!(
        (c.point - Point3::new(0.5, 0.5, 1.0)).norm() < 1e-9,
        "{}",
        c.point
    );
    assert!(close(c.gap, 0.0, 1e-12));
    assert_eq!(c.volume, 0.0);
}

#[test]
fn separated_cubes() {
    let a = boxp([0.0; 3], [1.0; 3]);
    let b = a.translated(&Vector3::new(0.0, 0.0, 1.1));
    match contact(&a, &b, &opts()) {
        Err(IntersectionError::Separated { distance, .. }) => {
            assert!(close(distance, 0.1, 1e-9), "{distance}")
        }
        other => panic!("expected separated, got {other:?}"),
    }
}

#[test]
fn cube_inside_cube() {
    let a = boxp([-1.0; 3], [1.0; 3]);
    let b = boxp([-0.2, -0.1, 0.0], [0.1, 0.2, 0.3]);
    let c = contact(&a, &b, &opts()).unwrap();
    assert!(close(c.volume, 0.027, 1e-12), "{}", c.volume);
    assert!(close(c.area, 0.27, 1e-12), "{}", c.area);
    assert!(c.conditioning < 1e-9, "conditioning {}", c.conditioning);
    // And a slightly offset, non-cubic inner body: still badly conditioned.
    let b = boxp([-0.2, -0.1, 0.0], [0.1, 0.25, 0.3]);
    let c = contact(&a, &b, &opts()).unwrap();
    assert!(close(c.volume, 0.3 * 0.35 * 0.3, 1e-12), "{}", c.volume);
    assert!(c.conditioning < 1e-9, "conditioning {}", c.conditioning);
}

#[test]
fn touching_variants() {
    let a = boxp([0.0; 3], [1.0; 3]);
    // Partial face overlap.
    let b = boxp([0.5, 0.5, 1.0], [1.5, 1.5, 2.0]);
    let c = contact(&a, &b, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Touching);
    assert!(
        close(c.area, 0.25, 1e-12) && (c.point - Point3::new(0.75, 0.75, 1.0)).norm() < 1e-12,
        "{c:?}"
    );
    assert!((c.normal - Vector3::z()).norm() < 1e-12);
    // Penetration below epsilon is still touching, and B below A flips the normal.
    let b = a.translated(&Vector3::new(0.0, 0.0, -(1.0 - 1e-8)));
    let c = contact(&a, &b, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Touching);
    assert!(
        (c.normal + Vector3::z()).norm() < 1e-12 && close(c.area, 1.0, 1e-9),
        "{c:?}"
    );
    assert!(close(c.gap, -1e-8, 1e-15), "{}", c.gap);
    // A gap below epsilon: touching with a positive gap.
    let b = a.translated(&Vector3::new(0.2, 0.1, 1.0 + 1e-7));
    let c = contact(&a, &b, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Touching);
    assert!(
        (c.normal - Vector3::z()).norm() < 1e-12 && close(c.area, 0.72, 1e-9),
        "{c:?}"
    );
    assert!(close(c.gap, 1e-7, 1e-15), "{}", c.gap);
    // An edge of a cube rotated 45 degrees about x resting on the top face.
    let h = 0.5 * 2f64.sqrt();
    let iso = Isometry3::new(
        Vector3::new(0.5, 0.5, 1.0 + h),
        Vector3::x() * std::f64::consts::FRAC_PI_4,
    );
    let b = boxp([-0.5; 3], [0.5; 3]).transformed(&iso);
    let c = contact(&a, &b, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Touching);
    assert!((c.normal - Vector3::z()).norm() < 1e-9, "{}", c.normal);
    assert!(c.area.abs() < 1e-12);
    assert!(
        (c.point.z - 1.0).abs() < 1e-6 && c.point.x > -1e-9 && c.point.x < 1.0 + 1e-9,
        "{}",
        c.point
    );
    // A vertex of a tetrahedron on the top face.
    let t = corner_tetrahedron(1.0).unwrap();
    let t = Polyhedron::from_points(
        &t.vertices()
            .iter()
            .map(|v| Point3::new(0.3 + v.x, 0.3 + v.y, 1.0 + v.z))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let c = contact(&a, &t, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Touching);
    assert!((c.normal - Vector3::z()).norm() < 1e-9, "{}", c.normal);
    // The tetrahedron's bottom face lies on z = 1: the square [.3,1]² less the
    // corner beyond x + y = 1.6 (legs 0.4), area 0.49 - 0.08.
    assert!((c.point.z - 1.0).abs() < 1e-12, "{}", c.point);
    assert!(close(c.area, 0.41, 1e-12), "{}", c.area);
    // Flush within epsilon though not parallel: B tilted by 1e-8 rad about x and
    // resting on one edge; the whole square is within eps = 1e-6 of the plane.
    let tilt = Isometry3::new(Vector3::new(0.5, 0.5, 1.5), Vector3::x() * 1e-8);
    let b = boxp([-0.5; 3], [0.5; 3]).transformed(&tilt);
    let b = b.translated(&Vector3::new(0.0, 0.0, 1.0 - b.aabb().0.z));
    let c = contact(&a, &b, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Touching);
    assert!(
        close(c.area, 1.0, 1e-7) && (c.normal - Vector3::z()).norm() < 1e-7,
        "{c:?}"
    );
    // Crossed edges: A turned 45 degrees about y (top edge along y), B turned 45
    // degrees about x (bottom edge along x) and lifted to touch it.
    let q = std::f64::consts::FRAC_PI_4;
    let h = 0.5 * 2f64.sqrt();
    let ea =
        boxp([-0.5; 3], [0.5; 3]).transformed(&Isometry3::new(Vector3::zeros(), Vector3::y() * q));
    let eb = boxp([-0.5; 3], [0.5; 3])
        .transformed(&Isometry3::new(Vector3::z() * 2.0 * h, Vector3::x() * q));
    let c = contact(&ea, &eb, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Touching);
    assert!((c.normal - Vector3::z()).norm() < 1e-9, "{}", c.normal);
    assert!(
        c.area == 0.0 && (c.point - Point3::new(0.0, 0.0, h)).norm() < 1e-6,
        "{c:?}"
    );
    // A true vertex contact: a tetrahedron standing on its apex.
    let apex = Polyhedron::from_points(&[
        Point3::new(0.5, 0.5, 1.0),
        Point3::new(0.0, 0.0, 2.0),
        Point3::new(1.0, 0.0, 2.0),
        Point3::new(0.5, 1.0, 2.0),
    ])
    .unwrap();
    let c = contact(&a, &apex, &opts()).unwrap();
    assert_eq!(c.kind, ContactKind::Touching);
    assert!((c.normal - Vector3::z()).norm() < 1e-9, "{}", c.normal);
    assert!(
        c.area == 0.0 && (c.point - Point3::new(0.5, 0.5, 1.0)).norm() < 1e-6,
        "{c:?}"
    );
}

#[test]
fn normal_does_not_depend_on_face_triangulation() {
    // The rotated-cube case with B's faces given as triangles (each square split
    // along a diagonal): coplanar planes merge before the hull, the intersection
    // faces stay polygons, and the result is the same as with square faces.
    let d = 0.05;
    let v: Vec<Point3<f64>> = (0..8)
        .map(|i| {
            Point3::new(
                (i & 1) as f64 - 0.5,
                ((i >> 1) & 1) as f64 - 0.5,
                ((i >> 2) & 1) as f64 - 0.5,
            )
        })
        .collect();
    let quads = [
        [0, 4, 6, 2],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 2, 3, 1],
        [4, 5, 7, 6],
    ];
    let tris: Vec<Vec<usize>> = quads
        .iter()
        .flat_map(|q| [vec![q[0], q[1], q[2]], vec![q[0], q[2], q[3]]])
        .collect();
    let a = Polyhedron::from_faces(v.clone(), quads.iter().map(|q| q.to_vec()).collect()).unwrap();
    let b_tri = Polyhedron::from_faces(v, tris).unwrap();
    assert_eq!(b_tri.faces().len(), 12);
    let iso = Isometry3::new(
        Vector3::new(0.0, 0.0, 1.0 - d),
        Vector3::z() * std::f64::consts::FRAC_PI_4,
    );
    let c_quad = contact(&a, &a.transformed(&iso), &opts()).unwrap();
    let c_tri = contact(&a, &b_tri.transformed(&iso), &opts()).unwrap();
    assert!(
        (c_tri.normal - Vector3::z()).norm() < 1e-12,
        "{}",
        c_tri.normal
    );
    assert!((c_tri.normal - c_quad.normal).norm() < 1e-12);
    assert!(close(c_tri.area, c_quad.area, 1e-12) && close(c_tri.volume, c_quad.volume, 1e-12));
    assert!((c_tri.point - c_quad.point).norm() < 1e-12);
}
