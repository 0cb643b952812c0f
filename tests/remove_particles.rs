//! Particles removed from outside between steps (`Simulation::remove_particles`, Python's
//! `remove_particles`): the others keep their ids and state, the ledger's total stays
//! (their energy and their contacts' elastic energy leave as `outflow`), the run goes on
//! and resumes bitwise from a checkpoint; bad ids are refused with nothing removed.

use dem_verification::flow::round_trip;
use dem_verification::{boxed_sample, sim_from_text};
use std::collections::BTreeMap;

/// Position of each stored particle by scene id.
fn by_id(sim: &dem_core::Simulation) -> BTreeMap<usize, [f64; 3]> {
    sim.order
        .by_id(sim.particles.len())
        .into_iter()
        .map(|(id, i)| (id, sim.particles.pos[i].into()))
        .collect()
}

#[test]
fn removed_particles_leave_with_their_energy_and_the_rest_goes_on() {
    let text = boxed_sample(0.01, 0.02, 0.2);
    let mut sim = sim_from_text(&text, "remove.ron").unwrap();
    sim.run_steps(20_000).unwrap();
    let contacts = sim.contacts.active();
    assert!(contacts > 40, "a packing with contacts ({contacts})");
    let before = by_id(&sim);
    let total = sim.ledger.total();
    // Scene ids 6.. are the lattice's spheres (the box's 6 walls first).
    let gone = [6u64, 17, 30, 69];
    let carried = sim.remove_particles(&gone).unwrap();
    assert_eq!(sim.particles.len(), 70 - 4);
    let after = by_id(&sim);
    for id in &gone {
        assert!(!after.contains_key(&(*id as usize)));
    }
    for (id, x) in &after {
        assert_eq!(before[id], *x, "particle {id} moved or was renamed");
    }
    // The total stays: what they held is now outflow.
    assert!((sim.ledger.total() - total).abs() <= 1e-15 * sim.ledger.potential.abs());
    assert!((sim.ledger.outflow - carried).abs() <= 1e-15 * carried.abs());
    assert!(sim.contacts.live().all(|c| {
        let ids = [sim.order.id(c.a as usize), sim.order.id(c.b as usize)];
        ids.iter().all(|id| !gone.contains(&(*id as u64)))
    }));
    // It goes on, and the ledger keeps balancing: over the next steps it drifts no
    // more than the same run's without the removal (the leap-frog ledger's own drift
    // with damping and contacts), plus the share error of the removed energy.
    let drift = |sim: &mut dem_core::Simulation| {
        let t = sim.ledger.total();
        sim.run_steps(3000).unwrap();
        (sim.ledger.total() - t).abs()
    };
    let removed = drift(&mut sim);
    let mut control = sim_from_text(&text, "remove.ron").unwrap();
    control.run_steps(20_000).unwrap();
    let kept = drift(&mut control);
    eprintln!("drift with removal {removed:e} J, without {kept:e} J, carried {carried:e} J");
    assert!(
        removed < 2.0 * kept + 1e-3 * carried.abs(),
        "{removed:e} vs {kept:e}"
    );
}

#[test]
fn a_removal_survives_a_checkpoint_bitwise() {
    let text = boxed_sample(0.01, 0.02, 0.2);
    let mut whole = sim_from_text(&text, "remove.ron").unwrap();
    whole.run_steps(2000).unwrap();
    whole.remove_particles(&[8, 9, 50]).unwrap();
    whole.run_steps(1500).unwrap();
    let mut parts = sim_from_text(&text, "remove.ron").unwrap();
    parts.run_steps(2000).unwrap();
    parts.remove_particles(&[8, 9, 50]).unwrap();
    parts.run_steps(500).unwrap();
    let mut parts = round_trip(&parts);
    parts.run_steps(1000).unwrap();
    assert_eq!(by_id(&whole), by_id(&parts));
    assert_eq!(whole.ledger, parts.ledger);
}

#[test]
fn bad_removals_are_refused_with_nothing_removed() {
    let text = boxed_sample(0.01, 0.02, 0.2);
    let mut sim = sim_from_text(&text, "remove.ron").unwrap();
    sim.run_steps(10).unwrap();
    let e = sim.remove_particles(&[7, 700]).unwrap_err();
    assert!(
        e.contains("particle 700") && e.contains("no such particle"),
        "{e}"
    );
    let e = sim.remove_particles(&[7, 7]).unwrap_err();
    assert!(e.contains("particle 7 is given twice"), "{e}");
    assert_eq!(sim.particles.len(), 70, "nothing removed");
    sim.remove_particles(&[7]).unwrap();
    let e = sim.remove_particles(&[7]).unwrap_err();
    assert!(
        e.contains("particle 7") && e.contains("no such particle"),
        "{e}"
    );
}
