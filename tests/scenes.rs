//! Every scene shipped in `scenes/` loads with the workspace plugins and runs. (Energy
//! closure is verified by the physics tests and, for `settle.ron`, by `tests/settle.rs`.)

use dem_verification::{root, sim_from_file};

#[test]
fn every_shipped_scene_loads_and_runs() {
    let mut names: Vec<String> = std::fs::read_dir(root().join("scenes"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".ron"))
        .collect();
    names.sort();
    assert!(names.len() >= 2, "{names:?}");
    for name in names {
        let mut sim = sim_from_file(&format!("scenes/{name}"));
        assert!(sim.end_step > 0, "{name}");
        sim.run_steps(200).unwrap_or_else(|e| panic!("{name}: {e}"));
        // A periodic cell's particles may start at rest and gain their energy from the
        // cell's deformation (boundary work), and a scene filled by inlets starts empty
        // (its particles' energy is booked as inflow): their totals start at zero.
        let filled = sim.flow.inlets.iter().any(|i| i.state.count > 0);
        let some = sim.ledger.total() > 0.0 || sim.periodic.is_some() || filled;
        assert!(
            sim.flow.inlets.is_empty() || filled,
            "{name}: the inlets inserted nothing"
        );
        assert!(
            sim.ledger.total().is_finite() && some,
            "{name}: {:?}",
            sim.ledger
        );
    }
}
