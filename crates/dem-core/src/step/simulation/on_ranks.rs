//! The simulation shared among several processes (see [`crate::engines::ranks`]): sharing
//! it out, each process's share, and the whole state as one process holds it (for
//! checkpoints and outputs).

use super::Simulation;
use crate::engines::contacts::Contacts;
use crate::engines::ranks::{Exchange, Ranks};
use crate::support::error::DemError;

impl Simulation {
    /// Shares the simulation among several processes, this one being `exchange`'s rank
    /// (see [`crate::engines::ranks`]); before the first step, or after a restore. Fails for what
    /// the ranks cannot share yet.
    pub fn distribute(&mut self, exchange: Box<dyn Exchange>) -> Result<(), DemError> {
        let refuse = |what: &str| {
            Err(DemError::Rank {
                rank: exchange.rank(),
                message: format!("{what} cannot run on several ranks yet: run it on one"),
            })
        };
        if exchange.size() > 1 {
            if self.periodic.is_some() {
                return refuse("a periodic cell");
            }
            if !self.clumps.is_empty() {
                return refuse("a scene with clumps");
            }
            if self.flow.any() {
                return refuse("a scene with inlets or outlets");
            }
            if self.fluid.is_some() {
                return refuse("a scene with a fluid");
            }
            if self.bonds.laws.iter().any(|l| l.reform.is_some()) {
                return refuse("bonds made anew during the run (`reform`)");
            }
            if self.reshaped {
                return refuse("a run whose particles were added or removed from outside");
            }
            if !self.applied.is_empty() {
                return refuse("a run with loads applied from outside");
            }
        }
        let mut ranks = Ranks::new(exchange, self.particles.len(), &self.free);
        let mine: Vec<_> = self
            .contacts
            .save()
            .into_iter()
            .filter(|c| ranks.is_local(c.a) || ranks.is_local(c.b))
            .collect();
        let pairs = ranks.local_pairs(&self.verlet.pairs);
        ranks.find_ghosts(
            &pairs,
            &self.bonds.spheres(&self.order, self.particles.len()),
        );
        self.contacts = Contacts::restore(&pairs, &self.particles, &self.dispatch, &mine).map_err(
            |message| DemError::Rank {
                rank: ranks.rank(),
                message,
            },
        )?;
        self.ranks = Some(ranks);
        Ok(())
    }

    /// This process's share, when several run the simulation.
    pub fn ranks(&self) -> Option<&Ranks> {
        self.ranks.as_ref()
    }

    /// Is this the process that writes the outputs (the only one, or rank 0)?
    pub fn writes(&self) -> bool {
        self.ranks.as_ref().is_none_or(|r| r.rank() == 0)
    }

    /// Calls `f` with the simulation as one process holds it: every contact, and every
    /// particle's force (for a checkpoint, or an output). Among ranks, every rank calls
    /// it at the same step: they put their contacts and forces together first.
    pub fn as_one_process<T>(&mut self, f: impl FnOnce(&Simulation) -> T) -> Result<T, DemError> {
        let Some(r) = &mut self.ranks else {
            return Ok(f(self));
        };
        r.share_states(&mut self.particles);
        r.share_forces(&mut self.particles);
        let all = r.all_contacts(
            &self.contacts,
            &self.verlet.pairs,
            &self.particles,
            &self.dispatch,
        );
        let all = r.agree(all)?;
        let mine = std::mem::replace(&mut self.contacts, all);
        let t = f(self);
        self.contacts = mine;
        Ok(t)
    }
}
