//! The hand-written Chebyshev-centre LP against an independent LP solver (microlp):
//! the optimal radius agrees on random rock, cube and mixed pairs, overlapping and
//! apart (negative radius).

use dem_convex::generate::{cube, rock};
use dem_convex::{chebyshev_centre, Polyhedron};
use microlp::{ComparisonOp, OptimizationDirection, Problem};
use nalgebra::{Isometry3, Vector3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn radius_by_microlp(a: &Polyhedron, b: &Polyhedron) -> f64 {
    let mut p = Problem::new(OptimizationDirection::Maximize);
    let free = (f64::NEG_INFINITY, f64::INFINITY);
    let x = [
        p.add_var(0.0, free),
        p.add_var(0.0, free),
        p.add_var(0.0, free),
    ];
    let r = p.add_var(1.0, free);
    for f in a.faces().iter().chain(b.faces()) {
        p.add_constraint(
            [
                (x[0], f.normal.x),
                (x[1], f.normal.y),
                (x[2], f.normal.z),
                (r, 1.0),
            ],
            ComparisonOp::Le,
            f.offset,
        );
    }
    let outcome = p.solve().expect("microlp");
    assert!(outcome.is_optimal());
    outcome.solution().expect("microlp solution").objective()
}

#[test]
fn radius_agrees_with_microlp() {
    let mut rng = Pcg64::seed_from_u64(31);
    let mut worst: f64 = 0.0;
    for trial in 0..500 {
        let a = rock(
            rng.random(),
            rng.random_range(8..40),
            Vector3::new(1.0, 0.7, 0.4),
        )
        .unwrap();
        let b = if trial % 2 == 0 {
            cube(1.0).unwrap()
        } else {
            rock(
                rng.random(),
                rng.random_range(8..40),
                Vector3::new(0.5, 0.8, 0.6),
            )
            .unwrap()
        };
        let t = Vector3::new(
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
            rng.random_range(-1.0..1.0),
        );
        let b = b.transformed(&Isometry3::new(
            t,
            Vector3::new(rng.random(), rng.random(), rng.random()),
        ));
        let ours = chebyshev_centre(&a, &b).unwrap().radius;
        let theirs = radius_by_microlp(&a, &b);
        let err = (ours - theirs).abs();
        assert!(err < 1e-9, "trial {trial}: {ours} vs {theirs}");
        worst = worst.max(err);
    }
    println!("Chebyshev radius vs microlp: 500 pairs, max abs difference {worst:e}");
}
