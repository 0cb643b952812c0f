//! Setting the loads applied from outside (see [`crate::engines::applied`]), with the
//! checks that name the particle.

use super::Simulation;
use crate::engines::applied::{Applied, Load};
use crate::model::particles::Shape;
use std::collections::BTreeSet;

impl Simulation {
    /// The loads applied from outside, by scene id.
    pub fn applied(&self) -> &Applied {
        &self.applied
    }

    /// Sets the force (N) and torque (N m) applied to particle `id` (scene id) at every
    /// step from now on; a zero load removes it. See [`Simulation::set_loads`].
    pub fn set_load(&mut self, id: u64, load: Load) -> Result<(), String> {
        self.set_loads(&[(id, load)])
    }

    /// Sets the loads of several particles (scene id, load), all checked before any is
    /// set. A zero load removes the particle's; any other is refused, with a message that
    /// names the particle, for a particle that is not stored (never given, or removed), a
    /// value that is not finite, a clump member, a mesh facet or a particle with a
    /// prescribed motion, and in a run shared among ranks.
    pub fn set_loads(&mut self, loads: &[(u64, Load)]) -> Result<(), String> {
        let n = self.particles.len();
        let moving: BTreeSet<usize> = self
            .motions
            .iter()
            .flat_map(|g| g.members.iter().copied())
            .collect();
        let finite = |v: &nalgebra::Vector3<f64>| v.iter().all(|x| x.is_finite());
        for &(id, load) in loads {
            let i = self.order.index(id as usize);
            if i >= n || self.order.id(i) != id as usize {
                return Err(format!("particle {id}: no such particle in the run"));
            }
            if !finite(&load.force) || !finite(&load.torque) {
                return Err(format!(
                    "particle {id}: the load (force {:?} N, torque {:?} N m) is not finite",
                    load.force.as_slice(),
                    load.torque.as_slice()
                ));
            }
            if load == Load::default() {
                continue;
            }
            if self.ranks.is_some() {
                return Err("loads applied from outside are not supported on several ranks".into());
            }
            if let Some(k) = self.clump_of(i) {
                return Err(format!(
                    "particle {id} is a member of clump {k}: loads on clumps are not supported"
                ));
            }
            if matches!(self.particles.shape[i], Shape::Facet(_)) {
                return Err(format!(
                    "particle {id} is a facet of a mesh: meshes move with their motion"
                ));
            }
            if moving.contains(&i) {
                return Err(format!(
                    "particle {id} has a prescribed motion (its velocity comes from it)"
                ));
            }
        }
        for &(id, load) in loads {
            self.applied.set(id, load);
        }
        Ok(())
    }

    /// Removes every load applied from outside.
    pub fn clear_loads(&mut self) {
        self.applied.clear();
    }
}
