//! What the module keeps of a run besides the solver's state, saved in its checkpoints: the
//! energy rows (the rows the `dem` command writes to `energy.csv`) and the changes made
//! from Python that the scene text does not hold (gravity, servo targets), so that a
//! resumed run goes on as the uninterrupted one.

use dem_core::output::EnergyRow;
use serde::{Deserialize, Serialize};

/// Marks a checkpoint's front-end record as the Python module's (the `dem` command keeps
/// a record of its own there).
const MAGIC: &[u8] = b"dem-py record 1\n";

/// The run so far, as the module saw it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PyRecord {
    /// Rows of `energy.csv`: (step, time, ledger) at the output steps.
    pub energy: Vec<EnergyRow>,
    /// Gravity set from Python, m/s^2.
    pub gravity: Option<[f64; 3]>,
    /// Servo settings set from Python: (motion index, stress Pa, area m^2, max_velocity
    /// m/s, gain m/s).
    pub servos: Vec<(usize, [f64; 4])>,
}

impl PyRecord {
    /// The bytes saved in a checkpoint.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(postcard::to_stdvec(self).expect("a record always encodes"));
        out
    }

    /// The record of a checkpoint's front-end bytes: `None` for another front end's (a
    /// checkpoint of the `dem` command), an error for a damaged one.
    pub fn from_bytes(bytes: &[u8]) -> Result<Option<PyRecord>, String> {
        match bytes.strip_prefix(MAGIC) {
            None => Ok(None),
            Some(rest) => postcard::from_bytes(rest)
                .map(Some)
                .map_err(|e| format!("corrupted checkpoint: cannot decode the Python record: {e}")),
        }
    }
}
