//! A file a scene reads (a mesh, a CSV of spheres), recorded with a digest so that a
//! resumed run can tell it changed.

use serde::Deserialize;

/// A file a scene reads, and a digest of its content.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct InputFile {
    /// Field of the scene naming it, e.g. `bodies[2].file`.
    pub field: String,
    /// The path as the scene gives it (relative to the scene file).
    pub file: String,
    /// CRC-32 and length of its content; `None` when it could not be read (its reader
    /// reports why).
    pub digest: Option<(u32, u64)>,
}
