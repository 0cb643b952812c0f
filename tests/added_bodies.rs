//! Bodies of every free kind added from outside between steps (`Simulation::add_bodies`,
//! Python's `add_bodies`), written as scene bodies:
//! - a cube and a clump added before the first step move bitwise as the same bodies given
//!   in the scene, with the same ledger but for the inflow they are booked as;
//! - a clump of two touching spheres added in flight brings its closed-form energy
//!   (`m v^2 / 2 + I w^2 / 2 - m g . x`, the union's mass and moments by hand) as inflow,
//!   the ledger's total unchanged, falls on the leap-frog's closed form, lands and rests;
//! - a checkpoint of the grown population resumes bitwise;
//! - what cannot be added is refused, with the reason, and nothing changes.

use dem_verification::flow::round_trip;
use dem_verification::polyhedra::cube;
use dem_verification::sim_from_text;
use nalgebra::{UnitQuaternion, Vector3};

const R: f64 = 0.01;

/// Steel cubes and glass spheres over a floor, with a clump template of two touching
/// spheres of radius R; `bodies` besides the floor and a glass sphere resting on it (so
/// that the run has the functors of spheres). The glass pairs' law has a fixed stiffness
/// (its ledger exact but at onsets), the cubes' an area-scaled one.
fn scene(bodies: &str) -> String {
    format!(
        r#"Scene(
    materials: {{ "steel": (density: 1000, young: 1e9, friction: 0.5),
                  "glass": (density: 2500, young: 1e9, friction: 0.5),
                  "floor": (density: 1000, rigid: true, friction: 0.5) }},
    laws: [(materials: ("glass", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (restitution: 0.5, kt_kn: 0.5)),
           (materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn_per_area: 1e9, restitution: 0.5, kt_kn: 0.5))],
    clump_templates: {{ "pair": (members: [((-{R}, 0, 0), {R}), (({R}, 0, 0), {R})]) }},
    bodies: [{bodies}
        Sphere(center: (0.4, 0, 0.01), radius: 0.01, material: "glass"),
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "floor")],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.1),
    duration: Steps(100000),
)"#
    )
}

fn tilted() -> UnitQuaternion<f64> {
    UnitQuaternion::from_scaled_axis(Vector3::new(0.3, 0.2, 0.1))
}

fn cube_at(x: f64, z: f64) -> String {
    format!(
        "Polyhedron(vertices: {}, material: \"steel\"),",
        cube([x, 0.0, z], 0.04, tilted())
    )
}

#[test]
fn a_cube_and_a_clump_added_before_the_first_step_move_as_the_scene_s_own() {
    let first = cube_at(0.0, 0.036);
    let clump = "Clump(template: \"pair\", position: (0.2, 0, 0.05), rotate: (0.4, 0, 0.3), \
                 material: \"glass\", velocity: (-0.3, 0, 0), angular_velocity: (0, 2, 0)),";
    let second = cube_at(-0.2, 0.05);
    let mut given = sim_from_text(&scene(&format!("{first}{second}{clump}")), "all.ron").unwrap();
    let mut added = sim_from_text(&scene(&first), "one.ron").unwrap();
    let ids = added.add_bodies(&format!("[{second}{clump}]")).unwrap();
    // After the cube (0), the scene's sphere (1) and floor (2): the cube and the members.
    assert_eq!(ids, vec![3, 4, 5]);
    assert_eq!(added.dt(), given.dt());
    added.run_steps(40_000).unwrap();
    given.run_steps(40_000).unwrap();
    // The scene's sphere and floor are its last bodies: ids 4 and 5 in `given`.
    for (a, g) in [(0, 0), (1, 4), (2, 5), (3, 1), (4, 2), (5, 3)] {
        let (ia, ig) = (added.order.index(a), given.order.index(g));
        assert_eq!(added.particles.pos[ia], given.particles.pos[ig]);
        assert_eq!(added.particles.ori[ia], given.particles.ori[ig]);
    }
    assert!(
        given.ledger.damping > 0.0,
        "the bodies landed (and bounced)"
    );
    // The same ledger, but for what the added bodies brought, booked as inflow.
    let (a, g) = (added.ledger, given.ledger);
    assert_eq!(
        (a.kinetic, a.potential, a.elastic),
        (g.kinetic, g.potential, g.elastic)
    );
    assert_eq!((a.friction, a.damping), (g.friction, g.damping));
    assert!(g.inflow == 0.0 && a.inflow != 0.0);
}

#[test]
fn a_clump_added_in_flight_brings_its_energy_falls_and_lands() {
    let mut sim = sim_from_text(&scene(""), "clump.ron").unwrap();
    sim.run_steps(500).unwrap();
    let before = sim.ledger;
    let (z0, vz, w) = (0.05, 0.2, 3.0);
    let ids = sim
        .add_bodies(&format!(
            "[Clump(template: \"pair\", position: (0, 0, {z0}), material: \"glass\",
                    velocity: (0, 0, {vz}), angular_velocity: (0, 0, {w}))]"
        ))
        .unwrap();
    assert_eq!(ids.len(), 2);
    // Two touching spheres: mass 2 m1; about the axis through the centres 2 (2/5 m1 r^2),
    // about z 2 (2/5 m1 r^2 + m1 r^2).
    let m1 = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * R.powi(3);
    let (m, iz) = (2.0 * m1, 2.0 * (0.4 + 1.0) * m1 * R * R);
    let c = &sim.clumps[0];
    assert!((c.mass - m).abs() < 1e-12 * m);
    let expected = 0.5 * m * vz * vz + 0.5 * iz * w * w + m * 9.81 * z0;
    let inflow = sim.ledger.inflow - before.inflow;
    println!("inflow {inflow:e} J, closed form {expected:e} J");
    assert!(
        (inflow - expected).abs() < 1e-9 * expected,
        "{inflow} vs {expected}"
    );
    let total = sim.ledger.total();
    assert!((total - before.total()).abs() < 1e-12 * expected);
    // Free flight: z_n = z_0 + v dt n - g dt^2 n (n + 1) / 2 (v at t - dt/2).
    let dt = sim.dt();
    let n = 1000;
    sim.run_steps(n).unwrap();
    let nf = n as f64;
    let z = z0 + vz * dt * nf - 9.81 * dt * dt * nf * (nf + 1.0) / 2.0;
    let c = &sim.clumps[0];
    assert!((c.pos.z - z).abs() < 1e-12, "z {} vs {z}", c.pos.z);
    assert!((c.angvel.z - w).abs() < 1e-12 * w, "spin kept in flight");
    // It lands and comes to rest on the floor.
    sim.run_steps((0.5 / dt) as u64).unwrap();
    let c = &sim.clumps[0];
    assert!(
        c.pos.z < R * 1.01 && c.vel.norm() < 1e-3,
        "at rest: {} {}",
        c.pos.z,
        c.vel
    );
}

#[test]
fn a_grown_population_resumes_bitwise() {
    let mut whole = sim_from_text(&scene(&cube_at(0.0, 0.05)), "grow.ron").unwrap();
    let clump = "Clump(template: \"pair\", position: (0.2, 0, 0.1), rotate: (0, 0, 0.5), \
                 material: \"glass\")";
    whole.run_steps(300).unwrap();
    whole
        .add_bodies(&format!("[{} {clump}]", cube_at(-0.2, 0.1)))
        .unwrap();
    let mut parts = round_trip(&whole);
    whole.run_steps(3000).unwrap();
    parts.run_steps(1000).unwrap();
    let mut parts = round_trip(&parts);
    parts.run_steps(2000).unwrap();
    assert_eq!(parts.particles.pos, whole.particles.pos);
    assert_eq!(parts.particles.ori, whole.particles.ori);
    assert_eq!(parts.ledger, whole.ledger);
}

#[test]
fn what_cannot_be_added_is_refused_and_nothing_changes() {
    let mut sim = sim_from_text(&scene(&cube_at(0.0, 0.05)), "refused.ron").unwrap();
    sim.run_steps(100).unwrap();
    let n = sim.particles.len();
    let fails = |sim: &mut dem_core::Simulation, text: &str, says: &str| {
        let e = sim.add_bodies(text).expect_err(says);
        assert!(e.contains(says), "`{e}` should say `{says}`");
    };
    fails(
        &mut sim,
        "[Wall(point: (0, 0, 1), normal: (0, 0, -1), material: \"steel\")]",
        "bodies[0]: walls, boxes and meshes are chosen when the run is built",
    );
    fails(
        &mut sim,
        "[Sphere(center: (0.5, 0, 0.5), radius: 0.01, material: \"glass\", blocked: \"z\")]",
        "no blocked degrees of freedom",
    );
    fails(
        &mut sim,
        "[Sphere(center: (0.5, 0, 0.5), radius: 0.01, material: \"wood\")]",
        "unknown material `wood`",
    );
    fails(
        &mut sim,
        "[Sphere(center: (0.5, 0, 0.5), radius: 0.01, material: \"floor\")]",
        "material `floor` is rigid",
    );
    fails(
        &mut sim,
        "[Sphere(center: (0.5, 0, 0.5), radus: 0.01, material: \"glass\")]",
        "(added bodies):1:",
    );
    // Inside the cube's bounding sphere, and through the floor.
    fails(
        &mut sim,
        "[Sphere(center: (0.0, 0, 0.09), radius: 0.01, material: \"glass\")]",
        "added body 0 overlaps particle 0",
    );
    fails(
        &mut sim,
        "[Sphere(center: (0.5, 0, 0.005), radius: 0.01, material: \"glass\")]",
        "overlaps particle 2",
    );
    fails(
        &mut sim,
        "[Sphere(center: (0.5, 0, 0.5), radius: 0.01, material: \"glass\"),
          Sphere(center: (0.5, 0, 0.51), radius: 0.01, material: \"glass\")]",
        "added body 1 overlaps added body 0",
    );
    fails(
        &mut sim,
        "[Sphere(center: (0.5, 0, 0.5), radius: 1e-5, material: \"glass\")]",
        "critical step estimate",
    );
    assert_eq!(sim.particles.len(), n);
    // A scene of spheres alone has no functor for polyhedra.
    let mut spheres = sim_from_text(&scene(""), "spheres.ron").unwrap();
    fails(
        &mut spheres,
        &format!("[{}]", cube_at(0.0, 0.2)),
        "no geometry functor for",
    );
}
