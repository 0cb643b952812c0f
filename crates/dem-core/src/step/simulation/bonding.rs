//! The bonds of a running simulation: their forces as the stress and the coarse-grained
//! fields read them, and the bonds made during the run (at the steps a bond rule's
//! `reform` asks, the pairs its `Within` picks then that hold no bond are bonded anew; see
//! [`crate::engines::bond::Reform`]).

use super::Simulation;
use nalgebra::Vector3;

impl Simulation {
    /// Each intact bond that has acted: its spheres (storage indices), its point and its
    /// force on its sphere 2 at the last step.
    pub(crate) fn bond_forces(
        &self,
    ) -> impl Iterator<Item = ((usize, usize), Vector3<f64>, Vector3<f64>)> + '_ {
        let n = self.particles.len();
        let at = |id: u64| self.order.index(id as usize);
        self.bonds.set.list.iter().filter_map(move |b| {
            let (i, j) = (at(b.ids[0]), at(b.ids[1]));
            let l6 = b.l6.as_ref()?;
            (i < n && j < n).then_some(((i, j), l6.point, b.force))
        })
    }

    /// Bonds anew, at the steps a bond rule's `reform` asks, the pairs its `Within` picks
    /// now that hold no bond (see [`crate::engines::bond::Reform`]).
    pub(super) fn reform_bonds(&mut self) {
        if self.step == 0 {
            return;
        }
        for law in 0..self.bonds.laws.len() {
            let Some(rule) = self.bonds.laws[law].reform.clone() else {
                continue;
            };
            if !self.step.is_multiple_of(rule.every) {
                continue;
            }
            let order = &self.order;
            let pairs =
                crate::setup::plugin_bonds::reformed(&rule, &self.particles, &self.clump_of, |i| {
                    order.id(i) as u64
                });
            let made = self.bonds.make(law as u32, pairs);
            if made > 0 {
                tracing::debug!(target: "dem::bond", step = self.step, made, "bonds made anew");
            }
        }
    }
}
