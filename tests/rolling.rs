//! Friction and rolling resistance of a sphere on a floor, against rigid-body closed forms:
//! sliding turns into rolling at `5/7 v0` after `2 v0 / (7 mu g)`; constant directional
//! torque stops a rolling sphere after `7 v^2 / (10 mu_r g)`; a sphere is held on a slope
//! with `tan theta <= mu_r` and rolls down with `a = 5/7 g (sin theta - mu_r cos theta)`
//! on a steeper one.

use dem_verification::impact::FloorScene;
use std::f64::consts::PI;

const R: f64 = 0.01;
const G: f64 = 9.81;
const RHO: f64 = 2800.0;
const E: f64 = 1e8;
const NU: f64 = 0.3;
const MATERIAL: &str = "(density: 2800, young: 1e8, poisson: 0.3, friction: 0.3)";
const DT: f64 = 5e-5;

/// A sphere resting on the floor (at its Hertz equilibrium overlap under gravity `g_n`
/// along the normal), moving with `v` and `w`; gravity `g_t` along x.
fn on_floor(params: &str, v: f64, w: f64, g_t: f64, g_n: f64, dt: f64) -> dem_core::Simulation {
    let m = RHO * 4.0 / 3.0 * PI * R.powi(3);
    let kh = 4.0 / 3.0 * E / (2.0 * (1.0 - NU * NU)) * R.sqrt();
    let overlap = (m * g_n / kh).powf(2.0 / 3.0);
    FloorScene {
        law: "Law2_L6Geom_HertzMindlin",
        params,
        material: MATERIAL,
        radius: R,
        height: R - overlap,
        velocity: [v, 0.0, 0.0],
        angular_velocity: [0.0, w, 0.0],
        gravity: [g_t, 0.0, -g_n],
        dt,
    }
    .build()
}

/// Runs until `f` changes sign from positive; returns the time and the value of `at` there,
/// both interpolated within the step.
fn until_zero(
    sim: &mut dem_core::Simulation,
    f: impl Fn(&dem_core::Simulation) -> f64,
    at: impl Fn(&dem_core::Simulation) -> f64,
    max_time: f64,
) -> (f64, f64) {
    let (mut f0, mut a0, mut t0) = (f(sim), at(sim), sim.time);
    while sim.time < max_time {
        sim.step().unwrap();
        let (f1, a1) = (f(sim), at(sim));
        if f1 <= 0.0 {
            let s = f0 / (f0 - f1);
            return (t0 + s * (sim.time - t0), a0 + s * (a1 - a0));
        }
        (f0, a0, t0) = (f1, a1, sim.time);
    }
    panic!("no sign change before t = {max_time}");
}

fn within(measured: f64, expected: f64, tol: f64, what: &str) {
    println!("{what}: {measured:.6e} (expected {expected:.6e})");
    assert!(
        (measured / expected - 1.0).abs() < tol,
        "{what}: measured {measured:e}, expected {expected:e}"
    );
}

#[test]
fn sliding_turns_into_rolling() {
    let (v0, mu) = (1.0, 0.3);
    let mut sim = on_floor("restitution: 0.5", v0, 0.0, 0.0, G, DT);
    // Slip velocity of the contact point; the velocity at the instant it vanishes.
    let slip = |s: &dem_core::Simulation| s.particles.vel[0].x - s.particles.angvel[0].y * R;
    let (t, v) = until_zero(&mut sim, slip, |s| s.particles.vel[0].x, 1.0);
    within(t, 2.0 * v0 / (7.0 * mu * G), 0.01, "sliding time");
    within(v, 5.0 / 7.0 * v0, 0.01, "rolling speed");
    // And it keeps rolling at that speed.
    sim.run_steps(1000).unwrap();
    within(sim.particles.vel[0].x, 5.0 / 7.0 * v0, 0.01, "speed later");
}

#[test]
fn constant_directional_torque_stops_a_rolling_sphere() {
    let (v, mu_r) = (0.1, 0.1);
    let mut sim = on_floor(
        "restitution: 0.5, rolling: Cdt(mu: 0.1)",
        v,
        v / R,
        0.0,
        G,
        DT,
    );
    let (_, x) = until_zero(
        &mut sim,
        |s| s.particles.vel[0].x,
        |s| s.particles.pos[0].x,
        2.0,
    );
    within(
        x,
        7.0 * v * v / (10.0 * mu_r * G),
        0.01,
        "stopping distance",
    );
    // It stays stopped.
    sim.run_steps(2000).unwrap();
    assert!(
        sim.particles.vel[0].x.abs() < 1e-6,
        "{}",
        sim.particles.vel[0].x
    );
}

/// A sphere released at rest on a slope with `tan theta = ratio mu_r`: its displacement
/// and mean acceleration between `t1` and `t2` (after the release transient, in which the
/// tangential spring loads), and the closed-form acceleration when rolling.
fn slope(model: &str, ratio: f64, dt: f64) -> (f64, f64, f64) {
    let (mu_r, t1, t2) = (0.1, 0.1, 0.3);
    let theta = (ratio * mu_r).atan();
    let params = format!("restitution: 0.5, rolling: {model}(mu: {mu_r})");
    let mut sim = on_floor(&params, 0.0, 0.0, G * theta.sin(), G * theta.cos(), dt);
    sim.run_steps((t1 / dt).round() as u64).unwrap();
    let (x1, v1) = (sim.particles.pos[0].x, sim.particles.vel[0].x);
    sim.run_steps(((t2 - t1) / dt).round() as u64).unwrap();
    let (x2, v2) = (sim.particles.pos[0].x, sim.particles.vel[0].x);
    let rolling = 5.0 / 7.0 * G * (theta.sin() - mu_r * theta.cos());
    (x2 - x1, (v2 - v1) / (t2 - t1), rolling)
}

#[test]
fn rolling_resistance_holds_a_sphere_on_a_gentle_slope() {
    for model in ["Cdt", "Epsd"] {
        // Held: compare with the distance covered rolling without resistance.
        let (dx, _, _) = slope(model, 0.8, DT);
        let theta = (0.08f64).atan();
        let free = 5.0 / 14.0 * G * theta.sin() * (0.3f64.powi(2) - 0.1f64.powi(2));
        println!("{model}: tan theta = 0.8 mu_r, moved {dx:.3e} m where free rolling covers {free:.3e} m");
        assert!(dx.abs() < 1e-3 * free, "{model}: moved {dx}");
        // Rolls on a steeper slope, with the closed-form acceleration.
        let (_, a, expected) = slope(model, 1.25, DT);
        within(
            a,
            expected,
            0.01,
            &format!("{model}: acceleration at tan theta = 1.25 mu_r"),
        );
    }
    // CDT holds by a torque that lags by one step: the creep is proportional to dt.
    let (coarse, _, _) = slope("Cdt", 0.8, DT);
    let (fine, _, _) = slope("Cdt", 0.8, DT / 2.0);
    println!("CDT creep: {coarse:.3e} m at dt, {fine:.3e} m at dt/2");
    assert!(fine.abs() < 0.6 * coarse.abs());
}
