//! Files: checkpoints, VTK, the outputs of a run (written atomically), tracked particles
//! and the records the Python module reads.

pub mod checkpoint;
pub mod output;
pub mod py_record;
pub mod tracked;
pub mod vti;
pub mod vtk;
