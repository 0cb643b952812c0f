//! `rigid: true` on a material: a wall of that material is a rigid plane, the pair's
//! effective modulus is the sphere's alone (Hertz theory of a sphere on a rigid half-space),
//! and a rigid material on a body that contacts deform is refused.

use dem_verification::impact::Collision;
use dem_verification::sim_from_text;
use std::f64::consts::PI;

const R: f64 = 0.01;
const RHO: f64 = 2500.0;
const E: f64 = 1e8;
const NU: f64 = 0.25;

fn floor(law: &str, wall: &str, dt: f64) -> dem_core::Simulation {
    let text = format!(
        r#"Scene(
        materials: {{
            "ball": (density: {RHO}, young: {E}, poisson: {NU}),
            "floor": {wall},
        }},
        laws: [(materials: ("*", "*"), law: "{law}")],
        bodies: [
            Sphere(center: (0, 0, {z:e}), radius: {R}, material: "ball", velocity: (0, 0, -1)),
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "floor"),
        ],
        gravity: (0, 0, 0),
        timestep: Fixed({dt:e}),
        duration: Steps(1),
    )"#,
        z = R + 5.5 * dt
    );
    sim_from_text(&text, "rigid_wall.ron").unwrap()
}

/// Hertz theory of a sphere (radius R, mass m) at 1 m/s on a rigid half-space, with
/// `E* = E / (1 - nu^2)`: (peak force N, contact duration s).
fn hertz_on_rigid_plane() -> (f64, f64) {
    let m = RHO * 4.0 / 3.0 * PI * R.powi(3);
    let e_star = E / (1.0 - NU * NU);
    let delta = (15.0 * m / (16.0 * e_star * R.sqrt())).powf(0.4);
    (
        4.0 / 3.0 * e_star * R.sqrt() * delta.powf(1.5),
        2.9433 * delta,
    )
}

#[test]
fn a_rigid_wall_leaves_the_sphere_its_own_modulus() {
    let (force, duration) = hertz_on_rigid_plane();
    let dt = duration / 400.0;
    let run = |wall: &str| {
        let mut sim = floor("Law2_L6Geom_HertzMindlin", wall, dt);
        Collision::Floor { radius: R }.run(&mut sim, 10_000)
    };
    let rigid = run("(density: 7800, rigid: true)");
    // The same wall with the sphere's own elasticity: E* halves, the contact lasts longer.
    let soft = run(&format!("(density: 7800, young: {E}, poisson: {NU})"));
    println!(
        "rigid wall: peak {:.4} N (theory {force:.4}), duration {:.4e} s (theory {duration:.4e}); \
         elastic wall: peak {:.4} N, {:.4e} s",
        rigid.peak_force, rigid.duration, soft.peak_force, soft.duration
    );
    assert!((rigid.peak_force / force - 1.0).abs() < 2e-3);
    assert!((rigid.duration / duration - 1.0).abs() < 2e-3);
    // E* / 2: duration (E*)^(-2/5) longer.
    assert!((soft.duration / duration / 2f64.powf(0.4) - 1.0).abs() < 2e-3);
    // The linear law: k_n = 2 E r of the sphere alone (the wall's spring is infinitely stiff),
    // half a period pi sqrt(m / k_n).
    let m = RHO * 4.0 / 3.0 * PI * R.powi(3);
    let half_period = PI * (m / (2.0 * E * R)).sqrt();
    let mut sim = floor(
        "Law2_L6Geom_LinearElPl",
        "(density: 7800, rigid: true)",
        half_period / 400.0,
    );
    let linear = Collision::Floor { radius: R }.run(&mut sim, 10_000);
    assert!((linear.duration / half_period - 1.0).abs() < 2e-3);
}

#[test]
fn rigid_materials_are_checked() {
    let bad = |ball: &str, floor: &str| {
        let text = format!(
            r#"Scene(
            materials: {{ "ball": {ball}, "floor": {floor} }},
            laws: [(materials: ("*", "*"), law: "Law2_L6Geom_HertzMindlin")],
            bodies: [
                Sphere(center: (0, 0, 0.02), radius: {R}, material: "ball"),
                Wall(point: (0, 0, 0), normal: (0, 0, 1), material: "floor"),
            ],
            timestep: Fixed(1e-6),
            duration: Steps(1),
        )"#
        );
        match sim_from_text(&text, "rigid.ron") {
            Ok(_) => panic!("{ball} / {floor} accepted"),
            Err(e) => e.to_string(),
        }
    };
    let ball = "(density: 2500, young: 1e8)";
    let e = bad(ball, "(density: 7800, young: 2e11, rigid: true)");
    assert!(
        e.contains("materials.floor") && e.contains("contradict"),
        "{e}"
    );
    let e = bad(ball, "(density: 7800)");
    assert!(
        e.contains("materials.floor") && e.contains("young is missing"),
        "{e}"
    );
    let e = bad(
        "(density: 2500, rigid: true)",
        "(density: 7800, rigid: true)",
    );
    assert!(
        e.contains("materials.ball")
            && e.contains("walls and mesh facets only")
            && e.contains("Sphere"),
        "{e}"
    );
}
