//! Morton reordering of particle storage (`contacts.reorder`): it brings the particles of a
//! contact close in storage, changes the trajectories only in the last bits (the order of
//! force summation), and keeps scene ids in the outputs.

use dem_core::Simulation;
use dem_verification::{dem_run, root, sim_from_text};

/// 800 spheres placed at random (so storage order has nothing to do with space) pressed
/// into a box by a strong gravity; `{reorder}` and `{steps}` are filled in.
const SCENE: &str = r#"Scene(
    materials: { "m": (density: 2500, young: 1e7, friction: 0.4) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    bodies: [
        RandomFill(min: (0, 0, 0), max: (0.024, 0.024, 0.024), count: 800, radius: Const(0.001),
                   material: "m", seed: 11),
        Box(min: (0, 0, 0), max: (0.024, 0.024, 0.05), material: "m"),
    ],
    gravity: (0, 0, -1000),
    timestep: Critical(0.2),
    duration: Steps({steps}),
    contacts: (reorder: {reorder}),
    output: (every: {steps}),
)"#;

const STEPS: u64 = 1500;

fn scene(reorder: u64) -> String {
    SCENE
        .replace("{reorder}", &reorder.to_string())
        .replace("{steps}", &STEPS.to_string())
}

fn run(reorder: u64) -> Simulation {
    let mut sim = sim_from_text(&scene(reorder), "reorder.ron").unwrap();
    sim.run_steps(STEPS).unwrap();
    sim
}

/// Mean distance in storage between the two spheres of a live contact.
fn spread(sim: &Simulation) -> f64 {
    let pairs: Vec<f64> = sim
        .contacts
        .live()
        .filter(|c| {
            sim.particles.shape[c.a as usize]
                .bounding_radius()
                .is_some()
        })
        .filter(|c| {
            sim.particles.shape[c.b as usize]
                .bounding_radius()
                .is_some()
        })
        .map(|c| f64::from(c.b - c.a))
        .collect();
    assert!(pairs.len() > 400, "only {} sphere contacts", pairs.len());
    pairs.iter().sum::<f64>() / pairs.len() as f64
}

#[test]
fn reordering_brings_contacts_together_and_changes_only_the_last_bits() {
    let plain = run(0);
    let sorted = run(500);
    assert!(plain.order.ids().is_empty() && plain.order.last.is_none());
    // Reordered at the first rebuild, then at the first rebuild 500 steps later or more.
    let last = sorted.order.last.expect("reordered");
    assert!(
        (500..STEPS).contains(&last),
        "last reordered at step {last}"
    );
    let ids = sorted.order.ids();
    assert_eq!(ids.len(), plain.particles.len());
    // The walls (after the spheres) keep their places.
    assert!(ids[800..]
        .iter()
        .enumerate()
        .all(|(k, &id)| id as usize == 800 + k));

    let (before, after) = (spread(&plain), spread(&sorted));
    println!("mean storage distance of a contact's spheres: {before:.1} -> {after:.1}");
    // Random order puts them a third of the spheres apart on average; along a Z-curve
    // through n cells, neighbours in space are of the order of n^(2/3) apart (the pairs
    // across the curve's largest steps), most of them much closer.
    assert!(before > 800.0 / 4.0, "{before}");
    assert!(after < 800f64.powf(2.0 / 3.0), "{before} -> {after}");

    // The same physics: each scene particle ends where it ends unsorted, up to the
    // rounding of force sums in another order, amplified by the collisions.
    let mut worst: f64 = 0.0;
    for id in 0..plain.particles.len() {
        let i = sorted.order.index(id);
        assert_eq!(sorted.order.id(i), id);
        let (a, b) = (&plain.particles, &sorted.particles);
        assert_eq!(a.shape[id], b.shape[i]);
        worst = worst.max((a.pos[id] - b.pos[i]).norm());
    }
    println!("largest position difference: {worst:e} m");
    assert!(
        worst > 0.0,
        "reordering changed no bit: was anything summed in another order?"
    );
    assert!(worst < 1e-9, "{worst} m, for spheres of 1 mm");
    assert_eq!(plain.contacts.active(), sorted.contacts.active());
    let (ea, eb) = (plain.ledger.row(), sorted.ledger.row());
    for (x, y) in ea.iter().zip(&eb) {
        assert!(
            (x - y).abs() <= 1e-9 * x.abs().max(1e-12),
            "{ea:?} against {eb:?}"
        );
    }
}

/// `particles.csv` lists the particles in scene order with their scene ids, whatever the
/// storage order.
#[test]
fn outputs_keep_scene_order() {
    let dir = root().join("target/test-output/reorder");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scene.ron");
    std::fs::write(&path, scene(500)).unwrap();
    dem_run(&path, &dir.join("out"));

    let sim = run(500);
    assert!(!sim.order.ids().is_empty());
    let csv = std::fs::read_to_string(dir.join("out/particles.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), sim.particles.len());
    for (id, row) in rows.iter().enumerate() {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f[0], id.to_string());
        let x = sim.particles.pos[sim.order.index(id)];
        let read: Vec<f64> = f[2..5].iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(read, vec![x.x, x.y, x.z], "particle {id}");
    }
}

/// Sphere 0 rests on the floor (wall 2) at x = 0.2 m; sphere 1 hangs at x = 0, where the
/// Morton order puts it first: storage holds 1, 0, 2.
fn two_spheres(law: &str, params: &str) -> Simulation {
    let text = format!(
        r#"Scene(
    materials: {{ "m": (density: 1000, young: 1e6, friction: 0.3) }},
    laws: [(materials: ("*", "*"), law: "{law}", params: {params})],
    bodies: [
        Sphere(center: (0.2, 0, 0.0095), radius: 0.01, material: "m"),
        Sphere(center: (0, 0, 0.1), radius: 0.01, material: "m"),
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Fixed(1e-5),
    duration: Steps(10),
)"#
    );
    sim_from_text(&text, "errors.ron").unwrap()
}

#[test]
fn errors_name_scene_ids() {
    let mut sim = two_spheres("Law2_Test_Faulty", r#"(fault: "panic")"#);
    let e = sim.run_steps(1).expect_err("the law fails").to_string();
    assert_eq!(sim.order.ids(), &[1, 0, 2], "storage was reordered");
    assert!(e.contains("contact 0-2"), "{e}");

    let mut sim = two_spheres("Law2_L6Geom_LinearElPl", "()");
    sim.run_steps(3).unwrap();
    assert_eq!(sim.order.ids(), &[1, 0, 2]);
    // Drive the velocity of sphere 1 (in the air, stored first) past the largest float
    // during step 3.
    sim.particles.vel[sim.order.index(1)].x = f64::MAX;
    sim.integrator.gravity = nalgebra::Vector3::new(f64::MAX, 0.0, 0.0);
    let e = sim.run_steps(1).expect_err("overflow").to_string();
    assert!(
        e.starts_with("step 3: non-finite state of particle 1: "),
        "{e}"
    );
}
