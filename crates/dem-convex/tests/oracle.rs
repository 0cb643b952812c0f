//! The intersection against an independent brute-force half-space intersection:
//! every triple of planes solved as a 3×3 system, vertices kept if inside all
//! planes, each face polygon sorted by angle about its vertex mean. Volume from
//! pyramids on the faces, point = area-weighted centroid of the surface.

use dem_convex::generate::{corner_tetrahedron, cube};
use dem_convex::{contact, ContactKind, ContactOptions, Polyhedron};
use nalgebra::{Isometry3, Matrix3, Point3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

struct Oracle {
    volume: f64,
    area: f64,
    point: Point3<f64>,
}

fn brute_force(a: &Polyhedron, b: &Polyhedron) -> Option<Oracle> {
    let mut planes: Vec<(Vector3<f64>, f64)> = Vec::new();
    for f in a.faces().iter().chain(b.faces()) {
        if !planes
            .iter()
            .any(|(n, d)| (n - f.normal).norm() < 1e-12 && (d - f.offset).abs() < 1e-12)
        {
            planes.push((f.normal, f.offset));
        }
    }
    let scale = a.diameter().max(b.diameter());
    let tol = 1e-10 * scale;
    let mut verts: Vec<Vector3<f64>> = Vec::new();
    let m = planes.len();
    for i in 0..m {
        for j in i + 1..m {
            for k in j + 1..m {
                let mat = Matrix3::from_rows(&[
                    planes[i].0.transpose(),
                    planes[j].0.transpose(),
                    planes[k].0.transpose(),
                ]);
                if mat.determinant().abs() < 1e-10 {
                    continue;
                }
                let Some(v) = mat
                    .lu()
                    .solve(&Vector3::new(planes[i].1, planes[j].1, planes[k].1))
                else {
                    continue;
                };
                if planes.iter().all(|(n, d)| n.dot(&v) <= d + tol)
                    && !verts.iter().any(|w| (w - v).norm() < tol)
                {
                    verts.push(v);
                }
            }
        }
    }
    if verts.len() < 4 {
        return None;
    }
    let mean = verts.iter().sum::<Vector3<f64>>() / verts.len() as f64;
    let (mut volume, mut area, mut moment) = (0.0, 0.0, Vector3::zeros());
    for (n, d) in &planes {
        let on: Vec<Vector3<f64>> = verts
            .iter()
            .copied()
            .filter(|v| (n.dot(v) - d).abs() <= tol)
            .collect();
        if on.len() < 3 {
            continue;
        }
        let c = on.iter().sum::<Vector3<f64>>() / on.len() as f64;
        let u = (on[0] - c).normalize();
        let w = n.cross(&u);
        let mut sorted = on.clone();
        sorted.sort_by(|p, q| {
            let ap = (p - c).dot(&w).atan2((p - c).dot(&u));
            let aq = (q - c).dot(&w).atan2((q - c).dot(&u));
            ap.total_cmp(&aq)
        });
        let (mut fa, mut fm) = (0.0, Vector3::zeros());
        for s in 0..sorted.len() {
            let (p, q) = (sorted[s], sorted[(s + 1) % sorted.len()]);
            let t = 0.5 * (p - c).cross(&(q - c)).dot(n);
            fa += t;
            fm += t * (c + p + q) / 3.0;
        }
        area += fa;
        moment += fm;
        volume += fa * (d - n.dot(&mean)) / 3.0;
    }
    Some(Oracle {
        volume,
        area: 0.5 * area,
        point: (moment / area).into(),
    })
}

fn random_pose(rng: &mut Pcg64, spread: f64) -> Isometry3<f64> {
    let axis = Vector3::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    );
    let rot = UnitQuaternion::from_scaled_axis(axis * 3.0);
    let t = Vector3::new(
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
    );
    Isometry3::from_parts(t.into(), rot)
}

/// Compare on `count` random pairs of `shape`; returns the largest relative error.
fn compare(shape: &Polyhedron, count: usize, spread: f64, seed: u64) -> (f64, usize) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let opts = ContactOptions::for_size(1.0);
    let mut worst: f64 = 0.0;
    let mut compared = 0;
    while compared < count {
        let a = shape.transformed(&random_pose(&mut rng, spread));
        let b = shape.transformed(&random_pose(&mut rng, spread));
        let Some(o) = brute_force(&a, &b) else {
            continue;
        };
        let size = a.diameter();
        if o.volume < 1e-6 * size.powi(3) {
            continue; // touching or nearly: compared elsewhere
        }
        let c = contact(&a, &b, &opts).unwrap_or_else(|e| panic!("pair {compared}: {e}"));
        assert_eq!(c.kind, ContactKind::Overlap);
        let ev = (c.volume - o.volume).abs() / o.volume;
        let ea = (c.area - o.area).abs() / o.area;
        let ep = (c.point - o.point).norm() / size;
        let e = ev.max(ea).max(ep);
        assert!(
            e < 1e-8,
            "pair {compared}: volume {} vs {}, area {} vs {}, point {} vs {}",
            c.volume,
            o.volume,
            c.area,
            o.area,
            c.point,
            o.point
        );
        worst = worst.max(e);
        compared += 1;
    }
    (worst, compared)
}

#[test]
fn cubes_against_brute_force() {
    let (worst, n) = compare(&cube(1.0).unwrap(), 1000, 0.6, 1);
    println!("cubes: {n} pairs, max relative error {worst:e}");
}

#[test]
fn tetrahedra_against_brute_force() {
    let (worst, n) = compare(&corner_tetrahedron(1.0).unwrap(), 1000, 0.3, 2);
    println!("tetrahedra: {n} pairs, max relative error {worst:e}");
}

#[test]
fn deep_overlaps_against_brute_force() {
    let (w1, n1) = compare(&cube(1.0).unwrap(), 300, 0.05, 3);
    let (w2, n2) = compare(&corner_tetrahedron(1.0).unwrap(), 300, 0.02, 4);
    let rock = dem_convex::generate::rock(5, 16, Vector3::new(1.0, 0.7, 0.5)).unwrap();
    let (w3, n3) = compare(&rock, 200, 0.05, 6);
    println!(
        "deep: cubes {n1} pairs {w1:e}, tetrahedra {n2} pairs {w2:e}, rocks {n3} pairs {w3:e}"
    );
}
