//! What the generators make of a scene besides free particles: its moving and compound
//! boundaries.

use crate::engines::motion::Prescribed;
use crate::model::mesh::MeshBody;

/// The moving and compound boundaries of a scene.
#[derive(Clone, Debug, Default)]
pub struct Boundaries {
    /// Groups of particles with a prescribed motion.
    pub motions: Vec<Prescribed>,
    /// Meshes.
    pub meshes: Vec<MeshBody>,
    /// Clumps (rigid bodies of member spheres).
    pub clumps: Vec<crate::engines::clump::ClumpBody>,
}
