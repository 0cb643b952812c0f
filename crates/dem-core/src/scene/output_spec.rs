//! The scene's `output` block: plain serde data, read with the scene; the front ends
//! (`dem run`, the Python module) act on it.

use serde::Deserialize;

/// Output settings.
#[derive(Deserialize, Debug, Clone)]
#[serde(default, deny_unknown_fields)]
pub struct OutputSpec {
    /// Steps between two ledger rows (and progress reports).
    pub every: u64,
    /// Steps between two VTK frames; `None`: `every` (a frame at each ledger row).
    pub frames: Option<u64>,
    /// Scene ids of the particles whose state and contacts are written at step 0, every
    /// `every` steps and the last (`tracked.csv`, `tracked_contacts.csv`; see
    /// [`crate::files::tracked`]).
    pub track: Vec<u64>,
    /// Where `stress.csv` averages the stress without a periodic cell (with one, over the
    /// cell); no `stress.csv` without either. See [`crate::engines::stress`].
    pub stress: Option<crate::engines::stress::Region>,
    /// Integrate and write the orientation of spheres (the VTK `orientation` array of the
    /// particles; Python's `orientations`). Without it spheres keep their initial
    /// orientation, unless a geometry functor reads it.
    pub sphere_orientation: bool,
    /// Coarse-grained fields written at each frame (`fields_<step>.vti`, `fields.pvd`):
    /// the grid and the kernel; see [`crate::engines::coarse_grain`].
    pub fields: Option<FieldsSpec>,
}

/// The scene's `output.fields` block: `(grid: (min: .., max: .., cells: ..), kernel: ..)`.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct FieldsSpec {
    /// Where the fields are sampled.
    pub grid: crate::engines::coarse_grain::Grid,
    /// How the particles are smoothed.
    pub kernel: crate::engines::coarse_grain::Kernel,
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec {
            every: 1000,
            frames: None,
            track: Vec::new(),
            stress: None,
            sphere_orientation: false,
            fields: None,
        }
    }
}

impl OutputSpec {
    /// Steps between two VTK frames (at least 1).
    pub fn frames_every(&self) -> u64 {
        self.frames.unwrap_or(self.every).max(1)
    }
}
