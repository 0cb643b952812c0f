//! Gravity along a periodic edge: a sphere rolls down a slope that never ends, a flat floor
//! in a cell periodic along x under gravity tilted by theta. Through every wrap across the
//! x faces it keeps the closed-form acceleration of rolling without slipping,
//! (5/7) g sin(theta) (tan(theta) < 3.5 mu), and the ledger stays closed: each wrap's
//! jump of potential energy is booked as boundary work.

use dem_verification::sim_from_text;

const R: f64 = 0.01;
const L: f64 = 0.045;
const DT: f64 = 1e-5;

/// A sphere resting on the floor of a cell periodic along x and y, gravity tilted by
/// `theta` (degrees) about y so that the slope descends along +x.
fn slope(theta: f64, mu: f64) -> String {
    let th = theta.to_radians();
    format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e9, friction: {mu}) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
                params: (kn: 1e6, kt_kn: 1.0, restitution: 0.3))],
        bodies: [
            Sphere(center: (0.02, 0.02, {z}), radius: {R}, material: "m"),
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
        ],
        cell: (edges: (({L}, 0, 0), (0, {L}, 0), (0, 0, 0.1)), periodic: "xy"),
        gravity: ({gx}, 0, {gz}),
        timestep: Fixed({DT}),
        duration: Steps(1),
    )"#,
        z = R - 1e-6,
        gx = 9.81 * th.sin(),
        gz = -9.81 * th.cos(),
    )
}

#[test]
fn a_sphere_rolls_down_a_periodic_slope_at_the_closed_form_rate_with_the_ledger_closed() {
    let (theta, mu) = (20.0f64, 0.5);
    assert!(theta.to_radians().tan() < 3.5 * mu);
    let mut sim = sim_from_text(&slope(theta, mu), "slope.ron").unwrap();
    // Let the normal contact settle.
    sim.run_steps(50).unwrap();
    let start = sim.ledger.total();
    let released_per_metre = sim.particles.mass[0] * 9.81 * theta.to_radians().sin();
    // Fit the unwrapped distance s(t) = s0 + v0 t + a t^2 / 2 while counting the wraps.
    let (mut sums, mut rhs) = (
        nalgebra::Matrix3::<f64>::zeros(),
        nalgebra::Vector3::<f64>::zeros(),
    );
    let (mut last, mut turns, mut worst) = (sim.particles.pos[0].x, 0i32, 0.0f64);
    for _ in 0..40_000 {
        sim.step().unwrap();
        let x = sim.particles.pos[0].x;
        if x < last - L / 2.0 {
            turns += 1;
        }
        last = x;
        let t = sim.time;
        let s = x + turns as f64 * L;
        let basis = nalgebra::Vector3::new(1.0, t, 0.5 * t * t);
        sums += basis * basis.transpose();
        rhs += basis * s;
        worst = worst.max((sim.ledger.total() - start).abs());
    }
    assert_eq!(sim.contacts.active(), 1, "still on the floor");
    let a = sums.lu().solve(&rhs).expect("fit")[2];
    let expected = 5.0 / 7.0 * 9.81 * theta.to_radians().sin();
    let travelled = sim.particles.pos[0].x + turns as f64 * L - 0.02;
    let released = released_per_metre * travelled;
    println!(
        "{turns} wraps, a = {a:.6} m/s^2 against (5/7) g sin = {expected:.6}, \
         largest ledger error {worst:.3e} J of {released:.3e} J released, boundary work {:.3e} J",
        sim.ledger.boundary_work
    );
    assert!(turns >= 3, "{turns} wraps");
    assert!((a - expected).abs() < 0.01 * expected, "{a} vs {expected}");
    // Without the booking, each wrap would add m g sin(theta) L to the total.
    assert!(worst < 1e-6 * released, "{worst:e} J vs {released:e} J");
    assert!(
        (sim.ledger.boundary_work / (released_per_metre * turns as f64 * L) - 1.0).abs() < 1e-9,
        "the boundary work is the wraps' potential jumps"
    );
}
