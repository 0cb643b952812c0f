//! The Hertz-Mindlin law against Hertz theory: the glass-sphere impact, the contact
//! duration over four decades of impact speed, the restitution it achieves, and the
//! energy ledger through an impact.

use dem_verification::impact::{Collision, FloorScene, Impact};
use dem_verification::reference::hertz_restitution;
use dem_verification::sim_from_text;
use std::f64::consts::PI;

const R: f64 = 0.01;
const RHO: f64 = 2800.0;
const E: f64 = 4.8e10;
const NU: f64 = 0.2;

fn mass() -> f64 {
    RHO * 4.0 / 3.0 * PI * R.powi(3)
}

/// Hertz theory of an elastic impact at relative speed `v` (m/s) with effective modulus,
/// radius and mass: (largest overlap m, peak force N, contact duration s).
fn hertz_theory(e_star: f64, r_star: f64, m_star: f64, v: f64) -> (f64, f64, f64) {
    let delta = (15.0 * m_star * v * v / (16.0 * e_star * r_star.sqrt())).powf(0.4);
    let force = 4.0 / 3.0 * e_star * r_star.sqrt() * delta.powf(1.5);
    (delta, force, 2.9433 * delta / v)
}

fn e_star() -> f64 {
    E / (2.0 * (1.0 - NU * NU))
}

/// Glass spheres meeting head-on at `v` each; `dt` s; law parameters `params`.
fn head_on(v: f64, dt: f64, params: &str) -> dem_core::Simulation {
    let x = R + 10.0 * v * dt + 1e-12;
    let scene = format!(
        r#"Scene(
        materials: {{ "glass": (density: {RHO}, young: {E}, poisson: {NU}, friction: 0) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_HertzMindlin", params: ({params}))],
        bodies: [
            Sphere(center: (-{x}, 0, 0), radius: {R}, material: "glass", velocity: ({v}, 0, 0)),
            Sphere(center: ({x}, 0, 0), radius: {R}, material: "glass", velocity: (-{v}, 0, 0)),
        ],
        timestep: Fixed({dt}),
        duration: Steps(1),
    )"#
    );
    sim_from_text(&scene, "head_on.ron").unwrap()
}

const GLASS: &str = "(density: 2800, young: 4.8e10, poisson: 0.2, friction: 0.3)";

/// A glass sphere falling at `v` onto a glass floor (no gravity), starting `away` steps of
/// flight above it.
fn floor_drop(v: f64, dt: f64, away: f64, params: &str) -> dem_core::Simulation {
    FloorScene {
        law: "Law2_L6Geom_HertzMindlin",
        params,
        material: GLASS,
        radius: R,
        height: R + away * v * dt,
        velocity: [0.0, 0.0, -v],
        angular_velocity: [0.0; 3],
        gravity: [0.0; 3],
        dt,
    }
    .build()
}

fn within(measured: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        (measured / expected - 1.0).abs() < tol,
        "{what}: measured {measured:e}, expected {expected:e}"
    );
}

/// Two glass spheres (R = 1 cm) at 10 m/s each: the numbers of the issue, and Hertz theory.
#[test]
fn glass_spheres_head_on() {
    let (delta, force, duration) = hertz_theory(e_star(), R / 2.0, mass() / 2.0, 20.0);
    let dt = duration / 400.0;
    let mut sim = head_on(10.0, dt, "");
    let i: Impact = Collision::HeadOn { radius: R }.run(&mut sim, 2000);
    println!(
        "peak force {:.4} kN, max overlap {:.2} um, duration {:.3} us, rebound {:.6}",
        i.peak_force / 1e3,
        i.max_overlap * 1e6,
        i.duration * 1e6,
        i.rebound
    );
    within(i.peak_force, 10.70e3, 0.01, "peak force vs 10.70 kN");
    within(i.max_overlap, 274.1e-6, 0.01, "max overlap vs 274.1 um");
    within(i.duration, 40.3e-6, 0.01, "duration vs 40.3 us");
    within(i.rebound, 1.0, 0.01, "rebound / impact speed");
    within(i.peak_force, force, 1e-3, "peak force vs theory");
    within(i.max_overlap, delta, 1e-3, "max overlap vs theory");
    within(i.duration, duration, 2e-3, "duration vs theory");
}

/// Contact duration `2.9433 delta_max / v` from 1 m/s down to 1e-4 m/s (sphere on a floor).
#[test]
fn contact_duration_over_four_decades() {
    println!("  v (m/s) | duration (s) | / 2.9433 delta_max / v | rebound");
    for v in [1.0, 1e-1, 1e-2, 1e-3, 1e-4] {
        let (_, _, duration) = hertz_theory(e_star(), R, mass(), v);
        let dt = duration / 300.0;
        let mut sim = floor_drop(v, dt, 5.3, "");
        let i = Collision::Floor { radius: R }.run(&mut sim, 2000);
        println!(
            "  {v:7.0e} | {:.5e}  | {:.6}                | {:.6}",
            i.duration,
            i.duration / duration,
            i.rebound
        );
        within(i.duration, duration, 0.01, &format!("duration at {v} m/s"));
        within(i.rebound, 1.0, 0.01, &format!("rebound at {v} m/s"));
    }
}

/// Requested vs achieved restitution. The default damping delivers the requested value,
/// clamped at zero (the default) or with attraction; the classical damping ratio
/// (`damping_from: Oscillator`, EDEM's) gives the requested value with attraction and more
/// when clamped, the exact value coming from the dimensionless equation of motion
/// (`reference::hertz_restitution`).
#[test]
fn restitution_table() {
    let v = 1.0;
    let (_, _, duration) = hertz_theory(e_star(), R, mass(), v);
    let dt = duration / 1000.0;
    println!(
        "  e requested | clamped (default) | with attraction | classical, with attraction \
         | classical, clamped | exact"
    );
    for e in [0.1, 0.3, 0.5, 0.7, 0.9] {
        let run = |params: &str| {
            let mut sim = floor_drop(v, dt, 5.3, &format!("restitution: {e}, {params}"));
            Collision::Floor { radius: R }.run(&mut sim, 2000).rebound
        };
        let clamped = run("");
        let pull = run("attraction: true");
        let classical_pull = run("attraction: true, damping_from: Oscillator");
        let classical = run("damping_from: Oscillator");
        let exact = hertz_restitution(e, true);
        println!(
            "  {e:11.1} | {clamped:17.5} | {pull:15.5} | {classical_pull:26.5} \
             | {classical:18.5} | {exact:.5}"
        );
        within(clamped, e, 1e-3, &format!("e = {e} clamped"));
        within(pull, e, 1e-3, &format!("e = {e} with attraction"));
        within(
            classical_pull,
            e,
            0.01,
            &format!("e = {e} classical with attraction"),
        );
        within(
            classical,
            exact,
            0.01,
            &format!("e = {e} classical, clamped"),
        );
    }
}

/// Undamped, frictionless head-on impact: the ledger total after the collision equals the
/// total before, within 1e-4 at 50 steps per contact, and the error falls with the step.
#[test]
fn ledger_closes_through_an_elastic_impact() {
    let v = 1.0;
    let (_, _, duration) = hertz_theory(e_star(), R / 2.0, mass() / 2.0, 2.0 * v);
    println!("steps per contact | ledger error");
    let errors: Vec<f64> = [50.0, 100.0, 200.0]
        .iter()
        .map(|n| {
            let mut sim = head_on(v, duration / n, "");
            sim.step().unwrap();
            let before = sim.ledger.total();
            Collision::HeadOn { radius: R }.run(&mut sim, 20 * *n as u64);
            assert_eq!(sim.contacts.active(), 0);
            let err = ((sim.ledger.total() - before) / before).abs();
            println!("{n:>17} | {err:.3e}");
            err
        })
        .collect();
    assert!(errors[0] < 1e-4, "{errors:?}");
    assert!(errors[2] < errors[0], "{errors:?}");
}

/// An oblique impact with spin, damping, friction and rolling resistance: the dissipated
/// entries account for the lost energy within 1e-3 at 50 steps per contact.
#[test]
fn ledger_closes_with_damping_and_friction() {
    let v = 1.0;
    let (_, _, duration) = hertz_theory(e_star(), R, mass(), v);
    let dt = duration / 50.0;
    let mut sim = FloorScene {
        law: "Law2_L6Geom_HertzMindlin",
        params: "restitution: 0.5, rolling: Epsd(mu: 0.1), twisting: Cdt(mu: 0.05)",
        material: GLASS,
        radius: R,
        height: R + 5.37 * v * dt,
        velocity: [0.6, 0.2, -v],
        angular_velocity: [30.0, -50.0, 20.0],
        gravity: [0.0; 3],
        dt,
    }
    .build();
    sim.step().unwrap();
    let before = sim.ledger.total();
    Collision::Floor { radius: R }.run(&mut sim, 1000);
    assert_eq!(sim.contacts.active(), 0);
    let l = &sim.ledger;
    let lost = l.friction + l.damping;
    let err = (l.total() - before) / before;
    println!(
        "lost {:.4} of the energy (friction {:.3e} J, damping {:.3e} J); ledger error {err:.2e}",
        lost / before,
        l.friction,
        l.damping
    );
    assert!(l.friction > 0.01 * before && l.damping > 0.1 * before);
    assert!(err.abs() < 1e-3, "ledger error {err:e}");
}
