//! A floor moving at constant speed V hits a sphere at rest: an undamped contact sends the
//! sphere off at 2V, and the work the moving wall did is booked so the ledger closes.

use dem_verification::sim_from_text;
use std::f64::consts::PI;

#[test]
fn moving_wall_work_is_booked() {
    let (r, rho, kn, v) = (0.01, 2500.0, 1e5, 0.3);
    let m = rho * 4.0 / 3.0 * PI * r * r * r;
    let dt = PI * (m / kn).sqrt() / 400.0;
    let scene = format!(
        r#"Scene(
        materials: {{ "m": (density: {rho}, young: 1e9, friction: 0.5) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kn: {kn}))],
        bodies: [
            Sphere(center: (0, 0, {z}), radius: {r}, material: "m"),
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m", velocity: (0, 0, {v})),
        ],
        timestep: Fixed({dt}),
        duration: Steps(1),
    )"#,
        z = r + 30.0 * v * dt,
    );
    let mut sim = sim_from_text(&scene, "moving_wall.ron").unwrap();
    sim.run_steps(30 + 3 * 400).unwrap();
    assert_eq!(sim.contacts.active(), 0, "collision over");
    let up = sim.particles.vel[0].z;
    let l = sim.ledger;
    println!(
        "rebound {up:.9} m/s (2V = {}), boundary work {:.9e} J, kinetic {:.9e} J",
        2.0 * v,
        l.boundary_work,
        l.kinetic
    );
    assert!((up / (2.0 * v) - 1.0).abs() < 1e-4, "rebound {up}");
    // Everything the sphere gained came from the wall: total = kinetic - boundary work = 0.
    assert!(l.boundary_work > 0.0);
    assert!(
        l.total().abs() < 1e-4 * l.kinetic,
        "ledger total {:e} vs kinetic {:e}",
        l.total(),
        l.kinetic
    );
}
