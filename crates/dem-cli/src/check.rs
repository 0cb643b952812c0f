//! `dem check`: what a scene loads to (particles, time step, inlets and outlets, plugin
//! shapes, fluid, clumps by template, functors and laws, particle fields and their
//! exchanges), printed without running it.

use dem_core::model::particles::Shape;
use dem_core::model::plugin_body::PluginBody;
use dem_core::setup::plugins::PluginSet;
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
            "  inlet `{}`: {rate} {unit} of {}, from t = {} s to {end}{limit}; {} inserted so far",
            i.spec.name,
            i.maker.describe(),
            i.spec.start,
            i.state.count
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

/// A line per kind of plugin-shape body (shape and parameters), then the shape's
/// parameters with their units, as its plugin documents them.
pub fn shape_lines(sim: &Simulation, plugins: &PluginSet) -> Vec<String> {
    let mut kinds: Vec<(&PluginBody, usize)> = Vec::new();
    for s in &sim.particles.shape {
        let Shape::Plugin(b) = s else { continue };
        match kinds.iter_mut().find(|(k, _)| **k == **b) {
            Some(k) => k.1 += 1,
            None => kinds.push((b, 1)),
        }
    }
    let mut lines = Vec::new();
    let mut documented: Vec<&str> = Vec::new();
    for (b, count) in kinds {
        let p = &b.properties;
        lines.push(format!(
            "  {count} bodies of shape {} ({}): volume {:.4e} m^3, principal moments per unit \
             density ({:.4e}, {:.4e}, {:.4e}) m^5, bounding radius {:.4e} m",
            b.name,
            b.params.split_whitespace().collect::<Vec<_>>().join(" "),
            p.volume,
            p.inertia.x,
            p.inertia.y,
            p.inertia.z,
            p.bounding_radius
        ));
        if documented.contains(&b.name.as_str()) {
            continue;
        }
        documented.push(&b.name);
        if let Some((plugin, info)) = plugins.shapes().find(|(_, s)| s.name == b.name) {
            lines.push(format!("    shape {} from plugin {}:", b.name, plugin.name));
            for d in &info.params {
                lines.push(format!("      {} [{}]: {}", d.name, d.unit, d.doc));
            }
        }
    }
    lines
}

/// Prints what `sim`, loaded from `scene_path` with `plugins`, holds (the `dem check`
/// report).
pub fn report(sim: &Simulation, scene_path: &Path, plugins: &PluginSet) {
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
    for line in shape_lines(sim, plugins) {
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
    let ex = &sim.exchanges;
    for (f, def) in ex.fields.iter().enumerate() {
        let values = &sim.particles.fields[f];
        let (lo, hi) = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        let capacities: Vec<String> = def
            .capacity
            .iter()
            .zip(&sim.material_names)
            .filter(|(c, _)| !c.is_nan())
            .map(|(c, m)| format!("{m} {c:e}"))
            .collect();
        let range = match lo <= hi {
            true => format!("values {lo} to {hi} {}", def.unit),
            false => "no bodies yet".to_string(),
        };
        println!(
            "  field {} [{}]: {range}, capacity [{}] {}; stored {:.6e} {} s",
            def.name,
            def.unit,
            def.capacity_unit,
            capacities.join(", "),
            ex.stored(f, &sim.particles),
            def.flow_unit
        );
    }
    for e in &ex.entries {
        println!(
            "  exchange {} ({}) of the field {} between {} and {}",
            e.name, e.plugin, ex.fields[e.field].name, e.materials.0, e.materials.1
        );
    }
    let bonds = &sim.bonds;
    for (k, l) in bonds.laws.iter().enumerate() {
        let made = bonds
            .set
            .list
            .iter()
            .filter(|b| b.law as usize == k)
            .count();
        println!(
            "  bond law {} ({}) between {} and {}: {made} bonds at t = 0, {} state slots",
            l.name,
            l.plugin,
            l.materials.0,
            l.materials.1,
            l.slots.len()
        );
    }
}
