//! `dem check`: what a scene loads to (particles, time step, inlets and outlets, fluid,
//! clumps by template, functors and laws), printed without running it.

use dem_core::Simulation;
use std::path::Path;

/// A line per inlet and outlet: what it does, and its progress so far.
pub fn flow_lines(sim: &Simulation) -> Vec<String> {
    let inlets = sim.flow.inlets.iter().map(|i| {
        let (rate, unit) = match i.spec.rate {
            dem_core::engines::inlet::Rate::Number(r) => (r, "particles/s"),
            dem_core::engines::inlet::Rate::Mass(r) => (r, "kg/s"),
        };
        let limit = i
            .spec
            .total
            .map_or(String::new(), |n| format!(", at most {n}"));
        let end = i
            .spec
            .end
            .map_or("the end".to_string(), |t| format!("t = {t} s"));
        format!(
            "  inlet `{}`: {rate} {unit} from t = {} s to {end}{limit}; {} inserted so far",
            i.spec.name, i.spec.start, i.state.count
        )
    });
    let outlets = sim.flow.outlets.iter().map(|o| {
        format!(
            "  outlet `{}` (from t = {} s): {} removed so far",
            o.spec.name, o.spec.start, o.state.count
        )
    });
    inlets.chain(outlets).collect()
}

/// Prints what `sim`, loaded from `scene_path`, holds (the `dem check` report).
pub fn report(sim: &Simulation, scene_path: &Path) {
    println!(
        "{}: ok: {} particles, {} materials, dt = {:.3e} s (critical {:.3e} s), {} steps",
        scene_path.display(),
        sim.particles.len(),
        sim.materials.len(),
        sim.dt(),
        sim.critical_dt,
        sim.end_step
    );
    for line in flow_lines(sim) {
        println!("{line}");
    }
    if let (Some(spec), Some(fluid)) = (&sim.scene.fluid, &sim.fluid) {
        println!(
            "  fluid: viscosity {:e} Pa s, velocity {:?} m/s, gradient {:?} 1/s; shortest drag \
             relaxation time {:.4e} s",
            spec.viscosity,
            spec.velocity,
            spec.gradient,
            fluid.relaxation_time(&sim.particles)
        );
    }
    // Clumps by template, in order of first appearance.
    let mut templates: Vec<(&str, usize, &dem_core::engines::clump::ClumpBody)> = Vec::new();
    for c in &sim.clumps {
        match templates.iter_mut().find(|(n, ..)| *n == c.template_name) {
            Some(t) => t.1 += 1,
            None => templates.push((&c.template_name, 1, c)),
        }
    }
    for (name, count, c) in templates {
        let i = c.inertia;
        println!(
            "  {count} clumps of template {name}: {} members, mass {:.4e} kg, principal \
             moments ({:.4e}, {:.4e}, {:.4e}) kg m^2, bounding radius {:.4e} m",
            c.members.len(),
            c.mass,
            i.x,
            i.y,
            i.z,
            c.template.bounding_radius
        );
    }
    for g in &sim.dispatch.geoms {
        println!("  geometry {} ({})", g.name, g.plugin);
    }
    for l in &sim.dispatch.laws {
        println!(
            "  law {} ({}), {} state slots",
            l.name, l.plugin, l.state_len
        );
    }
}
