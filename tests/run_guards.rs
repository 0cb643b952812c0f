//! Runs whose results would be meaningless stop with the step and the particle named:
//! non-finite energies, energy created by an unstable time step; scenes that would
//! blow up from the start (a sphere behind a one-sided wall or outside its box, an
//! inverted box, a sphere inside a thick facet) are refused at load with the body and the
//! field; and scenes that would crawl (a skin of a million radii, a boulder setting the
//! skin of every grain) are refused or not slowed.

use dem_core::engines::guards::GROWTH_FACTOR;
use dem_core::DemError;
use dem_verification::mesh::write_obj;
use dem_verification::sim_from_text;

/// A sphere of 1 cm (4.2 g) above a one-sided floor; the body text, gravity and time step
/// are filled in.
fn scene(body: &str, gravity: &str, timestep: &str) -> String {
    format!(
        r#"Scene(
    materials: {{ "m": (density: 1000, young: 1e6, friction: 0.3) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.9))],
    bodies: [
        {body},
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
    ],
    gravity: {gravity},
    timestep: {timestep},
    duration: Steps(100000),
)"#
    )
}

const SPHERE: &str = r#"Sphere(center: (0, 0, 0.0099), radius: 0.01, material: "m")"#;

fn run_error(text: &str, steps: u64) -> DemError {
    let mut sim = sim_from_text(text, "guard.ron").unwrap();
    sim.run_steps(steps).expect_err("the run stops")
}

fn load_error(text: &str) -> String {
    match sim_from_text(text, "guard.ron") {
        Ok(_) => panic!("expected the scene to be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn non_finite_energy_stops_the_run_naming_particle_and_step() {
    // Values out of any physical range (a velocity of 1e300 m/s, a height of 1e308 m,
    // gravity of 1e308 m/s^2) are refused at load now (bad_input.rs); a state that grows
    // beyond the largest float during a run is what the guard is for. Such states are set
    // here between steps, as an instability would leave them: each finite in itself,
    // their energies not.
    let set: [fn(&mut dem_core::Simulation); 2] = [
        |sim| sim.particles.vel[0].x = 1e300,
        |sim| sim.particles.pos[0].z = 1e308,
    ];
    for (k, f) in set.iter().enumerate() {
        let text = scene(SPHERE, "(0, 0, -9.81)", "Fixed(1e-5)");
        let mut sim = sim_from_text(&text, "guard.ron").unwrap();
        sim.run_steps(1).unwrap();
        f(&mut sim);
        let e = sim.run_steps(5).expect_err("the run stops").to_string();
        assert!(
            e.contains("non-finite state of particle 0") && e.contains("energy"),
            "case {k}: {e}"
        );
        assert!(
            e.starts_with("step 1: ") || e.starts_with("step 2: "),
            "{e}"
        );
    }
}

/// Critical time step of the sphere on the floor: sqrt(m / k) with the linear law's
/// normal stiffness against a wall, k = 2 E r (law-linear: kn = 2 E r1 r2 / (r1 + r2),
/// r2 infinite).
fn critical() -> f64 {
    let m = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-6;
    (m / (2.0 * 1e6 * 0.01)).sqrt()
}

#[test]
fn energy_growth_stops_an_unstable_run() {
    for factor in [10.0, 1000.0, 1e5] {
        let dt = factor * critical();
        let text = scene(SPHERE, "(0, 0, -9.81)", &format!("Fixed({dt:e})"));
        let sim = sim_from_text(&text, "guard.ron").unwrap();
        assert!((sim.critical_dt - critical()).abs() < 1e-9 * critical());
        let e = run_error(&text, 10_000);
        let message = e.to_string();
        assert!(
            matches!(e, DemError::EnergyGrowth { particle: 0, .. })
                && message.contains(&format!("more than {GROWTH_FACTOR} times")),
            "dt = {factor} x critical: {message}"
        );
    }
}

#[test]
fn a_stable_run_is_not_stopped() {
    // The same sphere bouncing at half the critical step: energy conserved to round-off
    // (restitution 0.9 dissipates, which the ledger books), no guard fires.
    let body = SPHERE.replace("0.0099", "0.05");
    let text = scene(
        &body,
        "(0, 0, -9.81)",
        &format!("Fixed({:e})", 0.5 * critical()),
    );
    let mut sim = sim_from_text(&text, "guard.ron").unwrap();
    sim.run_steps(20_000).unwrap();
    assert!(sim.ledger.damping > 0.0, "it bounced");
}

#[test]
fn spheres_behind_one_sided_walls_are_refused_at_load() {
    let below = SPHERE.replace("0.0099", "-0.02");
    let e = load_error(&scene(&below, "(0, 0, -9.81)", "Fixed(1e-5)"));
    assert!(
        e.contains("guard.ron: bodies[0]: starts with its centre [0, 0, -0.02] m behind the one-sided Wall bodies[1]"),
        "{e}"
    );
    // Outside its box: the fifth sphere of a lattice pokes out through x = max.
    let boxed = r#"Scene(
    materials: { "m": (density: 1000, young: 1e6) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
    bodies: [
        Lattice(origin: (0.01, 0.01, 0.01), count: (5, 1, 1), spacing: 0.02, radius: 0.005,
                material: "m"),
        Box(min: (0, 0, 0), max: (0.08, 0.1, 0.1), material: "m"),
    ],
    timestep: Critical(0.1),
    duration: Steps(10),
)"#;
    let e = load_error(boxed);
    assert!(
        e.contains("bodies[0] (its particle 4): starts with its centre [0.09, 0.01, 0.01] m behind the x = max face of the Box bodies[1]"),
        "{e}"
    );
    // An inverted box.
    let e = load_error(&boxed.replace("max: (0.08, 0.1, 0.1)", "max: (0.1, -0.1, 0.1)"));
    assert!(
        e.contains("bodies[1]: Box max must exceed min on every axis; on y min is 0 and max -0.1"),
        "{e}"
    );
    // In front of the wall, overlapping it by less than the radius: a contact, accepted.
    sim_from_text(&scene(SPHERE, "(0, 0, -9.81)", "Fixed(1e-5)"), "guard.ron").unwrap();
}

#[test]
fn spheres_inside_a_thick_facet_are_refused_at_load() {
    // A 20 cm square plate at z = 0, 1 cm spheres 5 cm above it.
    let plate = write_obj(
        "guard_plate",
        &[
            [-0.1, -0.1, 0.0],
            [0.1, -0.1, 0.0],
            [0.1, 0.1, 0.0],
            [-0.1, 0.1, 0.0],
        ],
        &[[0, 1, 2], [0, 2, 3]],
    );
    let text = |halfthick: &str| {
        format!(
            r#"Scene(
    materials: {{ "m": (density: 1000, young: 1e6) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
    bodies: [
        Lattice(origin: (-0.05, -0.05, 0.05), count: (3, 3, 1), spacing: 0.05, radius: 0.01,
                material: "m"),
        Mesh(file: "{}", material: "m", halfthick: {halfthick}),
    ],
    timestep: Critical(0.1),
    duration: Steps(10),
)"#,
            plate.display()
        )
    };
    // Thicker than the gap (a halfthick of 1 m and of 1e308 m swallowed a hopper's
    // spheres; 1e308 also exhausted the memory of the broad phase).
    for h in ["0.06", "1", "1e308"] {
        let e = load_error(&text(h));
        assert!(
            e.contains("bodies[0] (its particle 0): starts with its centre [-0.05, -0.05, 0.05] m inside triangle")
                && e.contains("of the Mesh bodies[1]: 5e-2 m from the triangle, within bodies[1].halfthick"),
            "{e}"
        );
    }
    // Thinner than the gap: accepted.
    let mut sim = sim_from_text(&text("0.002"), "guard.ron").unwrap();
    sim.run_steps(10).unwrap();
}

#[test]
fn a_skin_of_more_than_ten_radii_is_refused() {
    let text = scene(SPHERE, "(0, 0, -9.81)", "Fixed(1e-5)")
        .replace("duration:", "contacts: (skin: 1e6), duration:");
    let e = load_error(&text);
    assert!(
        e.contains("contacts.skin: 1000000 is more than 10 radii"),
        "{e}"
    );
    sim_from_text(&text.replace("1e6", "10"), "guard.ron").unwrap();
}

#[test]
fn a_boulder_does_not_make_every_pair_of_grains_a_candidate() {
    // 1,000 spheres of 1 cm on a 3 cm lattice above a boulder of radius 1 km whose top is
    // 1 cm below the lowest layer.
    let text = r#"Scene(
    materials: { "m": (density: 1000, young: 1e6) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
    bodies: [
        Lattice(origin: (0, 0, 0.03), count: (10, 10, 10), spacing: 0.03, radius: 0.01,
                material: "m"),
        Sphere(center: (0.15, 0.15, -1000.0), radius: 1000.0, material: "m"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Fixed(1e-5),
    duration: Steps(10),
)"#;
    let mut sim = sim_from_text(text, "guard.ron").unwrap();
    sim.run_steps(1).unwrap();
    let pairs = sim.verlet.pairs.len();
    // The skin is 0.2 of a grain's radius, not of the boulder's (200 m, every pair of the
    // 1,001 spheres: 500,500): each grain pairs with its lattice neighbours at most, the
    // bottom layer with the boulder.
    assert!(pairs <= 3 * 1000 + 100, "{pairs} candidate pairs");
}

#[test]
fn a_huge_velocity_spread_is_refused_not_a_panic() {
    let lattice = r#"Lattice(origin: (0, 0, 0.05), count: (2, 2, 2), spacing: 0.03, radius: 0.01,
                material: "m", velocity_spread: 1e308)"#;
    // Refused at load: a velocity of that size is out of range (velocity_spread was
    // refused only from half the largest float, and 8e307 then stopped the run at once).
    for spread in ["1e308", "8e307", "1e13"] {
        let e = load_error(&scene(
            &lattice.replace("1e308", spread),
            "(0, 0, -9.81)",
            "Fixed(1e-5)",
        ));
        assert!(
            e.contains("bodies[0]: every coordinate and velocity must be finite and at most"),
            "{spread}: {e}"
        );
    }
}

#[test]
fn a_rocks_box_wider_than_f64_is_refused_not_a_panic() {
    // Corners of +-1.7e308: each is finite, their distance is not (it panicked in the
    // random number generator; RandomFill's check is in bad_input.rs).
    let rocks = r#"Rocks(min: (-1, -1, -1.7e308), max: (1, 1, 1.7e308), count: 3,
                size: (0.01, 0.01), points: 20, material: "m", seed: 1)"#;
    let e = load_error(&scene(rocks, "(0, 0, -9.81)", "Fixed(1e-5)"));
    assert!(
        e.contains("bodies[0]: every coordinate and velocity must be finite and at most"),
        "{e}"
    );
}
