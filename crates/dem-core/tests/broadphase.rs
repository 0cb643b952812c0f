//! The broad phase, with the cell grid or the hybrid box intersection, reports exactly the
//! pairs brute force finds.

use dem_api::{SphereShape, WallShape};
use dem_core::engines::broadphase::{brute_force_pairs, VerletList};
use dem_core::model::particles::{Dofs, Particles, Shape};
use dem_core::scene::BroadPhase;
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};

fn random_scene(seed: u64, n: usize, rmin: f64, rmax: f64) -> Particles {
    random_scene_in(seed, n, rmin, rmax, 20.0)
}

/// `n` spheres with centres uniform in `[-half, half]^3` and three walls.
fn random_scene_in(seed: u64, n: usize, rmin: f64, rmax: f64, half: f64) -> Particles {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut p = Particles::default();
    for _ in 0..n {
        // Log-uniform radii: the size ratio spans rmax / rmin.
        let r = rmin * (rmax / rmin).powf(rng.random::<f64>());
        let c = Vector3::from_fn(|_, _| rng.random_range(-half..half));
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
    for (normal, sense) in [
        ([0.0, 0.0, 1.0], 1),
        ([1.0, 1.0, 0.0], 0),
        ([0.0, 1.0, 0.0], -1),
    ] {
        let w = WallShape {
            normal: Vector3::from(normal).normalize().into(),
            sense,
        };
        p.push(
            Shape::Wall(w),
            Vector3::new(0.5, -3.0, -10.0),
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
fn grid_and_box_intersection_equal_brute_force() {
    // Monodisperse, polydisperse up to 100:1, clustered (all in one grid cell).
    for (seed, n, rmin, rmax, half) in [
        (1, 600, 0.2, 0.2, 20.0),
        (2, 600, 0.05, 5.0, 20.0),
        (3, 400, 0.02, 2.0, 20.0),
        (4, 300, 0.1, 10.0, 20.0),
        (6, 1500, 0.01, 1.0, 8.0),
        (7, 300, 0.2, 0.2, 0.1),
    ] {
        let p = random_scene_in(seed, n, rmin, rmax, half);
        for (reach, skin) in [(0.0, 0.1 * rmax), (0.3, 0.05)] {
            let brute = brute_force_pairs(&p, reach + skin);
            assert!(!brute.is_empty());
            for method in [BroadPhase::Grid, BroadPhase::BoxIntersection] {
                let mut v = VerletList::with_method(method);
                v.rebuild(&p, reach, skin);
                assert_eq!(
                    v.pairs,
                    brute,
                    "{method:?}, seed {seed}, size ratio {}",
                    rmax / rmin
                );
            }
        }
    }
}

#[test]
fn list_goes_stale_after_moving_more_than_the_skin() {
    let mut p = random_scene(5, 50, 0.5, 0.5);
    let mut v = VerletList::default();
    assert!(v.stale(&p));
    v.rebuild(&p, 0.0, 0.1);
    assert!(!v.stale(&p));
    p.pos[0].x += 0.04;
    p.pos[1].y += 0.04;
    assert!(!v.stale(&p), "0.08 < skin");
    p.pos[2].z -= 0.07;
    assert!(v.stale(&p), "two largest moves 0.07 + 0.04 > skin");
}
