//! The broad phase with extreme sizes finds exactly the pairs brute force finds: a few
//! boulders among grains (the grid is sized for the grains, the boulders scan the cells
//! they reach) and facets far thicker than the grid's cells (tested directly, not listed
//! in every cell they cover: a half-thickness of 1e308 used to exhaust the memory).

use dem_api::SphereShape;
use dem_core::engines::broadphase::{brute_force_pairs, typical_radius, VerletList};
use dem_core::model::mesh::build_facets;
use dem_core::model::particles::{Dofs, Particles, Shape};
use dem_core::scene::BroadPhase;
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};

fn push_sphere(p: &mut Particles, c: Vector3<f64>, r: f64) {
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

fn grains(seed: u64, n: usize) -> Particles {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut p = Particles::default();
    for _ in 0..n {
        let r = rng.random_range(0.05..0.1);
        let c = Vector3::from_fn(|_, _| rng.random_range(-5.0..5.0));
        push_sphere(&mut p, c, r);
    }
    p
}

fn add_mesh(p: &mut Particles, halfthick: f64) {
    let tris = vec![
        [
            Vector3::new(-4.0, -4.0, 0.0),
            Vector3::new(4.0, -4.0, 0.0),
            Vector3::new(0.0, 4.0, 0.0),
        ],
        [
            Vector3::new(-1.0, -1.0, 2.0),
            Vector3::new(1.0, -1.0, 2.0),
            Vector3::new(0.0, 1.0, 2.5),
        ],
    ];
    for f in build_facets(&tris, &Vector3::zeros(), halfthick, 0) {
        p.push(
            Shape::Facet(Box::new(f)),
            Vector3::zeros(),
            Vector3::zeros(),
            Vector3::zeros(),
            f64::INFINITY,
            Vector3::repeat(f64::INFINITY),
            Dofs::ALL,
            0,
        );
    }
}

#[test]
fn boulders_among_grains_are_paired_exactly_and_do_not_size_the_grid() {
    let mut p = grains(3, 600);
    // A boulder whose surface cuts through the grains, one far away, and one touching it.
    push_sphere(&mut p, Vector3::new(0.0, 0.0, -1e3 + 0.5), 1e3);
    push_sphere(&mut p, Vector3::new(0.0, 0.0, 1e4), 5e3);
    push_sphere(&mut p, Vector3::new(0.0, 0.0, -2e3 - 2.0), 1e3);
    add_mesh(&mut p, 0.01);
    assert!(typical_radius(&p) <= 0.1, "{}", typical_radius(&p));
    for method in [BroadPhase::Grid, BroadPhase::BoxIntersection] {
        let mut v = VerletList::default();
        v.method = method;
        let margin = 0.02;
        for round in 0..2 {
            v.rebuild(&p, 0.0, margin);
            let brute = brute_force_pairs(&p, margin);
            let boulder = brute.iter().filter(|&&(a, b)| a == 600 || b == 600).count();
            assert!(boulder > 20, "{boulder} pairs with the first boulder");
            assert!(brute.contains(&(600, 602)), "the touching boulders");
            assert_eq!(v.pairs, brute, "{method:?}, round {round}");
        }
    }
}

#[test]
fn facets_thicker_than_the_grid_are_paired_exactly() {
    for halfthick in [0.5, 3.0, 1e308] {
        let mut p = grains(4, 400);
        add_mesh(&mut p, halfthick);
        let mut v = VerletList::default();
        let margin = 0.02;
        for round in 0..3 {
            if round == 2 {
                // The mesh moves: its facets are tested as moving ones.
                for i in 400..p.len() {
                    p.pos[i].x += 0.3;
                }
            }
            v.rebuild(&p, 0.0, margin);
            let brute = brute_force_pairs(&p, margin);
            assert!(brute.iter().any(|&(_, b)| b >= 400), "no facet pair");
            assert_eq!(v.pairs, brute, "halfthick {halfthick}, round {round}");
        }
    }
}
