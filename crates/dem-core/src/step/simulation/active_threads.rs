//! How many of the team's threads a step uses (see [`crate::support::threads`]).

use super::Simulation;
use crate::engines::ranks::Ranks;
use crate::support::team::Team;
use crate::support::threads::{self, Threads};
use std::time::Instant;

impl Simulation {
    /// Chooses how many threads of the rayon pool the steps use (see [`crate::support::threads`]);
    /// the default takes them all.
    pub fn set_threads(&mut self, threads: Threads) {
        self.threads = threads;
    }

    /// How the steps choose their threads ([`Simulation::set_threads`]).
    pub fn thread_choice(&self) -> Threads {
        self.threads
    }

    /// Threads the last step used.
    pub fn threads_used(&self) -> usize {
        self.team.active()
    }

    /// Sets the team's active members for the coming step: the team has a member per
    /// thread of the rayon pool the step runs in. Returns the step's work and the most
    /// threads it pays for, for [`Simulation::book_threads`].
    pub(super) fn choose_threads(&mut self) -> (usize, usize) {
        let most = rayon::current_num_threads();
        if self.team.size() != most {
            self.team = Team::new(most);
        }
        // This rank's share of the work.
        let share = self.ranks.as_ref().map_or(1, Ranks::size);
        let work = threads::work(self.particles.len(), self.live_contacts) / share;
        let cap = threads::for_work(work, most);
        self.team.set_active(match self.threads {
            Threads::Pool => most,
            Threads::Auto => self.chooser.threads(cap),
        });
        (work, cap)
    }

    /// Books the time of a step that began at `started` for the choice of the next ones.
    pub(super) fn book_threads(&mut self, started: Instant, work: usize, cap: usize) {
        if self.threads == Threads::Auto {
            self.chooser
                .record(started.elapsed().as_secs_f64(), work, cap);
        }
    }
}
