//! The stress tensor (`crates/dem-core/src/stress.rs`) against closed forms: a simple
//! cubic lattice in a periodic cell, pressed so that every contact carries `f = kn delta`
//! (sigma = f / d^2 on the diagonal, volume fraction pi/6 (2R/d)^3, six contacts per
//! sphere); a boxed sample at rest under gravity in a box of frictionless walls, whose
//! vertical stress times its volume is `g sum m z` (the weight times the height of the
//! centre of mass, floor at z = 0: walls that carry no weight by friction) and whose
//! horizontal stress is the force on a side wall over its area.

use dem_core::engines::stress::{Region, Stress};
use dem_core::model::particles::Shape;
use dem_verification::sim_from_text;

const KN: f64 = 1e4;

#[test]
fn a_pressed_periodic_lattice_has_the_closed_form_stress() {
    let (r, d, n) = (0.001, 0.00199, 4);
    let text = format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e8, poisson: 0.25, friction: 0.5) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kn: {KN:e}))],
        bodies: [Lattice(origin: ({h:e}, {h:e}, {h:e}), count: ({n}, {n}, {n}), spacing: {d:e},
                         radius: {r:e}, material: "m")],
        cell: (edges: (({c:e}, 0, 0), (0, {c:e}, 0), (0, 0, {c:e})), periodic: "xyz"),
        gravity: (0, 0, 0),
        timestep: Fixed(1e-7),
        duration: Steps(1),
    )"#,
        h = d / 2.0,
        c = n as f64 * d,
    );
    let mut sim = sim_from_text(&text, "lattice.ron").unwrap();
    sim.step().unwrap();
    assert_eq!(sim.live_contacts, 3 * n * n * n, "six contacts per sphere");
    let s = Stress::of(&sim, None).unwrap();
    let f = KN * (2.0 * r - d);
    let expected = f / (d * d);
    for i in 0..3 {
        for j in 0..3 {
            let want = if i == j { expected } else { 0.0 };
            let got = s.contact[(i, j)];
            assert!(
                (got - want).abs() <= 1e-9 * expected,
                "sigma[{i}][{j}] = {got:e}, want {want:e}"
            );
        }
    }
    assert!((s.pressure() - expected).abs() <= 1e-9 * expected);
    assert!(s.deviator() <= 1e-9 * expected);
    let phi = std::f64::consts::PI / 6.0 * (2.0 * r / d).powi(3);
    assert!((s.fraction - phi).abs() <= 1e-12, "{} vs {phi}", s.fraction);
    assert_eq!(s.coordination, 6.0);
    assert_eq!(s.particles, n * n * n);
}

#[test]
fn a_boxed_sample_at_rest_carries_its_weight() {
    let (lx, lz) = (0.01, 0.03);
    let text = dem_verification::boxed_sample(lx, lz, 0.25);
    let mut sim = sim_from_text(&text, "box.ron").unwrap();
    let steps = sim.end_step;
    sim.run_steps(steps).unwrap();
    let p = &sim.particles;
    let weight_height: f64 = (0..p.len())
        .filter(|&i| matches!(p.shape[i], Shape::Sphere(_)))
        .map(|i| p.mass[i] * 9.81 * p.pos[i].z)
        .sum();
    let region = Region {
        min: [0.0; 3],
        max: [lx, lx, lz],
    };
    let s = Stress::of(&sim, Some(&region)).unwrap();
    let v = lx * lx * lz;
    let zz = s.sigma[(2, 2)] * v;
    eprintln!(
        "sigma_zz V = {zz:e} J, g sum m z = {weight_height:e} J; kinetic {:e}",
        sim.ledger.kinetic
    );
    assert!(
        (zz / weight_height - 1.0).abs() < 0.01,
        "{zz:e} vs {weight_height:e}"
    );
    // The side wall at x = lx: sigma_xx V = its force times lx (the wall at x = 0 has
    // no lever arm).
    let wall = (0..p.len())
        .find(|&i| matches!(p.shape[i], Shape::Wall(_)) && p.pos[i].x == lx)
        .unwrap() as u32;
    let push: f64 = sim
        .contacts
        .live_forces()
        .filter(|(c, _)| c.a == wall || c.b == wall)
        .map(|(c, pushed)| {
            let (b1, _) = c.bodies();
            // The force on the sphere, along x.
            let f = pushed.force;
            let on_sphere = if b1 as u32 == wall { f } else { -f };
            -on_sphere.x
        })
        .sum();
    // The sample still rattles a little (kinetic energy ~1e-10 J), and the identity holds
    // with the particles' inertia: the contact part is the walls' moment plus
    // sum_p x_p F_p, the particles' net forces of the last step (m a: no weight along x)
    // times their positions (taken after the step: dt v off, 1e-6 of the sum here).
    let xx = s.contact[(0, 0)] * v;
    let inertial: f64 = (0..p.len())
        .filter(|&i| matches!(p.shape[i], Shape::Sphere(_)))
        .map(|i| p.pos[i].x * p.force[i].x)
        .sum();
    let walls = push * lx;
    eprintln!(
        "contact part of sigma_xx V = {xx:e}, wall force x lx = {walls:e}, inertia {inertial:e}"
    );
    assert!(push > 0.0);
    assert!(
        (xx / (walls + inertial) - 1.0).abs() < 1e-4,
        "{xx:e} vs {walls:e} + {inertial:e}"
    );
}
