//! A wall's servo control (`Servo` motion, `crates/dem-core/src/motion.rs`): a lid held at
//! a normal stress over a sphere on a fixed floor advances at its speed cap while nothing
//! touches it, then comes to rest where the floor carries the target stress times the
//! area (the floor's force is measured independently of the servo's own reading); the
//! ledger closes to rounding with the lid's work as boundary work; a checkpoint resumes
//! bitwise; bad servos are refused with the field; a scene's `stop` conditions end the
//! run once the lid holds its stress and the sphere is at rest.

use dem_core::{Checkpoint, Simulation};
use dem_verification::mesh::write_obj;
use dem_verification::{plugins, sim_from_text};
use std::path::Path;

const STRESS: f64 = 1e4;
const AREA: f64 = 1e-4;
const MAX_VELOCITY: f64 = 0.05;
const DT: f64 = 2e-6;
/// The lid's start above the floor, m (a sphere of radius 1 mm on the floor).
const LID: f64 = 0.0021;

fn scene(motion: &str) -> String {
    format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.3) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
        bodies: [
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
            Sphere(center: (0, 0, 0.001), radius: 0.001, material: "m"),
            Wall(point: (0, 0, {LID}), normal: (0, 0, -1), sense: 1, material: "m",
                 motion: {motion}),
        ],
        gravity: (0, 0, 0),
        damping: 0.3,
        timestep: Fixed({DT:e}),
        duration: Steps(8000),
    )"#
    )
}

fn servo() -> String {
    format!("Servo(stress: {STRESS:e}, area: {AREA:e}, max_velocity: {MAX_VELOCITY}, gain: 0.2)")
}

#[test]
fn a_servo_wall_comes_to_rest_at_its_stress() {
    let mut sim = sim_from_text(&scene(&servo()), "wall_servo.ron").unwrap();
    sim.step().unwrap();
    sim.run_steps(499).unwrap();
    // Nothing touches the lid yet: it advances at its speed cap.
    let travel = LID - sim.particles.pos[2].z;
    assert!(
        (travel - 500.0 * DT * MAX_VELOCITY).abs() < 1e-15,
        "{travel:e}"
    );
    assert_eq!(
        sim.particles.force[2].norm(),
        0.0,
        "nothing touches the lid"
    );
    sim.run_steps(7500).unwrap();
    let floor = -sim.particles.force[0].z;
    let lid = sim.motions[0].servo;
    eprintln!(
        "floor force {floor:e} N, lid stress {:e} Pa, lid speed {:e} m/s, sphere speed {:e} m/s",
        lid.stress,
        lid.velocity,
        sim.particles.vel[1].norm()
    );
    assert_eq!(sim.live_contacts, 2);
    assert!((floor / (STRESS * AREA) - 1.0).abs() < 1e-3, "{floor:e} N");
    assert!(
        (lid.stress / STRESS - 1.0).abs() < 1e-3,
        "{:e} Pa",
        lid.stress
    );
    assert!(
        lid.velocity.abs() < 1e-4 * MAX_VELOCITY,
        "at rest: {:e}",
        lid.velocity
    );
}

#[test]
fn the_ledger_closes_with_a_servo_wall() {
    let mut sim = sim_from_text(&scene(&servo()), "wall_servo.ron").unwrap();
    sim.step().unwrap();
    let start = sim.ledger.total();
    sim.run_steps(7999).unwrap();
    let work = sim.ledger.boundary_work;
    let error = (sim.ledger.total() - start) / work;
    eprintln!("ledger error {error:e} of the boundary work {work:e} J");
    // The lid's work booked with the mean of its speeds before and after each step (the
    // integrator's booking alone, with the speed after, erred by 8.7e-4 here, and 4.3e-4
    // at half the step: first order): closed to rounding with the linear law.
    assert!(work > 0.0);
    assert!(error.abs() < 1e-10, "{error:e}");
}

#[test]
fn a_servo_wall_run_resumes_bitwise_from_a_checkpoint() {
    let text = scene(&servo());
    let mut whole = sim_from_text(&text, "wall_servo.ron").unwrap();
    whole.run_steps(5000).unwrap();
    let mut parts = sim_from_text(&text, "wall_servo.ron").unwrap();
    parts.run_steps(3456).unwrap();
    assert_eq!(parts.live_contacts, 2, "the lid presses at the checkpoint");
    let path = Path::new("wall_servo.ckpt");
    let bytes = Checkpoint::capture(&parts, plugins(), Vec::new()).to_bytes();
    let ck = Checkpoint::from_bytes(&bytes, path).unwrap();
    let scene = ck.scene().unwrap();
    let mut parts = ck.restore(scene, plugins(), path).unwrap();
    parts.run_steps(5000 - 3456).unwrap();
    let bits = |s: &Simulation| {
        let p = &s.particles;
        let mut out: Vec<u64> = (0..p.len())
            .flat_map(|i| [p.pos[i], p.vel[i], p.force[i]])
            .flat_map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
            .collect();
        out.extend(s.ledger.row().iter().map(|x| x.to_bits()));
        let g = s.motions[0].servo;
        out.extend([g.displacement, g.velocity, g.stress].map(f64::to_bits));
        out
    };
    assert!(bits(&parts) == bits(&whole), "trajectories differ");
}

#[test]
fn unfit_servos_are_refused_with_the_field() {
    let refused = |text: &str| match sim_from_text(text, "wall_servo.ron") {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    };
    let area = refused(&scene(
        "Servo(stress: 1e4, area: 0, max_velocity: 0.05, gain: 0.05)",
    ));
    assert!(
        area.contains("wall_servo.ron")
            && area.contains("bodies[2].motion")
            && area.contains("area"),
        "{area}"
    );
    let obj = write_obj(
        "wall_servo_floor",
        &[[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.01, 0.0]],
        &[[0, 1, 2]],
    );
    let mesh = scene(&servo()).replace(
        r#"Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),"#,
        &format!(
            r#"Mesh(file: "{}", material: "m", motion: {}),"#,
            obj.display(),
            servo()
        ),
    );
    let mesh = refused(&mesh);
    assert!(
        mesh.contains("bodies[0].motion") && mesh.contains("walls only"),
        "{mesh}"
    );
}

#[test]
fn a_run_stops_when_its_conditions_hold() {
    let text = scene(&servo()).replace(
        "duration: Steps(8000),",
        "duration: Steps(100000), stop: [Unbalanced(1e-6), WallStress(1e-6)],",
    );
    let mut sim = sim_from_text(&text, "wall_servo.ron").unwrap();
    while sim.step < sim.end_step {
        sim.step().unwrap();
    }
    let floor = -sim.particles.force[0].z;
    eprintln!("stopped at step {}: floor force {floor:e} N", sim.step);
    assert!(sim.step < 8000, "stopped at step {}", sim.step);
    assert!((floor / (STRESS * AREA) - 1.0).abs() < 1e-5, "{floor:e} N");
    // All must hold: with an unbalanced force out of reach, the run goes to its duration.
    let partial = scene(&servo()).replace(
        "duration: Steps(8000),",
        "duration: Steps(3000), stop: [WallStress(1e-6), Unbalanced(1e-12)],",
    );
    let mut sim = sim_from_text(&partial, "wall_servo.ron").unwrap();
    while sim.step < sim.end_step {
        sim.step().unwrap();
    }
    assert_eq!(sim.step, 3000, "ran its duration");
    let unfit = |stop: &str, motion: &str| {
        let text = scene(motion).replace(
            "duration: Steps(8000),",
            &format!("duration: Steps(10), stop: [{stop}],"),
        );
        match sim_from_text(&text, "stop.ron") {
            Ok(_) => panic!("accepted {stop}"),
            Err(e) => e.to_string(),
        }
    };
    let zero = unfit("Unbalanced(0)", &servo());
    assert!(
        zero.contains("stop.ron") && zero.contains("stop[0]"),
        "{zero}"
    );
    let none = unfit(
        "Unbalanced(0.1), WallStress(0.01)",
        "Translate(velocity: (0, 0, 0))",
    );
    assert!(
        none.contains("stop[1]") && none.contains("no wall has a Servo"),
        "{none}"
    );
    let stages = unfit("Stages", &servo());
    assert!(
        stages.contains("stop[0]") && stages.contains("no periodic cell with stages"),
        "{stages}"
    );
}
