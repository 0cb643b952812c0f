//! What the front end remembers of a run, saved inside each checkpoint so that a resumed
//! run writes the same `energy.csv`, `meshes.csv`, `.pvd` collections, plot and summary as an
//! uninterrupted one: the energy rows, the mesh loads, the output frames and the run statistics,
//! the tracked particles' rows, and the run's id.

use dem_core::files::output::{BondRow, EnergyRow, FlowRow, MeshRow, StressRow};
use dem_core::files::tracked::{TrackedContactRow, TrackedRow};
use serde::{Deserialize, Serialize};

/// The run so far.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunRecord {
    /// The run's id (see [`crate::ownership`]).
    pub id: String,
    /// Rows of `energy.csv`.
    pub energy: Vec<EnergyRow>,
    /// Rows of `meshes.csv` (loads on each mesh at the output steps).
    pub meshes: Vec<MeshRow>,
    /// Rows of `stress.csv` (see `dem_core::engines::stress`).
    pub stress: Vec<StressRow>,
    /// Rows of `flow.csv` (inlets and outlets).
    pub flow: Vec<FlowRow>,
    /// Rows of `bonds.csv` (bonds intact and broken).
    pub bonds: Vec<BondRow>,
    /// Output frames (step, time) of the VTK streams.
    pub frames: Vec<(u64, f64)>,
    /// Live contacts after each step: smallest, largest, sum, number of steps.
    pub contacts: Option<(usize, usize, f64, u64)>,
    /// Wall-clock time of the run, s (all sessions).
    pub wall: f64,
    /// Steps done by earlier sessions.
    pub resumed_at: Vec<u64>,
    /// Rows of `tracked.csv` and `tracked_contacts.csv`: encoded after the fields above
    /// (see [`RunRecord::to_bytes`]), so that a checkpoint written before they existed
    /// still decodes.
    #[serde(skip)]
    pub tracked: (Vec<TrackedRow>, Vec<TrackedContactRow>),
}

impl RunRecord {
    /// The record as a checkpoint holds it: the fields, then the tracked rows.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = postcard::to_stdvec(self).expect("a run record always encodes");
        let tracked = postcard::to_stdvec(&self.tracked).expect("rows always encode");
        bytes.extend(tracked);
        bytes
    }

    /// The record of [`RunRecord::to_bytes`] (or of a checkpoint without tracked rows).
    pub fn from_bytes(bytes: &[u8]) -> Result<RunRecord, postcard::Error> {
        let (mut record, rest) = postcard::take_from_bytes::<RunRecord>(bytes)?;
        if !rest.is_empty() {
            record.tracked = postcard::from_bytes(rest)?;
        }
        Ok(record)
    }
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
    /// change relative to the largest change of any entry over the run (the energy that
    /// flowed; 0 when nothing changed).
    pub fn balance_error(&self) -> (f64, f64) {
        let (Some(first), Some(last)) = (self.energy.first(), self.energy.last()) else {
            return (0.0, 0.0);
        };
        let start = first.2.row();
        let drift = last.2.total() - first.2.total();
        let scale = self
            .energy
            .iter()
            .flat_map(|(_, _, l)| {
                let row = l.row();
                (0..row.len() - 1).map(move |k| (row[k] - start[k]).abs())
            })
            .fold(0.0f64, f64::max);
        (drift, if scale > 0.0 { drift / scale } else { 0.0 })
    }
}

/// This session's share of the run.
pub struct Session {
    /// Steps done in this session.
    pub steps: u64,
    /// Wall time of this session, s.
    pub wall: f64,
    /// Checkpoints written.
    pub checkpoints: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_core::model::energy::Ledger;

    #[test]
    fn tracked_rows_round_trip_and_an_older_record_still_decodes() {
        let mut r = RunRecord {
            id: "run".into(),
            ..RunRecord::default()
        };
        r.frames.push((10, 0.5));
        let older = postcard::to_stdvec(&r).unwrap();
        r.tracked.0.push((10, 0.5, 3, [1.5; 15]));
        r.tracked.1.push((10, 0.5, 3, 7, [-2.0; 10]));
        let back = RunRecord::from_bytes(&r.to_bytes()).unwrap();
        assert_eq!((back.id.as_str(), &back.frames), ("run", &r.frames));
        assert_eq!(back.tracked, r.tracked);
        let old = RunRecord::from_bytes(&older).unwrap();
        assert_eq!(old.frames, r.frames);
        assert!(old.tracked.0.is_empty() && old.tracked.1.is_empty());
    }

    #[test]
    fn contact_statistics() {
        let mut r = RunRecord::default();
        assert_eq!(r.contact_stats(), (0, 0.0, 0));
        for n in [4, 2, 6] {
            r.count_contacts(n);
        }
        assert_eq!(r.contact_stats(), (2, 4.0, 6));
    }

    #[test]
    fn balance_error_is_relative_to_the_energy_that_flowed() {
        let at = |kinetic: f64, potential: f64, friction: f64| Ledger {
            kinetic,
            potential,
            friction,
            ..Ledger::default()
        };
        let mut r = RunRecord::default();
        assert_eq!(r.balance_error(), (0.0, 0.0));
        // Potential far from its origin: 1000 J; 2 J flow into kinetic energy and friction,
        // 0.01 J is lost from the books.
        r.energy = vec![
            (0, 0.0, at(0.0, 1000.0, 0.0)),
            (1, 1.0, at(1.0, 999.0, 0.0)),
            (2, 2.0, at(0.5, 998.0, 1.49)),
        ];
        let (drift, relative) = r.balance_error();
        assert!((drift + 0.01).abs() < 1e-9, "{drift}");
        assert!((relative + 0.005).abs() < 1e-9, "{relative}");
    }
}
