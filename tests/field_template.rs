//! `examples/field-template` (moisture passing between grains through their contacts),
//! built out of tree as a researcher would and loaded into an unchanged solver: two
//! grains pressed together relax towards their mean moisture with the time constant of
//! the model, `m / (2 g a)` (capacity 1), computed here; the water is kept.

use dem_core::scene::Scene;
use dem_core::setup::plugins::PluginSet;
use dem_core::Simulation;
use dem_verification::{build_out_of_tree, plugins, root};
use std::f64::consts::PI;
use std::path::Path;

#[test]
fn the_template_moisture_relaxes_with_the_closed_form_time_constant() {
    let lib = build_out_of_tree(&root().join("examples/field-template"), "field_template");
    let mut set: PluginSet = plugins().clone();
    set.load(&lib).unwrap();
    let (r, overlap, density, g): (f64, f64, f64, f64) = (2e-3, 1e-6, 1500.0, 2e-2);
    let x = r - overlap / 2.0;
    let (dt, steps) = (1e-2, 3000u64);
    let text = format!(
        r#"Scene(
    materials: {{ "grain": (density: {density}, young: 1e7, friction: 0.5) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
    fields: {{ "moisture": (capacity: {{"grain": 1}}, initial: 0.02,
        set: [(region: Box(min: (0, -1, -1), max: (1, 1, 1)), value: 0.12)]) }},
    exchanges: [(materials: ("grain", "grain"), exchange: "Exchange_Moisture", params: (g: {g}))],
    bodies: [
        Sphere(center: (-{x}, 0, 0), radius: {r}, material: "grain", blocked: "xyzXYZ"),
        Sphere(center: ({x}, 0, 0), radius: {r}, material: "grain", blocked: "xyzXYZ"),
    ],
    timestep: Fixed({dt}),
    duration: Steps({steps}),
)"#
    );
    let scene = Scene::parse(&text, Path::new("grains.ron")).unwrap();
    let mut sim = Simulation::new(scene, &set).unwrap();
    sim.run_steps(steps).unwrap();
    let f = sim.exchanges.field("moisture").unwrap();
    let w = &sim.particles.fields[f];
    // a = sqrt(R* delta), R* = r / 2; each grain holds m w of water.
    let m = density * 4.0 / 3.0 * PI * r.powi(3);
    let a = (r / 2.0 * overlap).sqrt();
    let tau = m / (2.0 * g * a);
    let ratio = (w[1] - w[0]) / 0.1;
    let measured = -(steps as f64) * dt / ratio.ln();
    println!("tau = {tau:.4} s (closed form), {measured:.4} s (run); difference now {ratio:.5} of the first");
    assert!(
        ratio > 0.1 && ratio < 0.9,
        "the run covers a part of a time constant"
    );
    assert!((measured / tau - 1.0).abs() < 2e-3, "{measured} vs {tau}");
    let water = m * (w[0] + w[1]);
    assert!(
        (water / (m * 0.14) - 1.0).abs() < 1e-13,
        "the water is kept"
    );
}
