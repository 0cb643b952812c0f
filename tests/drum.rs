//! A rotating drum (the shipped `scenes/meshes/drum.obj`) tumbling spheres: the work the
//! drum's prescribed rotation does equals the change in the spheres' energy plus the
//! energy dissipated, within 1 % (the ledger closes), and the drive torque reported for the
//! mesh does that work.

use dem_verification::{root, sim_from_text};

#[test]
fn rotating_drum_ledger_closes() {
    let mesh = root().join("scenes/meshes/drum.obj");
    let omega = 6.0;
    let text = format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e7, friction: 0.4) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
                params: (kt_kn: 0.25, restitution: 0.5))],
        bodies: [
            RandomFill(min: (-0.04, -0.018, -0.04), max: (0.04, 0.018, 0.03), count: 60,
                       radius: Const(0.004), material: "m", seed: 5),
            Mesh(file: "{}", material: "m", motion: Rotate(center: (0, 0, 0), axis: (0, 1, 0), omega: {omega})),
        ],
        gravity: (0, 0, -9.81),
        timestep: Critical(0.1),
        duration: Steps(1),
    )"#,
        mesh.display()
    );
    let mut sim = sim_from_text(&text, "drum.ron").unwrap();
    sim.step().unwrap();
    let l0 = sim.ledger;
    let energy =
        |l: &dem_core::model::energy::Ledger| l.kinetic + l.rotational + l.potential + l.elastic;
    // Torque work, integrated from the reported mesh loads (torque about the axis point).
    let mut torque_work = 0.0;
    let steps = (0.6 / sim.dt()) as u64;
    for _ in 0..steps {
        sim.step().unwrap();
        torque_work -= sim.mesh_loads()[0].torque.y * omega * sim.dt();
    }
    let l = sim.ledger;
    let w = l.boundary_work - l0.boundary_work;
    let change = energy(&l) - energy(&l0);
    let dissipated =
        l.friction + l.damping + l.nonviscous - (l0.friction + l0.damping + l0.nonviscous);
    let error = (change + dissipated - w) / w;
    println!(
        "{steps} steps: drum work {w:.6e} J (from mesh torque {torque_work:.6e} J), particle energy change {change:.6e} J, dissipated {dissipated:.6e} J, ledger error {error:.3e} of the drum work"
    );
    assert!(
        w > 0.0 && dissipated > w * 0.5,
        "the drum drives the tumbling"
    );
    assert!(error.abs() < 0.01, "ledger error {error:e}");
    assert!((torque_work / w - 1.0).abs() < 0.01, "{torque_work} vs {w}");
}
