//! Helpers for scenes with a changing population (inlets, outlets): every bit of the
//! state by scene id, and a checkpoint round trip.

use crate::plugins;
use dem_core::{Checkpoint, Simulation};
use std::path::Path;

/// Every bit of the particles' state by scene id, of the clumps' bodies (with their
/// members' storage range), the ledger and the flow's counts.
pub fn state(sim: &Simulation) -> Vec<u64> {
    let p = &sim.particles;
    let mut bits = Vec::new();
    for (id, i) in sim.order.by_id(p.len()) {
        bits.push(id as u64);
        for v in [p.pos[i], p.vel[i], p.angvel[i], p.force[i], p.inertia[i]] {
            bits.extend(v.iter().map(|x| x.to_bits()));
        }
        bits.extend(p.ori[i].coords.iter().map(|x| x.to_bits()));
        bits.push(p.mass[i].to_bits());
    }
    for c in &sim.clumps {
        bits.extend([c.members.start as u64, c.members.len() as u64]);
        for v in [c.pos, c.vel, c.angvel] {
            bits.extend(v.iter().map(|x| x.to_bits()));
        }
        bits.extend(c.ori.coords.iter().map(|x| x.to_bits()));
        bits.push(c.mass.to_bits());
    }
    bits.extend(sim.ledger.row().iter().map(|x| x.to_bits()));
    for i in &sim.flow.inlets {
        bits.extend([i.state.count, i.state.mass.to_bits()]);
    }
    for o in &sim.flow.outlets {
        bits.extend([o.state.count, o.state.mass.to_bits()]);
    }
    bits.extend([sim.step, sim.verlet.rebuilds, sim.contacts.active() as u64]);
    bits
}

/// The simulation written to a checkpoint and restored from it.
pub fn round_trip(sim: &Simulation) -> Simulation {
    let bytes = Checkpoint::capture(sim, plugins(), Vec::new()).to_bytes();
    let ck = Checkpoint::from_bytes(&bytes, Path::new("flow.ckpt")).unwrap();
    let scene = ck.scene().unwrap();
    ck.restore(scene, plugins(), Path::new("flow.ckpt"))
        .unwrap()
}

/// The scene `text` run for `steps` steps (more than 4223) whole, and run again with a
/// checkpoint round trip after step 3001 (just after an insertion event of the flow
/// tests' inlets) and 1222 steps later (between two): `(whole, parts)`.
pub fn whole_and_resumed(text: &str, steps: u64) -> (Simulation, Simulation) {
    let mut whole = crate::sim_from_text(text, "pour.ron").unwrap();
    whole.run_steps(steps).unwrap();
    let mut parts = crate::sim_from_text(text, "pour.ron").unwrap();
    parts.run_steps(3001).unwrap();
    let mut parts = round_trip(&parts);
    parts.run_steps(1222).unwrap();
    let mut parts = round_trip(&parts);
    parts.run_steps(steps - 3001 - 1222).unwrap();
    (whole, parts)
}
