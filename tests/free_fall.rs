//! Free fall: the leap-frog trajectory against its closed-form discrete solution and the
//! analytic parabola.
//!
//! Convention: a scene's velocity is v(-dt/2). The discrete solution is then
//! `z_n = z_0 + n v dt + g dt^2 n (n + 1) / 2`, which is exactly the parabola with
//! `v(0) = v + g dt / 2`; against the parabola with `v(0) = v` it is ahead by `g dt t / 2`.

use dem_verification::sim_from_text;

#[test]
fn free_fall_matches_discrete_and_analytic_solutions() {
    let dt = 1e-4;
    let scene = format!(
        r#"Scene(
        materials: {{ "m": (density: 1000, young: 1e6) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
        bodies: [Sphere(center: (0.5, -1, 100), radius: 0.1, material: "m", velocity: (1, 0, 2))],
        gravity: (0, 0, -9.81),
        timestep: Fixed({dt}),
        duration: Steps(100000),
    )"#
    );
    let mut sim = sim_from_text(&scene, "free_fall.ron").unwrap();
    let e0 = {
        sim.step().unwrap();
        sim.ledger.total()
    };
    sim.run_steps(99_999).unwrap();
    let n = 100_000.0;
    let g = -9.81;
    let t = n * dt;
    let z = sim.particles.pos[0].z;
    let discrete = 100.0 + n * 2.0 * dt + g * dt * dt * n * (n + 1.0) / 2.0;
    assert!(
        ((z - discrete) / discrete).abs() < 1e-10,
        "z {z} vs discrete {discrete}"
    );
    let x = sim.particles.pos[0].x;
    assert!((x - (0.5 + t)).abs() < 1e-10 * (0.5 + t));
    // Against the parabola with v(0) = v: the O(dt) offset g dt t / 2, no more.
    let parabola = 100.0 + 2.0 * t + 0.5 * g * t * t;
    let offset = 0.5 * g * dt * t;
    assert!(
        (z - parabola - offset).abs() < 1e-10 * z.abs(),
        "offset {} vs {offset}",
        z - parabola
    );
    // The ledger (kinetic m/2 v- . v+ plus potential at t) is conserved to round-off.
    let rel = (sim.ledger.total() - e0).abs() / e0.abs();
    assert!(rel < 1e-11, "ledger drift {rel:e}");
}
