//! Collisions with the linear law against closed forms: restitution and contact duration of
//! a sphere hitting a wall, and the head-on collision of two equal spheres.

use dem_verification::impact::Collision;
use dem_verification::sim_from_text;
use std::f64::consts::PI;

const RADIUS: f64 = 0.01;
const DENSITY: f64 = 2500.0;
const KN: f64 = 1e5;

fn mass() -> f64 {
    DENSITY * 4.0 / 3.0 * PI * RADIUS.powi(3)
}

/// A sphere falling at `v0` (no gravity) onto a floor from `steps_away` steps above it,
/// with the linear law and these extra parameters.
fn wall_drop(
    law_params: &str,
    steps_per_contact: f64,
    steps_away: f64,
) -> (dem_core::Simulation, f64) {
    let omega = (KN / mass()).sqrt();
    let dt = PI / omega / steps_per_contact;
    let z0 = RADIUS + steps_away * dt;
    let scene = format!(
        r#"Scene(
        materials: {{ "m": (density: {DENSITY}, young: 1e9, friction: 0.5) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kn: {KN}, {law_params}))],
        bodies: [
            Sphere(center: (0, 0, {z0}), radius: {RADIUS}, material: "m", velocity: (0, 0, -1)),
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
        ],
        timestep: Fixed({dt}),
        duration: Steps(1),
    )"#
    );
    (sim_from_text(&scene, "wall_drop.ron").unwrap(), dt)
}

/// Result of one impact: (rebound / impact speed, duration of overlap); `extra` further
/// law parameters.
fn wall_impact(e: f64, attraction: bool, steps_per_contact: f64, extra: &str) -> (f64, f64) {
    let (mut sim, _) = wall_drop(
        &format!("restitution: {e}, attraction: {attraction}{extra}"),
        steps_per_contact,
        20.0,
    );
    let i = Collision::Floor { radius: RADIUS }.run(&mut sim, 100 * steps_per_contact as u64);
    (i.rebound, i.duration)
}

/// Restitution of the linear spring-dashpot with the classical damping ratio of `e`
/// (`damping_from: Oscillator`) when the force is clamped at zero: the sphere
/// leaves the force when `k x + c v = 0`, i.e. at `w_d t* = pi - atan(2 z sqrt(1-z^2) /
/// (1 - 2 z^2))`, with speed `v(t*)`.
fn clamped_restitution(e: f64) -> f64 {
    if e >= 1.0 {
        return 1.0;
    }
    let l = e.ln();
    let z = -l / (l * l + PI * PI).sqrt();
    let s = (1.0 - z * z).sqrt();
    let phase = PI - (2.0 * z * s / (1.0 - 2.0 * z * z)).atan();
    let decay = (-z / s * phase).exp();
    -decay * (phase.cos() - z / s * phase.sin())
}

#[test]
fn restitution_and_duration_against_closed_forms() {
    let m = mass();
    println!(
        "   e    | measured (pull) | measured (no pull) | classical zeta: e clamped | measured \
         | duration / closed form"
    );
    for e in [0.1, 0.5, 0.9, 1.0] {
        let (r_pull, dur) = wall_impact(e, true, 1000.0, "");
        let (r_delivered, _) = wall_impact(e, false, 1000.0, "");
        let (r_clamp, _) = wall_impact(e, false, 1000.0, ", damping_from: Oscillator");
        let l: f64 = e.ln();
        let zeta = -l / (l * l + PI * PI).sqrt();
        let eta = 2.0 * zeta * (m * KN).sqrt();
        let expected_duration = PI / (KN / m - (eta / (2.0 * m)).powi(2)).sqrt();
        let ec = clamped_restitution(e);
        println!(
            "  {e:.1}   |   {r_pull:.6}      |     {r_delivered:.6}       | {ec:.6}  | \
             {r_clamp:.6} | {:.6}",
            dur / expected_duration
        );
        assert!((r_pull - e).abs() < 0.01 * e, "e = {e}: measured {r_pull}");
        // Clamped, the default damping delivers the requested coefficient too.
        assert!(
            (r_delivered - e).abs() < 1e-3,
            "e = {e}: clamped measured {r_delivered}"
        );
        assert!(
            (r_clamp - ec).abs() < 0.01 * ec,
            "e = {e}: clamped measured {r_clamp} vs {ec}"
        );
        assert!(
            (dur / expected_duration - 1.0).abs() < 0.01,
            "e = {e}: duration {dur} vs {expected_duration}"
        );
    }
}

/// Two equal spheres head-on, frictionless and undamped. Returns (relative momentum
/// error, relative ledger error after the collision).
fn head_on(steps_per_contact: f64) -> (f64, f64) {
    let m = mass();
    let dt = PI * (0.5 * m / KN).sqrt() / steps_per_contact;
    let v = 0.5;
    let x = RADIUS + 10.0 * v * dt + 1e-7;
    let scene = format!(
        r#"Scene(
        materials: {{ "m": (density: {DENSITY}, young: 1e9, friction: 0) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kn: {KN}))],
        bodies: [
            Sphere(center: (-{x}, 0, 0), radius: {RADIUS}, material: "m", velocity: ({v}, 0, 0)),
            Sphere(center: ({x}, 0, 0), radius: {RADIUS}, material: "m", velocity: (-{v}, 0, 0)),
        ],
        timestep: Fixed({dt}),
        duration: Steps(1),
    )"#
    );
    let mut sim = sim_from_text(&scene, "head_on.ron").unwrap();
    sim.step().unwrap();
    let before = sim.ledger.total();
    let p0 = m * (sim.particles.vel[0] + sim.particles.vel[1]).norm();
    let mut max_p: f64 = p0;
    sim.run_steps(3 * steps_per_contact as u64 + 40).unwrap();
    assert_eq!(sim.contacts.active(), 0, "collision over");
    max_p = max_p.max(m * (sim.particles.vel[0] + sim.particles.vel[1]).norm());
    let after = sim.ledger.total();
    (max_p / (m * v), ((after - before) / before).abs())
}

#[test]
fn head_on_conserves_momentum_and_energy() {
    println!("steps per contact | momentum error | ledger error after collision");
    let mut errors = Vec::new();
    for n in [25.0, 50.0, 100.0] {
        let (dp, de) = head_on(n);
        println!("{n:>17} | {dp:>14.3e} | {de:.3e}");
        assert!(dp < 1e-14, "momentum {dp:e}");
        errors.push(de);
    }
    assert!(
        errors[1] < 1e-4,
        "ledger error at 50 steps per contact: {:e}",
        errors[1]
    );
    assert!(
        errors[2] < errors[0],
        "error must fall as the step shrinks: {errors:?}"
    );
}

/// Relative ledger error of one damped impact on a wall at `n` steps per contact.
fn damped_ledger_error(n: f64) -> f64 {
    // Start a fraction of a step away from touching, so the onset falls inside a step.
    let (mut sim, _) = wall_drop("restitution: 0.5", n, 20.37);
    sim.step().unwrap();
    let before = sim.ledger.total();
    sim.run_steps(20 + 3 * n as u64).unwrap();
    assert_eq!(sim.contacts.active(), 0);
    ((sim.ledger.total() - before) / before).abs()
}

/// With damping, the energy error of the leap-frog at contact onset and end (the force
/// switches on and off within a step) no longer cancels; the ledger shows it, and it falls
/// as the step shrinks, close to second order (measured slope about -1.85 over 25-200 steps
/// per contact, with scatter from where in its step the contact starts and ends).
#[test]
fn damped_impact_ledger_error_falls_as_the_step_shrinks() {
    println!("steps per contact | ledger error of one damped impact (e = 0.5)");
    let errors: Vec<f64> = [25.0, 50.0, 100.0, 200.0]
        .iter()
        .map(|&n| {
            let e = damped_ledger_error(n);
            println!("{n:>17} | {e:.3e}");
            e
        })
        .collect();
    assert!(errors[1] < 2e-3, "{errors:?}");
    // Second order as an envelope: where in its step the contact starts and ends varies
    // with n, so single halvings scatter; fit the slope over the range, and error * n^2
    // stays bounded.
    let points: Vec<(f64, f64)> = [25.0f64, 50.0, 100.0, 200.0]
        .iter()
        .zip(&errors)
        .map(|(n, e)| (n.ln(), e.ln()))
        .collect();
    let (mx, my) = (
        points.iter().map(|p| p.0).sum::<f64>() / 4.0,
        points.iter().map(|p| p.1).sum::<f64>() / 4.0,
    );
    let slope = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
        / points.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
    println!("fitted order: error ~ n^{slope:.2}");
    assert!(slope < -1.5, "slope {slope}");
    let scaled: Vec<f64> = [25.0, 50.0, 100.0, 200.0]
        .iter()
        .zip(&errors)
        .map(|(n, e)| e * n * n)
        .collect();
    let (lo, hi) = scaled
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(hi / lo < 4.0, "error * n^2 = {scaled:?}");
}
