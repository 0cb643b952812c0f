//! A sphere resting in the crease of two facets meeting at an angle: two contacts, one per
//! face, whose reactions balance the weight (each `m g / (2 cos a)` for faces inclined at
//! `a`), and the load reported on the mesh is the weight.

use dem_verification::mesh::{one_sphere_scene, write_obj, Boundary};
use dem_verification::sim_from_text;

#[test]
fn sphere_in_a_crease_carries_its_weight() {
    let a = 30f64.to_radians();
    let (r, g) = (0.005, 9.81);
    // Two planes through the y axis rising at angle a on either side, each of two facets.
    let (x, z) = (0.05 * a.cos(), 0.05 * a.sin());
    let v = [
        [0.0, -0.05, 0.0],
        [0.0, 0.05, 0.0],
        [-x, -0.05, z],
        [-x, 0.05, z],
        [x, -0.05, z],
        [x, 0.05, z],
    ];
    let crease = write_obj("crease", &v, &[[0, 1, 3], [0, 3, 2], [1, 0, 4], [1, 4, 5]]);
    let text = one_sphere_scene(
        &Boundary::Mesh(crease),
        // Frictionless, so that the split between the faces is determinate.
        "(density: 2500, young: 1e9, friction: 0.0)",
        "kn: 1e4, restitution: 0.3",
        [0.0, 0.013, r / a.cos()],
        r,
        [0.0; 3],
        [0.0, 0.0, -g],
        0.3,
        2e-5,
    );
    let mut sim = sim_from_text(&text, "mesh_crease.ron").unwrap();
    sim.run_steps(20_000).unwrap();
    let m = sim.particles.mass[0];
    let weight = m * g;
    let contact = sim.particles.force[0] - nalgebra::Vector3::new(0.0, 0.0, -weight);
    let live: Vec<_> = sim.contacts.live_forces().collect();
    let normal: Vec<f64> = live.iter().map(|(_, f)| f.force.norm()).collect();
    let load = sim.mesh_loads()[0];
    println!(
        "weight {weight:.6e} N, contact force sum {:?}, per contact {normal:?} (expected {:.6e}), mesh load {:?}",
        contact,
        weight / (2.0 * a.cos()),
        load.force
    );
    assert_eq!(live.len(), 2, "one contact per face");
    assert!((contact - nalgebra::Vector3::new(0.0, 0.0, weight)).norm() < 1e-6 * weight);
    for f in normal {
        assert!((f / (weight / (2.0 * a.cos())) - 1.0).abs() < 1e-3);
    }
    assert!(
        (load.force + contact).norm() < 1e-12 * weight,
        "mesh load = -contact"
    );
}
