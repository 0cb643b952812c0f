//! The inlets and outlets of a simulation, in scene order: what changes its population
//! during a run (the changes themselves: [`crate::step::simulation::population`]).

use crate::engines::inlet::Inlet;
use crate::engines::outlet::Outlet;

/// The inlets and outlets of a simulation.
#[derive(Clone, Debug, Default)]
pub struct Flow {
    /// Inlets, in scene order.
    pub inlets: Vec<Inlet>,
    /// Outlets, in scene order.
    pub outlets: Vec<Outlet>,
}

impl Flow {
    /// Does the population change during the run?
    pub fn any(&self) -> bool {
        !self.inlets.is_empty() || !self.outlets.is_empty()
    }

    /// Does an inlet insert clumps?
    pub fn inserts_clumps(&self) -> bool {
        self.inlets.iter().any(|inlet| inlet.maker.is_clump())
    }
}
