//! Laws' parameters and materials changed between two steps (`Simulation::set_law_params`,
//! `set_material`; Python's `set_law_params`, `set_material`), checked against closed forms:
//! - a sphere held on a tilted floor by static friction keeps its tangential spring when
//!   the friction changes without reaching the Coulomb limit (the trajectory is bitwise
//!   that of the unchanged run), then slides at `g (sin - mu cos)` once the friction drops
//!   below `tan(theta)`;
//! - a sphere at rest on a floor whose normal stiffness is raised from `k1` to `k2`: the
//!   step of the change books `(k2 - k1) d^2 / 2` as boundary work (to 1e-9), the ledger
//!   then stays closed, and the sphere settles at the new overlap `m g / k2`;
//! - changes are refused, with nothing changed, for a law or material that does not exist,
//!   values out of range, parameters the plugin refuses, a changed interaction distance and
//!   a time step above the new critical step;
//! - a checkpoint taken between a change and the step that refreshes the constants, and
//!   one after it, resume bitwise.

use dem_core::model::changes::MaterialChange;
use dem_core::Simulation;
use dem_verification::flow::round_trip;
use dem_verification::{plugins, sim_from_text};

const G: f64 = 9.81;
const R: f64 = 0.01;
const RHO: f64 = 2500.0;
const KN: f64 = 1e4;
const DT: f64 = 1e-5;

fn mass() -> f64 {
    RHO * 4.0 / 3.0 * std::f64::consts::PI * R.powi(3)
}

/// A sphere of blocked rotation resting on a floor at its equilibrium overlap, with
/// gravity tilted by `theta` about y (so that it pulls along +x).
fn on_floor(theta: f64, mu: f64) -> Simulation {
    let (s, c) = theta.sin_cos();
    let overlap = mass() * G * c / KN;
    let scene = format!(
        r#"Scene(
        materials: {{ "m": (density: {RHO}, young: 1e9, friction: {mu}) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
                params: (kn: {KN}, kt_kn: 1.0, restitution: 0.3))],
        bodies: [
            Sphere(center: (0, 0, {z}), radius: {R}, material: "m", blocked: "XYZ"),
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
        ],
        gravity: ({gx}, 0, {gz}),
        timestep: Fixed({DT}),
        duration: Steps(1000000),
    )"#,
        z = R - overlap,
        gx = G * s,
        gz = -G * c,
    );
    sim_from_text(&scene, "changes.ron").unwrap()
}

fn friction(mu: f64) -> MaterialChange {
    MaterialChange {
        friction: Some(mu),
        ..MaterialChange::default()
    }
}

#[test]
fn friction_changed_keeps_the_tangential_spring_then_the_sphere_slides_at_the_closed_form() {
    let theta = 15f64.to_radians();
    // The spring loads from zero under the whole weight: it overshoots to twice
    // m g sin(theta), below the limit of both 0.8 and 0.6 (0.54 and 0.41 of them).
    let (mut changed, mut kept) = (on_floor(theta, 0.8), on_floor(theta, 0.8));
    changed.run_steps(3000).unwrap();
    kept.run_steps(3000).unwrap();
    changed.set_material(plugins(), "m", friction(0.6)).unwrap();
    assert_eq!(changed.materials[0].friction, 0.6);
    changed.run_steps(3000).unwrap();
    kept.run_steps(3000).unwrap();
    // Reset, the spring would start again from zero and the sphere move on.
    assert_eq!(changed.particles.pos[0], kept.particles.pos[0]);
    assert_eq!(changed.particles.vel[0], kept.particles.vel[0]);
    let moved = (changed.particles.pos[0].x).abs();
    assert!(moved < 1e-5, "held by friction: x = {moved:e} m");

    // Below tan(theta) = 0.268 the sphere slides (it cannot roll).
    let mu = 0.1;
    changed.set_material(plugins(), "m", friction(mu)).unwrap();
    changed.run_steps(1000).unwrap();
    let (mut sums, mut rhs) = (
        nalgebra::Matrix3::<f64>::zeros(),
        nalgebra::Vector3::zeros(),
    );
    for _ in 0..5000 {
        changed.step().unwrap();
        let t = changed.time;
        let basis = nalgebra::Vector3::new(1.0, t, 0.5 * t * t);
        sums += basis * basis.transpose();
        rhs += basis * changed.particles.pos[0].x;
    }
    let a = sums.lu().solve(&rhs).expect("fit")[2];
    let expected = G * (theta.sin() - mu * theta.cos());
    println!("sliding after the change: a = {a:.6} m/s^2, g (sin - mu cos) = {expected:.6}");
    assert!((a - expected).abs() < 1e-4 * expected, "{a} vs {expected}");
    assert_eq!(changed.contacts.active(), 1, "still on the floor");
}

#[test]
fn a_stiffer_law_books_the_stored_energy_it_adds_and_the_sphere_settles_at_the_new_overlap() {
    let mut sim = on_floor(0.0, 0.5);
    sim.run_steps(100).unwrap();
    let m = mass();
    let before = sim.ledger;
    let overlap = -sim.contacts.geometry(0).u.x;
    assert!(
        (overlap - m * G / KN).abs() < 1e-12 * overlap,
        "at rest: {overlap:e}"
    );
    let k2 = 4.0 * KN;
    let params = format!("(kn: {k2}, kt_kn: 1.0, restitution: 0.3)");
    sim.set_law_params(plugins(), 0, &params).unwrap();
    assert_eq!(sim.changes().laws.get(&0), Some(&params));
    sim.step().unwrap();
    // At rest (v(t - dt/2) = 0), the step's law sees the overlap of the step before: the
    // whole change of the total is the new spring's extra energy.
    let jump = 0.5 * (k2 - KN) * overlap * overlap;
    let work = sim.ledger.boundary_work - before.boundary_work;
    println!("booked {work:e} J for (k2 - k1) d^2 / 2 = {jump:e} J");
    assert!((work - jump).abs() < 1e-9 * jump, "{work:e} vs {jump:e}");
    assert!((sim.ledger.elastic - 0.5 * k2 * overlap * overlap).abs() < 1e-9 * jump);
    let total = sim.ledger.total();
    assert!((total - before.total()).abs() < 1e-12 * total.abs());
    // The sphere springs up and settles at the new overlap (restitution 0.3: damped in a
    // few periods of 3.2 ms); the ledger keeps its total meanwhile.
    sim.run_steps(20_000).unwrap();
    let settled = -sim.contacts.geometry(0).u.x;
    let expected = m * G / k2;
    println!("settled overlap {settled:e} m, m g / k2 = {expected:e} m");
    assert!((settled - expected).abs() < 1e-6 * expected);
    let drift = sim.ledger.total() - total;
    assert!(
        drift.abs() < 1e-6 * jump,
        "ledger drift {drift:e} J against {jump:e} J"
    );
    assert!(
        sim.ledger.damping > before.damping,
        "the rebound was damped"
    );
}

#[test]
fn refused_changes_say_why_and_change_nothing() {
    let mut sim = on_floor(0.2, 0.5);
    let mut twin = on_floor(0.2, 0.5);
    sim.run_steps(500).unwrap();
    twin.run_steps(500).unwrap();
    let fails = |r: Result<(), String>, says: &str| {
        let e = r.expect_err(says);
        assert!(e.contains(says), "`{e}` should say `{says}`");
    };
    fails(
        sim.set_law_params(plugins(), 3, "()"),
        "no law 3: the scene has 1",
    );
    fails(
        sim.set_law_params(plugins(), 0, "(kn: 1e4, stiffness: 2)"),
        "stiffness",
    );
    fails(
        sim.set_law_params(plugins(), 0, "(kn: 1e12)"),
        "critical step estimate",
    );
    fails(
        sim.set_material(plugins(), "rubber", friction(0.2)),
        "no material `rubber` (the scene's: m)",
    );
    let poisson = MaterialChange {
        poisson: Some(0.7),
        friction: Some(0.1),
        ..MaterialChange::default()
    };
    fails(
        sim.set_material(plugins(), "m", poisson),
        "poisson must be in (-1, 0.5]",
    );
    fails(
        sim.set_material(plugins(), "m", friction(-1.0)),
        "friction must be",
    );
    assert!(sim.changes().laws.is_empty() && sim.changes().materials.is_empty());
    assert_eq!(sim.materials[0].friction, 0.5);
    sim.run_steps(500).unwrap();
    twin.run_steps(500).unwrap();
    assert_eq!(sim.particles.pos[0], twin.particles.pos[0]);
    assert_eq!(sim.ledger, twin.ledger);
}

#[test]
fn a_law_whose_reach_would_change_is_refused() {
    let scene = r#"Scene(
        materials: { "m": (density: 2500, young: 1e7, poisson: 0.3, friction: 0.5) },
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_JKR", params: (w: 0.01, reach: 2e-6))],
        bodies: [Sphere(center: (0, 0, 0.0099), radius: 0.01, material: "m"),
                 Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m")],
        gravity: (0, 0, -9.81),
        timestep: Critical(0.2),
        duration: Steps(100),
    )"#;
    let mut sim = sim_from_text(scene, "jkr.ron").unwrap();
    sim.run_steps(10).unwrap();
    let e = sim
        .set_law_params(plugins(), 0, "(w: 0.01, reach: 3e-6)")
        .unwrap_err();
    assert!(e.contains("interaction distance"), "{e}");
    // The same reach with another work of adhesion is taken.
    sim.set_law_params(plugins(), 0, "(w: 0.02, reach: 2e-6)")
        .unwrap();
    sim.run_steps(10).unwrap();
}

#[test]
fn checkpoints_keep_the_changes_and_the_pending_refresh() {
    let theta = 0.3;
    let mut whole = on_floor(theta, 0.5);
    let mut parts = on_floor(theta, 0.5);
    for sim in [&mut whole, &mut parts] {
        sim.run_steps(2000).unwrap();
        sim.set_material(plugins(), "m", friction(0.2)).unwrap();
        let params = "(kn: 2e4, kt_kn: 0.5, restitution: 0.4)";
        sim.set_law_params(plugins(), 0, params).unwrap();
    }
    // Saved before the refreshing step, and once after it.
    let mut parts = round_trip(&parts);
    assert_eq!(parts.changes(), whole.changes());
    parts.run_steps(1500).unwrap();
    let mut parts = round_trip(&parts);
    parts.run_steps(1500).unwrap();
    whole.run_steps(3000).unwrap();
    assert_eq!(parts.particles.pos, whole.particles.pos);
    assert_eq!(parts.particles.vel, whole.particles.vel);
    assert_eq!(parts.ledger, whole.ledger);
    assert_eq!(parts.materials[0].friction, 0.2);
    // And it slid: mu = 0.2 is below tan(0.3) = 0.31.
    assert!(whole.particles.pos[0].x > 1e-4);
}
