//! Bonds and particle fields on MPI ranks (threads standing in for ranks, see
//! `support/ranks.rs`): a bonded, conducting block squeezed by a piston gives one
//! process's bits on 2 and 4 ranks, through breakages, rebuilds, reorderings and the
//! walls' heat.

use dem_verification::{sim_from_text, state_bits as bits};

/// A bonded block in a box (the ranks' test scene of `support/ranks.rs` with every
/// touching pair bonded), squeezed by a piston: bonds break as it moves. Its lower half
/// starts hot and conducts its heat through the contacts (`plugins/heat-conduction`).
fn bonded_block() -> String {
    use dem_verification::ranks::{PISTON, SCENE};
    // The box's lower walls touch the block (at 400 K, its upper ones at 300 K): they
    // give and take heat.
    let box_at = "Box(min: (-0.001, -0.001, -0.001)";
    assert!(SCENE.contains(box_at));
    SCENE
        .replace("PISTON", PISTON)
        .replace(box_at, "Box(min: (0, 0, 0)")
        .replace(
            "    bodies: [",
            r#"    bonds: [(materials: ("m", "m"), bond: "Bond_Parallel",
             params: (modulus: 1e7, tensile_strength: 4e4, shear_strength: 4e4),
             between: Within(0))],
    fields: {"temperature": (capacity: {"m": 800}, initial: 300,
             set: [(region: Box(min: (-1, -1, -1), max: (1, 1, 0.01)), value: 400)])},
    exchanges: [(materials: ("m", "m"), exchange: "Exchange_HeatConduction",
                 params: (conductivity: 1e4))],
    bodies: ["#,
        )
}

#[test]
fn ranks_give_one_process_bonds_and_temperatures_bitwise() {
    let steps = 600;
    let run = |ranks: usize| -> Vec<Vec<u64>> {
        let handles: Vec<_> = dem_verification::ranks::group(ranks)
            .into_iter()
            .map(|rank| {
                std::thread::spawn(move || {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(1)
                        .build()
                        .unwrap();
                    pool.install(|| {
                        let mut sim = sim_from_text(&bonded_block(), "block.ron").unwrap();
                        if ranks > 1 {
                            sim.distribute(Box::new(rank)).unwrap();
                        }
                        sim.run_steps(steps).unwrap();
                        sim.as_one_process(bits).unwrap()
                    })
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    };
    let one = run(1).pop().unwrap();
    let (sim, start) = {
        let mut sim = sim_from_text(&bonded_block(), "block.ron").unwrap();
        sim.run_steps(1).unwrap();
        let start = sim.ledger.total();
        sim.run_steps(steps - 1).unwrap();
        (sim, start)
    };
    let l = &sim.ledger;
    let flows = l.boundary_work.abs() + l.broken + l.friction + l.damping;
    println!(
        "{} bonds made, {} broken, {} contacts; ledger drift {:e} J of {flows:e} J that flowed",
        sim.bonds.set.made,
        sim.bonds.set.broken,
        sim.live_contacts,
        l.total() - start
    );
    assert!(sim.bonds.set.broken > 0 && !sim.bonds.set.list.is_empty());
    let b = sim.exchanges.balance(0, &sim.particles);
    let t = &sim.particles.fields[0];
    let between = t.iter().filter(|&&x| x > 300.0 && x < 400.0).count();
    println!("{between} spheres between 300 and 400 K; heat balance {b:?}");
    assert!(between > 100, "heat flowed across the hot layer's face");
    assert!(b.error.abs() < 1e-12 * b.stored, "{b:?}");
    assert!(b.ledger.boundary != 0.0, "the walls exchanged heat");
    for ranks in [2, 4] {
        for (k, got) in run(ranks).into_iter().enumerate() {
            assert!(got == one, "rank {k} of {ranks} differs from one process");
        }
    }
}
