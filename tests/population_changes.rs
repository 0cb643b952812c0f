//! The population changed from outside between steps (`Simulation::remove_particles` and
//! `add_spheres`, Python's `remove_particles` and `add_spheres`): removed particles leave
//! with their energy (`outflow`) and the others keep their ids and state; added spheres
//! bring theirs (`inflow`) and move as the scene's would; the run resumes bitwise from a
//! checkpoint; bad requests are refused with nothing changed.

use dem_core::step::simulation::population::NewSphere;
use dem_verification::flow::round_trip;
use dem_verification::{boxed_sample, sim_from_text};
use nalgebra::Vector3;
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
fn a_changed_population_survives_a_checkpoint_bitwise() {
    let text = boxed_sample(0.01, 0.02, 0.2);
    let mut whole = sim_from_text(&text, "remove.ron").unwrap();
    whole.run_steps(2000).unwrap();
    whole.remove_particles(&[8, 9, 50]).unwrap();
    let added = [new_sphere([0.005, 0.005, 0.015], 1e-3, [0.0, 0.1, 0.0])];
    whole.add_spheres(&added).unwrap();
    whole.run_steps(1500).unwrap();
    let mut parts = sim_from_text(&text, "remove.ron").unwrap();
    parts.run_steps(2000).unwrap();
    parts.remove_particles(&[8, 9, 50]).unwrap();
    parts.add_spheres(&added).unwrap();
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

fn new_sphere(center: [f64; 3], radius: f64, velocity: [f64; 3]) -> NewSphere {
    NewSphere {
        center: Vector3::from(center),
        radius,
        material: "m".into(),
        velocity: Vector3::from(velocity),
        angular_velocity: Vector3::new(0.0, 0.0, 30.0),
    }
}

#[test]
fn an_added_sphere_falls_as_a_scene_sphere_and_brings_its_energy() {
    let text = boxed_sample(0.01, 0.02, 0.2);
    let mut sim = sim_from_text(&text, "add.ron").unwrap();
    sim.run_steps(2000).unwrap();
    let total = sim.ledger.total();
    let (z0, vz) = (0.015, 0.1);
    let ids = sim
        .add_spheres(&[new_sphere([0.005, 0.005, z0], 1e-3, [0.0, 0.0, vz])])
        .unwrap();
    assert_eq!(ids, [70]);
    let scale = sim.ledger.potential.abs() + sim.ledger.inflow.abs();
    assert!((sim.ledger.total() - total).abs() <= 1e-14 * scale);
    // Its mass and inertia are a scene sphere's (its motion is compared with a scene
    // sphere's in the next test).
    let i = sim.particles.len() - 1;
    let (m, j) = (sim.particles.mass[i], sim.particles.inertia[i].x);
    let r: f64 = 1e-3;
    let mass = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    assert_eq!(m, mass);
    assert_eq!(j, 0.4 * mass * r * r);
    let carried_in = 0.5 * m * vz * vz + 0.5 * j * 900.0 + m * 9.81 * z0;
    assert!((sim.ledger.inflow - carried_in).abs() <= 1e-15 * carried_in);
    // The ledger balances across the insertion: over the next steps its total drifts as
    // the same run's without it, plus the share error of order m |v| g dt.
    let drift = |sim: &mut dem_core::Simulation| {
        let t = sim.ledger.total();
        sim.run_steps(1000).unwrap();
        sim.ledger.total() - t
    };
    let added = drift(&mut sim);
    assert!(sim.particles.pos[i].z > z0, "it rose first");
    let mut control = sim_from_text(&text, "add.ron").unwrap();
    control.run_steps(2000).unwrap();
    let kept = drift(&mut control);
    let share = m * vz * 9.81 * sim.dt();
    eprintln!("drift with the sphere {added:e} J, without {kept:e} J, share bound {share:e} J");
    assert!((added - kept).abs() < share, "{added:e} vs {kept:e}");
}

#[test]
fn an_added_sphere_moves_as_the_same_sphere_in_the_scene() {
    // A scene with a sphere, and the same scene without it plus the sphere added at
    // step 0: the same run, bitwise (a far sphere in both: a scene needs one).
    let scene = |bodies: &str| {
        format!(
            r#"Scene(
            materials: {{ "m": (density: 2500, young: 1e7) }},
            laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
            bodies: [Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
                     Sphere(center: (1, 1, 1), radius: 0.002, material: "m"){bodies}],
            gravity: (0, 0, -9.81),
            timestep: Fixed(1e-5),
            duration: Steps(100000),
        )"#
        )
    };
    let mut whole = sim_from_text(
        &scene(", Sphere(center: (0, 0, 0.01), radius: 0.002, material: \"m\", velocity: (0.1, 0, 0), angular_velocity: (0, 0, 30))"),
        "a.ron",
    )
    .unwrap();
    let mut added = sim_from_text(&scene(""), "b.ron").unwrap();
    added
        .add_spheres(&[new_sphere([0.0, 0.0, 0.01], 0.002, [0.1, 0.0, 0.0])])
        .unwrap();
    whole.run_steps(20_000).unwrap();
    added.run_steps(20_000).unwrap();
    assert_eq!(whole.particles.pos[2], added.particles.pos[2]);
    assert_eq!(whole.particles.vel[2], added.particles.vel[2]);
    assert_eq!(whole.particles.angvel[2], added.particles.angvel[2]);
    assert_eq!(whole.contacts.active(), added.contacts.active());
    assert!(whole.verlet.rebuilds > 1, "it fell through the skin");
}

#[test]
fn bad_additions_are_refused_with_nothing_added() {
    let text = boxed_sample(0.01, 0.02, 0.2);
    let mut sim = sim_from_text(&text, "add.ron").unwrap();
    let ok = new_sphere([0.005, 0.005, 0.015], 1e-3, [0.0; 3]);
    let mut bad = ok.clone();
    bad.material = "steel".into();
    let e = sim.add_spheres(&[ok.clone(), bad]).unwrap_err();
    assert!(
        e.contains("sphere 1") && e.contains("no material `steel`"),
        "{e}"
    );
    let e = sim
        .add_spheres(&[new_sphere([0.0012, 0.0012, 0.0011], 1e-3, [0.0; 3])])
        .unwrap_err();
    assert!(e.contains("sphere 0 overlaps particle"), "{e}");
    // Above the box's lid (z = 0.02), on the wrong side of that wall.
    let e = sim
        .add_spheres(&[new_sphere([0.005, 0.005, 0.05], 1e-3, [0.0; 3])])
        .unwrap_err();
    assert!(e.contains("sphere 0 overlaps particle"), "{e}");
    let e = sim.add_spheres(&[ok.clone(), ok.clone()]).unwrap_err();
    assert!(e.contains("sphere 1 overlaps sphere 0"), "{e}");
    let e = sim
        .add_spheres(&[new_sphere([0.005, 0.005, 0.015], f64::NAN, [0.0; 3])])
        .unwrap_err();
    assert!(e.contains("sphere 0: radius"), "{e}");
    assert_eq!(sim.particles.len(), 70, "nothing added");
}
