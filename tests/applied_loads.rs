//! Loads applied from outside (`Simulation::set_load`, Python's `set_applied_forces`):
//! a free body follows the leap-frog's closed-form trajectory under a constant force and
//! torque with the ledger closed to round-off; a sphere pushed along a floor rolls at
//! 5F/7m below the slip threshold and slides at (F - mu m g)/m above it; loads survive a
//! checkpoint bitwise; bad loads are refused with the particle named.

use dem_core::engines::applied::Load;
use dem_verification::flow::round_trip;
use dem_verification::sim_from_text;
use nalgebra::Vector3;

fn free_sphere(dt: f64) -> String {
    format!(
        r#"Scene(
        materials: {{ "m": (density: 1000, young: 1e6) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
        bodies: [Sphere(center: (0, 0, 0), radius: 0.1, material: "m", velocity: (1, 0, -0.5)),
                 Sphere(center: (5, 5, 5), radius: 0.1, material: "m")],
        timestep: Fixed({dt}),
        duration: Steps(100000),
    )"#
    )
}

#[test]
fn a_free_body_under_a_load_follows_the_closed_form_and_the_ledger_closes() {
    let dt = 1e-4;
    let mut sim = sim_from_text(&free_sphere(dt), "load.ron").unwrap();
    let (f, t) = (Vector3::new(0.3, -0.2, 0.7), Vector3::new(0.0, 2e-3, -1e-3));
    sim.set_load(
        0,
        Load {
            force: f,
            torque: t,
        },
    )
    .unwrap();
    let m = sim.particles.mass[0];
    let j = sim.particles.inertia[0].x;
    assert!(
        (j - 0.4 * m * 0.01).abs() < 1e-15 * j,
        "a solid sphere's 2/5 m r^2"
    );
    sim.step().unwrap();
    let e0 = sim.ledger.total();
    let n = 20_000u64;
    sim.run_steps(n - 1).unwrap();
    // With v(-dt/2) given: x_n = x_0 + n v dt + a dt^2 n (n + 1) / 2, w_n = w_0 + T/J n dt.
    let nf = n as f64;
    let v0 = Vector3::new(1.0, 0.0, -0.5);
    let x = v0 * nf * dt + f / m * (dt * dt * nf * (nf + 1.0) / 2.0);
    let got = sim.particles.pos[0];
    assert!((got - x).norm() < 1e-10 * x.norm(), "x {got} vs {x}");
    let w = t / j * (nf * dt);
    let wg = sim.particles.angvel[0];
    assert!((wg - w).norm() < 1e-10 * w.norm(), "w {wg} vs {w}");
    // The other sphere feels nothing.
    assert_eq!(sim.particles.pos[1], Vector3::new(5.0, 5.0, 5.0));
    // The work of the load is booked as boundary work: the total stays.
    let work = sim.ledger.boundary_work;
    let gained = sim.ledger.kinetic + sim.ledger.rotational - e0;
    // The force's work is f . dx and the torque's T . dtheta, to O(dt).
    let expected = f.dot(&got) + t.dot(&(t / j * (dt * dt * nf * (nf + 1.0) / 2.0)));
    assert!(
        ((work - expected) / expected).abs() < 1e-3,
        "work {work} vs {expected}"
    );
    assert!(
        (sim.ledger.total() - e0).abs() < 1e-11 * (e0.abs() + work),
        "ledger drift {} against work {work}",
        sim.ledger.total() - e0
    );
    assert!(
        (gained - work).abs() < 1e-9 * work,
        "energy {gained} vs work {work}"
    );
    // Cleared, the body coasts.
    sim.clear_loads();
    let v = sim.particles.vel[0];
    sim.run_steps(10).unwrap();
    assert_eq!(sim.particles.vel[0], v);
}

/// The mean acceleration along x of a sphere on a floor pushed by a horizontal force
/// `push` (times its weight) at its centre, with friction `mu`.
fn pushed_acceleration(push: f64, mu: f64) -> (f64, f64) {
    let r = 0.01;
    let dt = 2e-6;
    let scene = format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e9, friction: {mu}) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
                params: (kn: 1e6, kt_kn: 1.0, restitution: 0.3))],
        bodies: [
            Sphere(center: (0, 0, {z}), radius: {r}, material: "m"),
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
        ],
        gravity: (0, 0, -9.81),
        timestep: Fixed({dt}),
        duration: Steps(1),
    )"#,
        z = r - 1e-6,
    );
    let mut sim = sim_from_text(&scene, "pushed.ron").unwrap();
    // The normal contact settles first, then the push starts.
    sim.run_steps(250).unwrap();
    let m = sim.particles.mass[0];
    let force = Vector3::new(push * m * 9.81, 0.0, 0.0);
    sim.set_load(
        0,
        Load {
            force,
            torque: Vector3::zeros(),
        },
    )
    .unwrap();
    let steps = 50_000u64;
    let (x0, v0) = (sim.particles.pos[0].x, sim.particles.vel[0].x);
    sim.run_steps(steps).unwrap();
    let t = steps as f64 * dt;
    let (x1, v1) = (sim.particles.pos[0].x, sim.particles.vel[0].x);
    // From the velocities, and from the distance with the start velocity.
    ((v1 - v0) / t, 2.0 * (x1 - x0 - v0 * t) / (t * t))
}

#[test]
fn a_pushed_sphere_rolls_below_the_slip_threshold_and_slides_above() {
    let g = 9.81;
    let mu = 0.3;
    // Below 3.5 mu m g: rolling without slip, a = 5 F / 7 m.
    let push = 0.5;
    let (a_v, a_x) = pushed_acceleration(push, mu);
    let rolling = 5.0 / 7.0 * push * g;
    for a in [a_v, a_x] {
        assert!(
            ((a - rolling) / rolling).abs() < 0.01,
            "rolling: a {a} vs {rolling}"
        );
    }
    // Above it: sliding, a = (F - mu m g) / m.
    let push = 1.5;
    let (a_v, a_x) = pushed_acceleration(push, mu);
    let sliding = (push - mu) * g;
    for a in [a_v, a_x] {
        assert!(
            ((a - sliding) / sliding).abs() < 0.01,
            "sliding: a {a} vs {sliding}"
        );
    }
}

#[test]
fn loads_survive_a_checkpoint_bitwise() {
    let dt = 1e-4;
    let load = Load {
        force: Vector3::new(0.1, 0.0, 0.0),
        torque: Vector3::new(0.0, 0.0, 1e-4),
    };
    let mut whole = sim_from_text(&free_sphere(dt), "load.ron").unwrap();
    whole.set_load(1, load).unwrap();
    whole.run_steps(300).unwrap();
    let mut parts = sim_from_text(&free_sphere(dt), "load.ron").unwrap();
    parts.set_load(1, load).unwrap();
    parts.run_steps(100).unwrap();
    let mut parts = round_trip(&parts);
    assert_eq!(parts.applied().get(1), load);
    parts.run_steps(200).unwrap();
    for i in 0..2 {
        assert_eq!(whole.particles.pos[i], parts.particles.pos[i]);
        assert_eq!(whole.particles.angvel[i], parts.particles.angvel[i]);
    }
    assert_eq!(whole.ledger, parts.ledger);
}

#[test]
fn bad_loads_are_refused_with_the_particle_named() {
    let mut sim = sim_from_text(&free_sphere(1e-4), "load.ron").unwrap();
    let load = |x: f64| Load {
        force: Vector3::new(x, 0.0, 0.0),
        torque: Vector3::zeros(),
    };
    let e = sim.set_load(7, load(1.0)).unwrap_err();
    assert!(
        e.contains("particle 7") && e.contains("no such particle"),
        "{e}"
    );
    let e = sim.set_load(1, load(f64::NAN)).unwrap_err();
    assert!(e.contains("particle 1") && e.contains("not finite"), "{e}");
    assert!(sim.applied().is_empty(), "nothing set by a refused call");
    // A zero load removes the entry.
    sim.set_load(1, load(1.0)).unwrap();
    sim.set_load(1, load(0.0)).unwrap();
    assert!(sim.applied().is_empty());

    let clump = r#"Scene(
        materials: { "m": (density: 1000, young: 1e6) },
        laws: [(materials: ("m", "m"), law: "Law2_L6Geom_LinearElPl")],
        clump_templates: { "pair": (members: [((0, 0, 0), 1e-3), ((1.5e-3, 0, 0), 1e-3)]) },
        bodies: [Clump(template: "pair", position: (0, 0, 0), material: "m")],
        timestep: Critical(0.1),
        duration: Steps(1),
    )"#;
    let mut sim = sim_from_text(clump, "clump.ron").unwrap();
    let e = sim.set_load(0, load(1.0)).unwrap_err();
    assert!(e.contains("particle 0") && e.contains("clump"), "{e}");
}
