//! Bonds made during a run: at the steps a bond rule's `reform` asks, the pairs its
//! `Within` picks then that hold no bond are bonded anew (see
//! [`crate::engines::bond::Reform`]).

use super::Simulation;

impl Simulation {
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
