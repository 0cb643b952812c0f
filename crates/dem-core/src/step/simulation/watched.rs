//! The particles and clumps whose energy a step books one by one (inserted by an inlet,
//! or taken by an outlet; see [`super::population`]).

use nalgebra::Vector3;

/// Particles whose energy a step books one by one: their state before the integrator.
#[derive(Default)]
pub(crate) struct Watched {
    /// Storage index, and the outlet taking it (`None`: just inserted).
    pub(super) who: Vec<(usize, Option<usize>)>,
    pub(super) vel: Vec<Vector3<f64>>,
    pub(super) angvel: Vec<Vector3<f64>>,
    pub(super) pos: Vec<Vector3<f64>>,
    /// Clumps (index into the simulation's clumps), and the outlet taking each (`None`:
    /// just inserted). Their energy is the terms their step books (see
    /// [`crate::engines::clump::body::step`]).
    pub(super) clumps: Vec<(usize, Option<usize>)>,
}

impl Watched {
    pub(crate) fn is_empty(&self) -> bool {
        self.who.is_empty() && self.clumps.is_empty()
    }

    /// Does it watch a clump (so that the clumps' step must give its terms)?
    pub(crate) fn has_clumps(&self) -> bool {
        !self.clumps.is_empty()
    }
}
