//! The Python module's record in a checkpoint's front-end data (`Checkpoint::extra`): the
//! energy rows of its run (the rows the `dem` command writes to `energy.csv`). Kept here,
//! not in the module, so that `dem resume` can tell a checkpoint of the module from its own
//! and go on with its energy rows. What the module changes in the state (positions,
//! velocities, gravity, motions) is in the checkpoint itself.

use crate::files::output::EnergyRow;
use serde::{Deserialize, Serialize};

/// First bytes of every record of the module, before its version.
const PREFIX: &[u8] = b"dem-py record ";
/// Marks the module's record (the `dem` command keeps a record of its own there). Record 1
/// (dem 0.4 before checkpoint format 9) also held gravity and servo settings, now in the
/// checkpoint.
const MAGIC: &[u8] = b"dem-py record 2\n";

/// The run so far, as the module saw it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PyRecord {
    /// Rows of `energy.csv`: (step, time, ledger) at the output steps.
    pub energy: Vec<EnergyRow>,
}

impl PyRecord {
    /// The bytes saved in a checkpoint.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(postcard::to_stdvec(self).expect("a record always encodes"));
        out
    }

    /// The record of a checkpoint's front-end bytes: `None` for another front end's (a
    /// checkpoint of the `dem` command), an error for a damaged one or one of another
    /// version of the module.
    pub fn from_bytes(bytes: &[u8]) -> Result<Option<PyRecord>, String> {
        if let Some(rest) = bytes.strip_prefix(MAGIC) {
            return postcard::from_bytes(rest).map(Some).map_err(|e| {
                format!("corrupted checkpoint: cannot decode the Python record: {e}")
            });
        }
        match bytes.strip_prefix(PREFIX) {
            None => Ok(None),
            Some(rest) => {
                let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                let version = String::from_utf8_lossy(&rest[..end.min(16)]);
                Err(format!(
                    "written by the Python module with its record version {version}; this dem \
                     reads version 2 only"
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::energy::Ledger;

    #[test]
    fn records_are_told_apart() {
        let r = PyRecord {
            energy: vec![(5, 0.5, Ledger::default())],
        };
        let back = PyRecord::from_bytes(&r.to_bytes()).unwrap().unwrap();
        assert_eq!(back.energy, r.energy);
        // The `dem` command's record (postcard, no prefix) is not the module's.
        assert!(PyRecord::from_bytes(&[16, b'a', b'b']).unwrap().is_none());
        let e = PyRecord::from_bytes(b"dem-py record 1\n\x00").unwrap_err();
        assert!(
            e.contains("record version 1; this dem reads version 2"),
            "{e}"
        );
        let mut cut = r.to_bytes();
        cut.truncate(MAGIC.len() + 2);
        assert!(PyRecord::from_bytes(&cut)
            .unwrap_err()
            .contains("corrupted"));
    }
}
