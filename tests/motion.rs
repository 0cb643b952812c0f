//! Prescribed motion: a mesh floor moving at constant speed sends a sphere off at twice its
//! speed (as a moving wall does), and a shaking floor keeps the ledger closed, without
//! drift.

use dem_verification::mesh::write_obj;
use dem_verification::sim_from_text;
use std::f64::consts::PI;

fn scene(boundary: &str, sphere_z: f64, gravity: f64, dt: f64) -> String {
    format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e9, friction: 0.5) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kn: 1e5, restitution: 0.5))],
        bodies: [
            Sphere(center: (0.001, 0.002, {sphere_z}), radius: 0.01, material: "m"),
            {boundary},
        ],
        gravity: (0, 0, {gravity}),
        timestep: Fixed({dt}),
        duration: Steps(1),
    )"#
    )
}

fn mass() -> f64 {
    2500.0 * 4.0 / 3.0 * PI * 1e-6
}

#[test]
fn translating_mesh_launches_at_twice_its_speed() {
    let v = 0.3;
    let floor = write_obj(
        "motion_floor",
        &[
            [-0.1, -0.1, 0.0],
            [0.1, -0.1, 0.0],
            [0.1, 0.1, 0.0],
            [-0.1, 0.1, 0.0],
        ],
        &[[0, 1, 2], [0, 2, 3]],
    );
    let dt = PI * (mass() / 1e5).sqrt() / 400.0;
    let mesh = format!(
        r#"Mesh(file: "{}", material: "m", motion: Translate(velocity: (0, 0, {v})))"#,
        floor.display()
    );
    // Without damping, so that the rebound is exactly 2V.
    let text =
        scene(&mesh, 0.01 + 30.0 * v * dt, 0.0, dt).replace("restitution: 0.5", "restitution: 1.0");
    let mut sim = sim_from_text(&text, "motion.ron").unwrap();
    sim.run_steps(30 + 3 * 400).unwrap();
    let up = sim.particles.vel[0].z;
    let l = sim.ledger;
    println!(
        "rebound {up:.9} m/s, boundary work {:.6e} J, total {:.3e} J",
        l.boundary_work,
        l.total()
    );
    assert_eq!(sim.contacts.active(), 0);
    assert!((up / (2.0 * v) - 1.0).abs() < 1e-4, "{up}");
    assert!(l.total().abs() < 1e-4 * l.kinetic);
}

#[test]
fn shaking_wall_keeps_the_ledger_closed() {
    let dt = PI * (mass() / 1e5).sqrt() / 200.0;
    let wall = r#"Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m",
                      motion: Shake(amplitude: (0, 0, 0.001), frequency: 25))"#;
    let z0 = 0.01 - mass() * 9.81 / 1e5;
    let mut sim = sim_from_text(&scene(wall, z0, -9.81, dt), "shake.ron").unwrap();
    sim.step().unwrap();
    let t0 = sim.ledger.total();
    sim.run_steps((0.4 / dt) as u64).unwrap();
    let l = sim.ledger;
    let dissipated = l.damping + l.friction;
    let error = (l.total() - t0) / dissipated;
    println!(
        "boundary work {:.6e} J, dissipated {dissipated:.6e} J, ledger drift {error:.3e} of the dissipation",
        l.boundary_work
    );
    assert!(
        dissipated > 0.0 && l.boundary_work > 0.0,
        "the shaking floor throws the sphere"
    );
    assert!(error.abs() < 0.01);
}

/// A sphere resting on a floor that rises at 0.05 m/s; the floor's speed is changed to
/// 0.3 m/s (it pushes the sphere), then to -0.1 m/s (the sphere falls after it and lands
/// again). The floor goes on from where it was at each change (closed form: the sum of
/// speed times time), and the ledger keeps closing: the work the floor does is booked from
/// its new speed.
#[test]
fn a_wall_whose_speed_changes_keeps_the_ledger_closed() {
    use dem_core::engines::motion::Motion;
    let dt = PI * (mass() / 1e5).sqrt() / 200.0;
    let wall = r#"Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m",
                      motion: Translate(velocity: (0, 0, 0.05)))"#;
    let z0 = 0.01 - mass() * 9.81 / 1e5;
    let mut sim = sim_from_text(&scene(wall, z0, -9.81, dt), "lift.ron").unwrap();
    sim.step().unwrap();
    let start = sim.ledger.total();
    let floor = sim.order.index(1);
    let mut expected = sim.particles.pos[floor].z;
    let mut largest_error: f64 = 0.0;
    for v in [0.05, 0.3, -0.1] {
        let (t0, steps) = (sim.time, (0.15 / dt) as u64);
        sim.motions[0]
            .change(
                Motion::Translate {
                    velocity: [0.0, 0.0, v],
                },
                t0,
            )
            .unwrap();
        for _ in 0..steps {
            sim.step().unwrap();
            largest_error = largest_error.max((sim.ledger.total() - start).abs());
        }
        println!("after {v} m/s: error {:.3e} J", sim.ledger.total() - start);
        expected += v * (sim.time - t0);
        let z = sim.particles.pos[floor].z;
        assert!(
            (z - expected).abs() < 1e-15,
            "floor at {z}, expected {expected}"
        );
        assert_eq!(sim.particles.vel[floor].z, v);
    }
    let l = sim.ledger;
    println!(
        "boundary work {:.6e} J, dissipated {:.6e} J, largest ledger error {largest_error:.3e} J",
        l.boundary_work,
        l.damping + l.friction
    );
    // The floor did work: it lifted the sphere by 0.05 * 0.15 + 0.3 * 0.15 - 0.1 * 0.15
    // = 0.0375 m, threw it, and the sphere's landing dissipated some.
    let lift = mass() * 9.81 * 0.0375;
    assert!(l.boundary_work > lift && l.damping > 0.0, "{l:?}");
    // As for the shaking floor: the ledger's error through the impacts (the sphere thrown
    // at each change) stays small against the energy that flowed, and the error left at
    // the end is that of the leap-frog's bookkeeping.
    assert!(largest_error < 2e-3 * l.boundary_work, "{largest_error}");
    assert!((l.total() - start).abs() < 1e-4 * l.boundary_work);
}

/// Shake amplitude (m) and frequency (Hz) of the riding tests: a peak acceleration of a
/// quarter of g, so the sphere never leaves the floor and no impact adds its own error.
const RIDE: (f64, f64) = (1e-4, 25.0);

/// A sphere riding a gently shaking floor for five periods at time step `dt`: the ledger's
/// drift over those whole periods, its largest error on the way and the largest boundary
/// work (J).
fn riding(dt: f64) -> (f64, f64, f64) {
    let (a, f) = RIDE;
    let wall = format!(
        r#"Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m",
                      motion: Shake(amplitude: (0, 0, {a}), frequency: {f}))"#
    );
    let z0 = 0.01 - mass() * 9.81 / 1e5;
    // The sphere starts with the floor's velocity (2 pi f A), so that it rides along.
    let text = scene(&wall, z0, -9.81, dt)
        .replace("restitution: 0.5", "restitution: 1.0")
        .replace(
            r#"material: "m"),"#,
            &format!(r#"material: "m", velocity: (0, 0, {})),"#, 2.0 * PI * f * a),
        );
    let mut sim = sim_from_text(&text, "ride.ron").unwrap();
    sim.step().unwrap();
    let start = sim.ledger.total();
    let (mut error, mut work): (f64, f64) = (0.0, 0.0);
    // From the end of the first step to the same phase five periods later.
    let steps = (5.0 / f / dt).round() as u64;
    for _ in 0..steps {
        sim.step().unwrap();
        error = error.max((sim.ledger.total() - start).abs());
        work = work.max(sim.ledger.boundary_work.abs());
    }
    assert_eq!(sim.contacts.active(), 1, "the sphere stays on the floor");
    ((sim.ledger.total() - start).abs(), error, work)
}

/// The work a shaking floor does is booked so that the ledger does not drift: over five
/// whole periods it closes to 1.3e-5 of the boundary work. (Booked with the floor's
/// velocity after each step alone, it drifted by 5.6e-3 of it, halving with the step:
/// first order.) Between whole periods the ledger is off by the
/// half step of work at each end of the window, `|f . v| dt / 2`, at most
/// `m (g + A w^2) A w dt` in all.
#[test]
fn a_shaking_floor_books_its_work_without_drift() {
    let (a, f) = RIDE;
    let w = 2.0 * PI * f;
    let dt = PI * (mass() / 1e5).sqrt() / 50.0;
    for dt in [dt, dt / 2.0] {
        let (drift, error, work) = riding(dt);
        let ends = mass() * (9.81 + a * w * w) * a * w * dt;
        println!(
            "dt {dt:.3e} s: drift over five periods {drift:.3e} J, largest error {error:.3e} J (bound {ends:.3e} J), largest boundary work {work:.3e} J"
        );
        assert!(drift < 1e-4 * work, "{drift:e} vs {work:e}");
        assert!(error <= ends, "{error:e} vs {ends:e}");
    }
}
