//! The scene's `fluid`: Stokes drag on spheres in a prescribed linear flow, against the
//! closed forms of a sphere settling in still fluid (v_t = m g / 6 pi mu r, reached as
//! 1 - exp(-t / tau)), carried by a shear flow and spun up to half its vorticity; the
//! dissipated energy booked so that the ledger balances; bad fluids refused by field.

use dem_verification::sim_from_text;
use std::f64::consts::PI;

const R: f64 = 1e-3;
const RHO: f64 = 2500.0;
const MU: f64 = 1.0;

fn scene(center: [f64; 3], gravity: f64, gradient: &str, timestep: &str) -> String {
    format!(
        r#"Scene(
        materials: {{ "m": (density: {RHO}, young: 1e7) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
        bodies: [Sphere(center: ({}, {}, {}), radius: {R}, material: "m")],
        gravity: (0, 0, {gravity}),
        fluid: (viscosity: {MU}, gradient: {gradient}),
        timestep: {timestep},
        duration: Steps(1),
    )"#,
        center[0], center[1], center[2]
    )
}

fn mass() -> f64 {
    RHO * 4.0 / 3.0 * PI * R.powi(3)
}

#[test]
fn a_sphere_settles_at_the_stokes_velocity_and_the_ledger_balances() {
    let g = 9.81;
    let tau = mass() / (6.0 * PI * MU * R);
    let dt = tau / 1000.0;
    let text = scene(
        [0.0; 3],
        -g,
        "((0, 0, 0), (0, 0, 0), (0, 0, 0))",
        &format!("Fixed({dt:e})"),
    );
    let mut sim = sim_from_text(&text, "settling.ron").unwrap();
    let v_t = mass() * g / (6.0 * PI * MU * R);
    // The approach, 1 - exp(-t / tau), to the scheme's O(dt / tau).
    for k in 1..=3 {
        sim.run_steps(1000).unwrap();
        let t = sim.time;
        let v = -sim.particles.vel[0].z;
        let want = v_t * (1.0 - (-t / tau).exp());
        assert!(
            ((v - want) / want).abs() < 2e-3,
            "after {k} tau: v {v} vs {want}"
        );
    }
    let e = sim.ledger.total();
    // Terminal: the discrete fixed point is the closed form itself.
    sim.run_steps(30_000).unwrap();
    let v = -sim.particles.vel[0].z;
    assert!(((v - v_t) / v_t).abs() < 1e-9, "terminal {v} vs {v_t}");
    // At terminal velocity the drag dissipates what gravity gives: the ledger's total
    // stays while the potential energy falls (measured: 7.6e-7 of it, from the rest of
    // the transient, booked to the scheme's O(dt / tau) = 1e-3).
    let fallen = -sim.particles.pos[0].z;
    let given = mass() * g * fallen;
    let drift = (sim.ledger.total() - e).abs();
    assert!(drift < 1e-5 * given, "ledger drift {drift} J of {given} J");
    assert!(
        (-sim.ledger.boundary_work / given - 1.0).abs() < 0.05,
        "the drag's work {} J against m g h {given} J",
        sim.ledger.boundary_work
    );
}

#[test]
fn a_shear_flow_carries_a_sphere_and_spins_it_at_half_the_vorticity() {
    let rate = 40.0;
    let z0 = 0.01;
    let tau_r = mass() / (20.0 * PI * MU * R);
    let dt = tau_r / 1000.0;
    let gradient = format!("((0, 0, {rate}), (0, 0, 0), (0, 0, 0))");
    let text = scene([0.0, 0.0, z0], 0.0, &gradient, &format!("Fixed({dt:e})"));
    let mut sim = sim_from_text(&text, "shear.ron").unwrap();
    sim.run_steps(2000).unwrap();
    let t = sim.time;
    // Spin: w_y -> rate / 2 with tau_r = J / (8 pi mu r^3) = m / (20 pi mu r).
    let w = sim.particles.angvel[0].y;
    let want = 0.5 * rate * (1.0 - (-t / tau_r).exp());
    assert!(((w - want) / want).abs() < 2e-3, "spin {w} vs {want}");
    // Carried: v_x -> rate z0 with tau = m / (6 pi mu r).
    let tau = mass() / (6.0 * PI * MU * R);
    let v = sim.particles.vel[0].x;
    let want = rate * z0 * (1.0 - (-t / tau).exp());
    assert!(((v - want) / want).abs() < 2e-3, "carried {v} vs {want}");
    assert_eq!(sim.particles.vel[0].z, 0.0, "no lift in Stokes flow");
}

#[test]
fn the_critical_step_respects_the_drag_relaxation_time() {
    let text = scene(
        [0.0; 3],
        -9.81,
        "((0, 0, 0), (0, 0, 0), (0, 0, 0))",
        "Critical(0.5)",
    );
    let sim = sim_from_text(&text, "critical.ron").unwrap();
    let tau_r = mass() / (20.0 * PI * MU * R);
    assert!(
        sim.critical_dt <= tau_r * (1.0 + 1e-12),
        "{} vs {tau_r}",
        sim.critical_dt
    );
    assert!(sim.dt() <= 0.5 * tau_r * (1.0 + 1e-12));
}

fn refused(text: &str, origin: &str) -> String {
    match sim_from_text(text, origin) {
        Ok(_) => panic!("{origin} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_fluids_are_refused_by_field() {
    let text = scene(
        [0.0; 3],
        0.0,
        "((0, 0, 0), (0, 0, 0), (0, 0, 0))",
        "Fixed(1e-6)",
    )
    .replace("viscosity: 1", "viscosity: -1");
    let e = refused(&text, "bad.ron");
    assert!(
        e.contains("bad.ron") && e.contains("fluid.viscosity"),
        "{e}"
    );
    let text = scene(
        [0.0; 3],
        0.0,
        "((0, 0, inf), (0, 0, 0), (0, 0, 0))",
        "Fixed(1e-6)",
    );
    let e = refused(&text, "bad.ron");
    assert!(e.contains("fluid.gradient"), "{e}");
    let clump = r#"Scene(
        materials: { "m": (density: 1000, young: 1e6) },
        laws: [(materials: ("m", "m"), law: "Law2_L6Geom_LinearElPl")],
        clump_templates: { "pair": (members: [((0, 0, 0), 1e-3), ((1.5e-3, 0, 0), 1e-3)]) },
        bodies: [Clump(template: "pair", position: (0, 0, 0), material: "m")],
        fluid: (viscosity: 1e-3),
        timestep: Critical(0.1),
        duration: Steps(1),
    )"#;
    let e = refused(clump, "clump.ron");
    assert!(e.contains("fluid") && e.contains("spheres only"), "{e}");
}

#[test]
fn dem_check_shows_the_fluid_and_its_relaxation_time() {
    use dem_verification::cli::{dem, fresh_dir, ok, s};
    let dir = fresh_dir("fluid", "check");
    let path = dir.join("settling.ron");
    let text = scene(
        [0.0; 3],
        -9.81,
        "((0, 0, 0), (0, 0, 0), (0, 0, 0))",
        "Critical(0.5)",
    );
    std::fs::write(&path, text).unwrap();
    let out = ok(&dem(&["check", s(&path)]));
    let tau_r = mass() / (20.0 * PI * MU * R);
    assert!(
        out.contains("fluid: viscosity 1e0 Pa s")
            && out.contains(&format!("shortest drag relaxation time {tau_r:.4e} s")),
        "{out}"
    );
}
