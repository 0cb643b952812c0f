//! The IPC barrier law: an elastic rebound whose closest approach follows from energy
//! balance, the step guard, and IPC's smooth friction on a slope (creep speed and
//! sliding).

use dem_verification::impact::FloorScene;
use std::f64::consts::PI;

const R: f64 = 0.01;
const KAPPA: f64 = 1e7;
const DHAT: f64 = 1e-4;
const MATERIAL: &str = "(density: 2500, young: 1e9, poisson: 0.25, friction: 0.3)";

fn mass() -> f64 {
    2500.0 * 4.0 / 3.0 * PI * R.powi(3)
}

fn beta(x: f64) -> f64 {
    -(x - 1.0).powi(2) * x.ln()
}

/// `x` in (0, 1) with `beta(x) = target`, by bisection (beta falls from +inf to 0).
fn beta_inverse(target: f64) -> f64 {
    let (mut lo, mut hi) = (1e-12, 1.0);
    for _ in 0..200 {
        let m = 0.5 * (lo + hi);
        if beta(m) > target {
            lo = m;
        } else {
            hi = m;
        }
    }
    0.5 * (lo + hi)
}

fn scene(params: &str, height: f64, v: [f64; 3], g: [f64; 3], dt: f64) -> dem_core::Simulation {
    FloorScene {
        law: "Law2_L6Geom_Barrier",
        params,
        material: MATERIAL,
        radius: R,
        height,
        velocity: v,
        angular_velocity: [0.0; 3],
        gravity: g,
        dt,
    }
    .build()
}

/// A sphere thrown at a wall at 1 m/s: (rebound / impact speed, smallest gap, ledger error).
fn throw(dt: f64) -> (f64, f64, f64) {
    let params = format!("kappa: {KAPPA}, dhat: {DHAT}");
    let mut sim = scene(&params, R + 2.0 * DHAT, [0.0, 0.0, -1.0], [0.0; 3], dt);
    sim.step().unwrap();
    let before = sim.ledger.total();
    let mut min_gap = f64::MAX;
    let v_in = -sim.particles.vel[0].z;
    while sim.particles.vel[0].z < 0.0 || sim.particles.pos[0].z < R + 2.0 * DHAT {
        sim.step().unwrap();
        min_gap = min_gap.min(sim.particles.pos[0].z - R);
        assert!(sim.step < 10_000_000);
    }
    let after = sim.ledger.total();
    (
        sim.particles.vel[0].z / v_in,
        min_gap,
        ((after - before) / before).abs(),
    )
}

#[test]
fn elastic_rebound_and_closest_approach() {
    let area = 2.0 * PI * R * DHAT;
    let energy = 0.5 * mass() * 1.0;
    let predicted = DHAT * beta_inverse(energy / (KAPPA * area * DHAT));
    println!("dt | rebound / impact | min gap (m) | predicted | ledger error");
    let mut rows = Vec::new();
    for dt in [4e-7, 2e-7, 1e-7] {
        let (e, gap, ledger) = throw(dt);
        println!("{dt:e} | {e:.9} | {gap:.6e} | {predicted:.6e} | {ledger:.2e}");
        assert!(gap > 0.0, "the gap never reaches zero");
        rows.push((e, gap, ledger));
    }
    let (e, gap, ledger) = rows[2];
    assert!((e - 1.0).abs() < 1e-6, "rebound {e}");
    assert!((gap / predicted - 1.0).abs() < 0.01, "{gap} vs {predicted}");
    assert!(ledger < 1e-4 && rows[2].2 < rows[0].2, "{rows:?}");
}

#[test]
fn a_step_too_large_for_the_barrier_is_refused() {
    let params = format!("kappa: {KAPPA}, dhat: {DHAT}");
    let mut sim = scene(&params, R + 2.0 * DHAT, [0.0, 0.0, -1.0], [0.0; 3], 5e-5);
    let e = sim.run_steps(1000).expect_err("refused").to_string();
    println!("{e}");
    assert!(
        e.contains("Law2_L6Geom_Barrier") && e.contains("stable step") && e.contains("contact 0-1"),
        "{e}"
    );
}

/// What a block (rotation locked) held by the barrier on a slope did between 0.05 s and
/// 0.1 s after release at its resting gap.
struct Incline {
    /// Distance moved down the slope, m.
    moved: f64,
    /// Speed at the end, m/s.
    v: f64,
    /// Mean acceleration, m/s^2.
    a: f64,
    /// Ledger error over the interval relative to the energy friction took in it.
    ledger: f64,
}

/// The block on a slope of `tan(theta) = tan` with the barrier law and `friction` (RON
/// fields of the law's friction parameters).
fn on_incline(friction: &str, tan: f64) -> Incline {
    let theta = tan.atan();
    let g = 9.81;
    let area = 2.0 * PI * R * DHAT;
    // Resting gap: the barrier's force equals the weight's normal part.
    let force = |x: f64| -KAPPA * area * (-2.0 * (x - 1.0) * x.ln() - (x - 1.0).powi(2) / x);
    let (mut lo, mut hi) = (1e-9, 1.0);
    for _ in 0..200 {
        let m = 0.5 * (lo + hi);
        if force(m) > mass() * g * theta.cos() {
            lo = m;
        } else {
            hi = m;
        }
    }
    let gap = DHAT * 0.5 * (lo + hi);
    let params = format!("kappa: {KAPPA}, dhat: {DHAT}, {friction}");
    let dt = 2e-6;
    let mut sim = scene(
        &params,
        R + gap,
        [0.0; 3],
        [g * theta.sin(), 0.0, -g * theta.cos()],
        dt,
    );
    sim.particles.blocked[0] = dem_core::model::particles::Dofs::parse("XYZ").unwrap();
    sim.run_steps((0.05 / dt) as u64).unwrap();
    let (x1, v1) = (sim.particles.pos[0].x, sim.particles.vel[0].x);
    let (total1, friction1) = (sim.ledger.total(), sim.ledger.friction);
    sim.run_steps((0.05 / dt) as u64).unwrap();
    let (x2, v2) = (sim.particles.pos[0].x, sim.particles.vel[0].x);
    let dissipated = sim.ledger.friction - friction1;
    Incline {
        moved: x2 - x1,
        v: v2,
        a: (v2 - v1) / 0.05,
        ledger: (sim.ledger.total() - total1).abs() / dissipated.max(f64::MIN_POSITIVE),
    }
}

/// `g (sin theta - mu cos theta)` for `tan theta = tan`.
fn sliding(tan: f64, mu: f64) -> f64 {
    let theta = tan.atan();
    9.81 * (theta.sin() - mu * theta.cos())
}

/// A block (rotation locked) held by the barrier on a slope: below `mu_s` it creeps at
/// `eps_v (1 - sqrt(1 - tan(theta)/mu_s))`; above `mu_s` it slides with
/// `g (sin - mu_k cos)`.
#[test]
fn smooth_friction_creeps_and_slides() {
    let (mu_s, mu_k, eps) = (0.5, 0.4, 1e-3);
    let friction = format!("mu_s: {mu_s}, mu_k: {mu_k}, eps_v: {eps}");
    let tan = 0.5 * mu_s;
    let creeping = on_incline(&friction, tan);
    let creep = eps * (1.0 - (1.0 - tan / mu_s).sqrt());
    println!(
        "creep at tan theta = mu_s / 2: {:.6e} m/s, predicted {creep:.6e}; ledger error / \
         friction dissipation {:.2e}",
        creeping.v, creeping.ledger
    );
    assert!(
        (creeping.v / creep - 1.0).abs() < 0.02,
        "{} vs {creep}",
        creeping.v
    );
    let slide = on_incline(&friction, 1.25 * mu_s);
    let expected = sliding(1.25 * mu_s, mu_k);
    println!(
        "sliding at tan theta = 1.25 mu_s: a = {:.6}, g (sin - mu_k cos) = {expected:.6}; \
         ledger error / friction dissipation {:.2e}",
        slide.a, slide.ledger
    );
    assert!(
        (slide.a / expected - 1.0).abs() < 0.01,
        "{} vs {expected}",
        slide.a
    );
    assert!(
        creeping.ledger < 1e-4 && slide.ledger < 1e-4,
        "ledger errors {:e}, {:e} of the dissipation",
        creeping.ledger,
        slide.ledger
    );
}

/// Yamane-Nakamura penalty friction on the barrier's normal force: sticks for
/// `tan(theta) <= mu_s`, slides with `g (sin - mu_d cos)` above.
#[test]
fn penalty_friction_on_the_barrier_sticks_and_slides() {
    let (mu_s, mu_d) = (0.5, 0.4);
    // k_fd near critical damping of the anchor spring, 2 sqrt(k_fp m).
    let k_fd = 2.0 * (1e4 * mass()).sqrt();
    let friction = format!(
        "penalty_friction: YamaneNakamura(k_fp: 1e4, k_fd: {k_fd}, mu_s: {mu_s}, \
         mu_d: {mu_d}, k_w: 1e4)"
    );
    let stick = on_incline(&friction, 0.8 * mu_s);
    println!(
        "tan theta = 0.8 mu_s: moved {:.3e} m in 0.05 s",
        stick.moved
    );
    assert!(stick.moved.abs() < 1e-7, "sticks, moved {}", stick.moved);
    let slide = on_incline(&friction, 1.2 * mu_s);
    let expected = sliding(1.2 * mu_s, mu_d);
    println!(
        "tan theta = 1.2 mu_s: a = {:.6}, g (sin - mu_d cos) = {expected:.6}; ledger error / \
         friction dissipation {:.2e}",
        slide.a, slide.ledger
    );
    assert!(
        (slide.a / expected - 1.0).abs() < 0.01,
        "{} vs {expected}",
        slide.a
    );
    assert!(slide.ledger < 1e-4, "ledger error {:e}", slide.ledger);
}
