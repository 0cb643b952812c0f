//! A sphere on an inclined wall: rolls without slipping at (5/7) g sin(theta) when
//! tan(theta) < 3.5 mu, slides at g (sin(theta) - mu cos(theta)) above.

use dem_verification::sim_from_text;

/// Least-squares acceleration of the position along the slope.
fn acceleration(theta_deg: f64, mu: f64) -> f64 {
    let th = theta_deg.to_radians();
    let r = 0.01;
    let (nx, nz) = (th.sin(), th.cos()); // wall normal tilted about y: slope descends along +x
    let dt = 2e-6;
    let start = 0.0005;
    let scene = format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e9, friction: {mu}) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
                params: (kn: 1e6, kt_kn: 1.0, restitution: 0.3))],
        bodies: [
            Sphere(center: ({cx}, 0, {cz}), radius: {r}, material: "m"),
            Wall(point: (0, 0, 0), normal: ({nx}, 0, {nz}), sense: 1, material: "m"),
        ],
        gravity: (0, 0, -9.81),
        timestep: Fixed({dt}),
        duration: Steps(1),
    )"#,
        cx = nx * (r - 1e-6),
        cz = nz * (r - 1e-6),
    );
    let mut sim = sim_from_text(&scene, "incline.ron").unwrap();
    let down = nalgebra::Vector3::new(nz, 0.0, -nx);
    // Let the normal contact settle, then fit s(t) = s0 + v0 t + a t^2 / 2.
    let settle = (start / dt) as u64;
    sim.run_steps(settle).unwrap();
    let (mut sums, mut rhs) = (
        nalgebra::Matrix3::<f64>::zeros(),
        nalgebra::Vector3::<f64>::zeros(),
    );
    for _ in 0..100_000 {
        sim.step().unwrap();
        let t = sim.time;
        let s = down.dot(&sim.particles.pos[0]);
        let basis = nalgebra::Vector3::new(1.0, t, 0.5 * t * t);
        sums += basis * basis.transpose();
        rhs += basis * s;
    }
    assert_eq!(sim.contacts.active(), 1, "still on the slope");
    sums.lu().solve(&rhs).expect("fit")[2]
}

#[test]
fn rolls_without_slipping_below_the_limit() {
    let (theta, mu) = (20.0f64, 0.5);
    assert!(theta.to_radians().tan() < 3.5 * mu);
    let a = acceleration(theta, mu);
    let expected = 5.0 / 7.0 * 9.81 * theta.to_radians().sin();
    println!("rolling: a = {a:.6}, (5/7) g sin = {expected:.6}");
    assert!((a - expected).abs() < 0.01 * expected, "{a} vs {expected}");
}

#[test]
fn slides_above_the_limit() {
    let (theta, mu) = (30.0f64, 0.1);
    assert!(theta.to_radians().tan() > 3.5 * mu);
    let a = acceleration(theta, mu);
    let th = theta.to_radians();
    let expected = 9.81 * (th.sin() - mu * th.cos());
    println!("sliding: a = {a:.6}, g (sin - mu cos) = {expected:.6}");
    assert!((a - expected).abs() < 0.01 * expected, "{a} vs {expected}");
}
