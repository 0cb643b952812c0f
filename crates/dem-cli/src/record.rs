//! What the front end remembers of a run, saved inside each checkpoint so that a resumed
//! run writes the same `energy.csv`, `.pvd` collections, plot and summary as an
//! uninterrupted one: the energy rows, the output frames and the run statistics.

use crate::output::EnergyRow;
use serde::{Deserialize, Serialize};

/// The run so far.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunRecord {
    /// Rows of `energy.csv`.
    pub energy: Vec<EnergyRow>,
    /// Output frames (step, time) of the VTK streams.
    pub frames: Vec<(u64, f64)>,
    /// Live contacts after each step: smallest, largest, sum, number of steps.
    pub contacts: Option<(usize, usize, f64, u64)>,
    /// Wall-clock time of the run, s (all sessions).
    pub wall: f64,
    /// Steps done by earlier sessions.
    pub resumed_at: Vec<u64>,
}

impl RunRecord {
    /// Books the live contact count after a step.
    pub fn count_contacts(&mut self, n: usize) {
        let c = self.contacts.get_or_insert((n, n, 0.0, 0));
        c.0 = c.0.min(n);
        c.1 = c.1.max(n);
        c.2 += n as f64;
        c.3 += 1;
    }

    /// Contacts (min, mean, max) over the steps done.
    pub fn contact_stats(&self) -> (usize, f64, usize) {
        match self.contacts {
            Some((lo, hi, sum, n)) if n > 0 => (lo, sum / n as f64, hi),
            _ => (0, 0.0, 0),
        }
    }

    /// Ledger balance: the change of the conserved total since the first row, J, and that
    /// change relative to the largest energy entry booked (0 without rows).
    pub fn balance_error(&self) -> (f64, f64) {
        let (Some(first), Some(last)) = (self.energy.first(), self.energy.last()) else {
            return (0.0, 0.0);
        };
        let drift = last.2.total() - first.2.total();
        let scale = self
            .energy
            .iter()
            .flat_map(|(_, _, l)| l.row())
            .fold(0.0f64, |m, x| m.max(x.abs()));
        (drift, if scale > 0.0 { drift / scale } else { 0.0 })
    }
}
