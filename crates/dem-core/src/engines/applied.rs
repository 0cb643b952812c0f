//! Loads applied from outside: a force and a torque per particle that a user sets (from
//! Python or Rust) and that act at every step, with the weight and the contacts, until
//! they are changed or cleared (Yade's `addF`/`addT`, but persistent).
//!
//! They are held by scene id, so that they follow their particle through reordering and
//! the removal of others; a particle removed by an outlet takes its load with it. Each
//! step adds them to the particles' forces after the gather and books their work as
//! boundary work in the ledger: over the step from `t` the force `f(t)` does `f .
//! v(t-dt/2) dt` (the torque likewise with the angular velocity), which is what the
//! ledger's kinetic term `m/2 v(t-dt/2) . v(t+dt/2)` gains under it, so that the ledger
//! closes to round-off for a free body under a constant load (the rule of the
//! integrator's blocked degrees of freedom).
//!
//! Not on clump members (the clump's rigid body would take the force at the member's
//! position and the ledger would book it at the member's velocity) and not on particles
//! moved by a prescribed motion (their velocity is given): both are refused when set.

use crate::engines::reorder::ParticleOrder;
use crate::model::particles::Particles;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The force (N) and torque (N m) applied to one particle, global frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Load {
    /// Force, N, through the particle's centre of mass.
    pub force: Vector3<f64>,
    /// Torque, N m.
    pub torque: Vector3<f64>,
}

/// The applied loads of a run, by scene id (empty: none, and a step pays nothing).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Applied {
    loads: BTreeMap<u64, Load>,
}

impl Applied {
    /// Is any load set?
    pub fn is_empty(&self) -> bool {
        self.loads.is_empty()
    }

    /// The load of particle `id` (zero when none is set).
    pub fn get(&self, id: u64) -> Load {
        self.loads.get(&id).copied().unwrap_or_default()
    }

    /// Sets the load of particle `id`; a zero load removes the entry.
    pub fn set(&mut self, id: u64, load: Load) {
        if load == Load::default() {
            self.loads.remove(&id);
        } else {
            self.loads.insert(id, load);
        }
    }

    /// Removes every load.
    pub fn clear(&mut self) {
        self.loads.clear();
    }

    /// Every load, by scene id.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Load)> {
        self.loads.iter().map(|(&id, l)| (id, l))
    }

    /// Adds each load to its particle's force and torque (after the gather has set them
    /// to the weights plus the contacts) and returns the work the loads do over the step
    /// of `dt` from now, J (see the module docs). Loads of particles no longer stored
    /// (removed by an outlet) are dropped.
    pub fn apply(&mut self, order: &ParticleOrder, p: &mut Particles, dt: f64) -> f64 {
        let n = p.len();
        let mut work = 0.0;
        self.loads.retain(|&id, load| {
            let i = order.index(id as usize);
            if i >= n {
                return false;
            }
            p.force[i] += load.force;
            p.torque[i] += load.torque;
            work += (load.force.dot(&p.vel[i]) + load.torque.dot(&p.angvel[i])) * dt;
            true
        });
        work
    }
}
