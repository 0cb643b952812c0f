//! `restitution: e` is the coefficient the collision delivers: normal impacts of the linear
//! and Hertz-Mindlin laws, sphere-sphere and sphere-wall, rebound with the requested `e`
//! (clamped at zero, the default); an oblique impact in the sliding regime matches the
//! rigid-body closed form of its tangential rebound, which needs the same `e` and a Coulomb
//! limit on the normal force the law reports.

use dem_verification::impact::{Collision, Impact};
use dem_verification::sim_from_text;

const R: f64 = 0.01;
const LAWS: [&str; 2] = ["Law2_L6Geom_LinearElPl", "Law2_L6Geom_HertzMindlin"];

/// A normal impact at 1 m/s (relative) with `law` and `params`, at step `dt`; sphere-sphere
/// head-on along x, or a sphere falling on a wall; `friction` the materials'.
fn impact(law: &str, params: &str, wall: bool, dt: f64, friction: f64) -> Impact {
    let material = format!("(density: 2500, young: 1e8, poisson: 0.25, friction: {friction})");
    // Five steps of flight at 1 m/s before touching.
    let gap = 5.5 * dt;
    let (bodies, collision) = if wall {
        (
            format!(
                "Sphere(center: (0, 0, {z:e}), radius: {R}, material: \"m\", velocity: (0, 0, -1)),
                 Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: \"m\"),",
                z = R + gap
            ),
            Collision::Floor { radius: R },
        )
    } else {
        (
            format!(
                "Sphere(center: (0, 0, 0), radius: {R}, material: \"m\", velocity: (0.5, 0, 0)),
                 Sphere(center: ({x:e}, 0, 0), radius: {R}, material: \"m\", velocity: (-0.5, 0, 0)),",
                x = 2.0 * R + gap
            ),
            Collision::HeadOn { radius: R },
        )
    };
    let text = format!(
        r#"Scene(
        materials: {{ "m": {material} }},
        laws: [(materials: ("*", "*"), law: "{law}", params: ({params}))],
        bodies: [{bodies}],
        gravity: (0, 0, 0),
        timestep: Fixed({dt:e}),
        duration: Steps(1),
    )"#
    );
    one_thread(|| {
        let mut sim = sim_from_text(&text, "restitution.ron").unwrap();
        collision.run(&mut sim, 100_000)
    })
}

/// Runs `f` on one thread: two bodies gain nothing from a team.
fn one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(f)
}

/// The rebound of a normal impact at 200 steps per contact: a first run measures the
/// contact's duration, the second runs at a two-hundredth of it.
fn rebound(law: &str, params: &str, wall: bool) -> f64 {
    let first = impact(law, params, wall, 1e-6, 0.0);
    impact(law, params, wall, first.duration / 200.0, 0.0).rebound
}

/// Requested vs achieved restitution, both laws, both pairs, the new definition against
/// the requested value, the old one printed beside it.
#[test]
fn normal_impacts_rebound_with_the_requested_coefficient() {
    println!("law | pair | e requested | achieved | with damping_from: Oscillator");
    let mut failures = Vec::new();
    for law in LAWS {
        for wall in [false, true] {
            for e in [0.1, 0.3, 0.5, 0.7, 0.9, 0.99] {
                let achieved = rebound(law, &format!("restitution: {e}"), wall);
                let old = rebound(
                    law,
                    &format!("restitution: {e}, damping_from: Oscillator"),
                    wall,
                );
                let pair = if wall { "sphere-wall" } else { "sphere-sphere" };
                println!("{law} | {pair} | {e} | {achieved:.5} | {old:.5}");
                if (achieved - e).abs() > 1e-3 {
                    failures.push(format!("{law} {pair}: e {e} gave {achieved}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A sphere hits a wall at 45 degrees with back-spin, so that its contact point slides
/// throughout the impact: the Coulomb impulse is `mu` times the normal impulse
/// `m (1 + e) v_n`, and the tangential velocity of the centre rebounds with
/// `e_t = 1 - mu (1 + e) / tan(theta)`, theta the angle of incidence from the normal.
#[test]
fn oblique_sliding_impact_matches_the_rigid_body_closed_form() {
    let (mu, e, v_n, v_t) = (0.5, 0.5, 1.0, 2.0);
    // Back-spin: the contact point's velocity 1 + 3 m/s, more than the Coulomb impulse
    // can stop ((7/2) mu (1 + e) v_n = 2.6 m/s).
    let spin = -10.0 / R;
    let expected = 1.0 - mu * (1.0 + e) / (v_t / v_n);
    println!("law | e_t achieved | closed form {expected:.5}");
    let mut failures = Vec::new();
    for law in LAWS {
        for damping_from in ["Collision", "Oscillator"] {
            let run = |dt: f64| {
                let text = format!(
                    r#"Scene(
                    materials: {{ "m": (density: 2500, young: 1e8, poisson: 0.25, friction: {mu}) }},
                    laws: [(materials: ("*", "*"), law: "{law}",
                            params: (restitution: {e}, damping_from: {damping_from}{extra}))],
                    bodies: [
                        Sphere(center: (0, 0, {z:e}), radius: {R}, material: "m",
                               velocity: ({v_t}, 0, -{v_n}), angular_velocity: (0, {spin}, 0)),
                        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
                    ],
                    gravity: (0, 0, 0),
                    timestep: Fixed({dt:e}),
                    duration: Steps(1),
                )"#,
                    z = R + 5.5 * v_n * dt,
                    // A tangential spring as stiff as the normal one, as Hertz-Mindlin's.
                    extra = if law == LAWS[0] { ", kt_kn: 1" } else { "" },
                );
                one_thread(|| {
                    let mut sim = sim_from_text(&text, "oblique.ron").unwrap();
                    let impact = Collision::Floor { radius: R }.run(&mut sim, 100_000);
                    let w = sim.particles.angvel[0].y;
                    // Still sliding at the end: the contact point moves forward.
                    assert!(sim.particles.vel[0].x - w * R > 0.0, "{law}: not sliding");
                    println!(
                        "  normal rebound {:.5}, angular velocity {w:.3}",
                        impact.rebound
                    );
                    (sim.particles.vel[0].x / v_t, impact.duration)
                })
            };
            let (_, duration) = run(1e-6);
            let (e_t, _) = run(duration / 200.0);
            println!("{law} ({damping_from}) | {e_t:.5}");
            if damping_from == "Collision" && (e_t / expected - 1.0).abs() >= 5e-3 {
                failures.push(format!("{law}: e_t {e_t}, closed form {expected}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
