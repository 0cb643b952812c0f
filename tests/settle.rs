//! After `scenes/settle.ron` has run: the walls carry the weight and the ledger closed.

use dem_core::model::particles::Shape;
use dem_verification::sim_from_file;

#[test]
fn settled_packing_rests_on_the_walls_and_the_ledger_closes() {
    // Run on a pool worker, as `dem run` does: the parallel loops then start without a
    // hand-over from this thread at every step.
    rayon::ThreadPoolBuilder::new()
        .build()
        .unwrap()
        .install(settle);
}

fn settle() {
    let mut sim = sim_from_file("scenes/settle.ron");
    sim.step().unwrap();
    let initial = sim.ledger.total();
    // The load the walls carry, averaged over the last `window` steps: the settled packing
    // still vibrates elastically (its kinetic energy is 1e-5 of the potential drop), so a
    // single step's forces include the particles' accelerations.
    let window = 5000;
    let g = sim.integrator.gravity;
    let walls: Vec<usize> = (0..sim.particles.len())
        .filter(|&i| matches!(sim.particles.shape[i], Shape::Wall(_)))
        .collect();
    let mut load = 0.0;
    while sim.step < sim.end_step {
        sim.step().unwrap();
        if sim.end_step - sim.step < window {
            // Forces on the walls: the particles press them along g.
            load += walls
                .iter()
                .map(|&w| sim.particles.force[w].dot(&g.normalize()))
                .sum::<f64>();
        }
    }
    let along_g = load / window as f64;
    let p = &sim.particles;
    let weight: f64 = (0..p.len())
        .filter(|&i| p.mass[i].is_finite())
        .map(|i| p.mass[i] * g.norm())
        .sum();
    let l = &sim.ledger;
    let drift = (l.total() - initial) / initial;
    println!(
        "settle: {} steps, weight {weight:.6e} N, wall load {along_g:.6e} N (ratio {:.6}), \
         kinetic {:.3e} J, ledger drift {drift:.3e}",
        sim.step,
        along_g / weight,
        l.kinetic + l.rotational
    );
    assert!(
        (along_g / weight - 1.0).abs() < 1e-3,
        "wall load {along_g} vs weight {weight}"
    );
    assert!(drift.abs() < 1e-3, "ledger drift {drift:e}");
}
