//! The particle fields' step of a running simulation (see [`crate::engines::exchange`]):
//! the exchanges of the contacts, and on MPI ranks the agreement on a failure and the
//! largest stability ratio over the ranks.

use super::Simulation;
use crate::engines::ranks::Ranks;
use crate::support::error::DemError;

impl Simulation {
    /// One step of every particle field, after the contacts' gather.
    pub(super) fn step_fields(&mut self) -> Result<(), DemError> {
        let (order, per) = (&self.order, self.periodic.as_ref());
        let result = self.exchanges.step(
            &mut self.particles,
            &self.contacts,
            &self.materials,
            self.integrator.dt,
            self.step,
            |i| per.map_or(i, |per| per.owner(i as u32) as usize),
            |i| order.id(i),
            self.ranks.as_ref().map(Ranks::moved),
        );
        let Some(r) = &self.ranks else {
            return result;
        };
        r.agree(result)?;
        let mut top: Vec<f64> = self.exchanges.ledger.iter().map(|l| l.stability).collect();
        r.max_each(&mut top);
        for (l, t) in self.exchanges.ledger.iter_mut().zip(top) {
            l.stability = t;
        }
        Ok(())
    }
}
