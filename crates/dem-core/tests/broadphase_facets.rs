//! The broad phase finds exactly the sphere-facet pairs brute force finds, for facets seen
//! for the first time, standing still (the cached facet grid) and moving; a rotation of a
//! mesh about a far-away point makes the list stale.

use dem_api::SphereShape;
use dem_core::engines::broadphase::{brute_force_pairs, VerletList};
use dem_core::model::mesh::build_facets;
use dem_core::model::particles::{Dofs, Particles, Shape};
use nalgebra::{UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};

fn scene(seed: u64) -> Particles {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut p = Particles::default();
    for _ in 0..500 {
        let r = rng.random_range(0.05..0.3);
        let c = Vector3::from_fn(|_, _| rng.random_range(-5.0..5.0));
        p.push(
            Shape::Sphere(SphereShape { radius: r }),
            c,
            Vector3::zeros(),
            Vector3::zeros(),
            1.0,
            Vector3::repeat(1.0),
            Dofs::FREE,
            0,
        );
    }
    // Random triangles of sizes from 0.1 to 6, placed around the mesh origin (1, 2, 3).
    let tris: Vec<[Vector3<f64>; 3]> = (0..60)
        .map(|_| {
            let a = Vector3::from_fn(|_, _| rng.random_range(-5.0..5.0));
            let s = 0.1 * 60f64.powf(rng.random::<f64>());
            [
                a,
                a + Vector3::new(s, 0.1 * s, 0.0),
                a + Vector3::new(0.0, s, 0.5 * s),
            ]
        })
        .collect();
    let origin = Vector3::new(1.0, 2.0, 3.0);
    for f in build_facets(&tris, &origin, 0.05, 0) {
        p.push(
            Shape::Facet(Box::new(f)),
            origin,
            Vector3::zeros(),
            Vector3::zeros(),
            f64::INFINITY,
            Vector3::repeat(f64::INFINITY),
            Dofs::ALL,
            0,
        );
    }
    p
}

#[test]
fn facet_pairs_equal_brute_force() {
    let mut p = scene(9);
    let mut v = VerletList::default();
    let (reach, skin) = (0.0, 0.06);
    for round in 0..4 {
        v.rebuild(&p, reach, skin);
        let brute = brute_force_pairs(&p, reach + skin);
        let facet_pairs = brute.iter().filter(|&&(_, b)| b >= 500).count();
        assert!(facet_pairs > 50, "{facet_pairs}");
        assert_eq!(v.pairs, brute, "round {round}");
        if round == 2 {
            // The mesh turns about its origin: every facet moves.
            let q = UnitQuaternion::from_scaled_axis(Vector3::new(0.1, 0.2, -0.3));
            for i in 500..p.len() {
                p.ori[i] = q;
            }
            assert!(v.stale(&p));
        }
    }
}

#[test]
fn rotation_far_from_the_origin_makes_the_list_stale() {
    let mut p = scene(10);
    let mut v = VerletList::default();
    v.rebuild(&p, 0.0, 0.06);
    assert!(!v.stale(&p));
    // A tiny rotation moves vertices about 5 m away by more than the skin.
    let q = UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, 0.02));
    for i in 500..p.len() {
        p.ori[i] = q;
    }
    assert!(v.stale(&p));
}
