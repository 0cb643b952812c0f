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
    ///
    /// Inlets and outlets run on ranks by steps taken as one process: at a step where an
    /// inlet inserts or an outlet takes a particle, every rank takes the whole state (every
    /// particle's and every contact), runs the step alone, as one process would (the same
    /// inputs, the same bits on every rank), and the ranks share the simulation out anew
    /// (see [`Simulation::step_as_one`]).
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
        self.share_out(exchange)
    }

    /// Shares the simulation out among the ranks, as it stands on this one (each rank
    /// holding the same state): this rank's particles, ghosts and contacts. No exchange.
    fn share_out(&mut self, exchange: Box<dyn Exchange>) -> Result<(), DemError> {
        let mut ranks = Ranks::new(exchange, self.particles.len(), &self.free);
        // The contacts of this rank, with what the last step computed of them (their
        // forces, which the outputs and the unbalanced force read until the next step).
        let (mine, outputs): (Vec<_>, Vec<_>) = self
            .contacts
            .save()
            .into_iter()
            .enumerate()
            .filter(|(_, c)| ranks.is_local(c.a) || ranks.is_local(c.b))
            .map(|(k, c)| (c, self.contacts.outputs(k)))
            .unzip();
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
        // `restore` keeps the saved order.
        for (k, v) in outputs.iter().enumerate() {
            self.contacts.set_outputs(k, v);
        }
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
        let Some(r) = &self.ranks else {
            return Ok(f(self));
        };
        r.share_forces(&mut self.particles);
        let all = self.whole_state()?;
        let mine = std::mem::replace(&mut self.contacts, all);
        let t = f(self);
        self.contacts = mine;
        Ok(t)
    }
}

impl Simulation {
    /// Among ranks, does the coming step change the population: an inlet inserting, or an
    /// outlet taking a particle (one a rank owns; the ranks tell each other)? Every rank
    /// asks at every step of a scene with inlets or outlets.
    pub(super) fn flow_acts_on_ranks(&self) -> bool {
        let Some(r) = &self.ranks else {
            return false;
        };
        let (step, t) = (self.step, self.time);
        if self.flow.inlets.iter().any(|i| i.inserts_at(step, t)) {
            return true;
        }
        let open: Vec<_> = self
            .flow
            .outlets
            .iter()
            .filter(|o| t >= o.spec.start)
            .collect();
        if open.is_empty() {
            return false;
        }
        let own = r.owned();
        let p = &self.particles;
        let taken = self
            .free
            .iter()
            .flat_map(|run| run.start.max(own.start)..run.end.min(own.end))
            .any(|i| open.iter().any(|o| o.spec.region.contains(&p.pos[i])));
        r.any(taken)
    }

    /// Among ranks, puts the whole state together on every rank: every particle's state
    /// (into the particles) and every contact, as one process holds them (returned).
    fn whole_state(&mut self) -> Result<Contacts, DemError> {
        let Some(r) = &mut self.ranks else {
            return Ok(self.contacts.clone());
        };
        r.share_states(&mut self.particles);
        let all = r.all_contacts(
            &self.contacts,
            &self.verlet.pairs,
            &self.particles,
            &self.dispatch,
        );
        r.agree(all)
    }

    /// The coming step taken as one process by every rank (see [`Simulation::distribute`]):
    /// the ranks put the whole state together, each runs the step alone, and they share
    /// the simulation out anew.
    pub(super) fn step_as_one(&mut self) -> Result<(), DemError> {
        if self.ranks.is_none() {
            return self.step();
        }
        let clock = std::time::Instant::now();
        self.contacts = self.whole_state()?;
        self.timing.exchange += clock.elapsed().as_secs_f64();
        let Some(r) = self.ranks.take() else {
            return self.step();
        };
        // Every rank fails alike, if at all: the same step on the same state.
        let stepped = self.step();
        let shared = self.share_out(r.into_exchange());
        stepped.and(shared)
    }

    /// After a failed step on ranks, the state restored as it was before it: shared out
    /// anew (the step may have changed the number of particles, so their owners).
    pub(super) fn share_out_again(&mut self) -> Result<(), DemError> {
        match self.ranks.take() {
            Some(r) => self.share_out(r.into_exchange()),
            None => Ok(()),
        }
    }
}
