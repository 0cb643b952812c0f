//! Outlets: regions that remove the free particles whose centre is inside them.
//!
//! At every step from `start` on, the free particles (spheres and polyhedra without a
//! prescribed motion) whose centre is inside an outlet's region, and the clumps whose
//! centroid is inside it (with all their members), leave the simulation at the end of the
//! step:
//! their contacts end, and the energy they carry out (their terms in that step's ledger
//! and their contacts' elastic energy) is booked in the ledger's `outflow` (see
//! [`crate::step::simulation::population`]). Their scene ids are not given again.

use crate::engines::region::Region;
use serde::{Deserialize, Serialize};

/// An outlet as a scene writes it (`outlets: [Outlet(...)]`).
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, rename = "Outlet")]
pub struct OutletSpec {
    /// Name in `flow.csv`.
    pub name: String,
    /// Where particles leave.
    pub region: Region,
    /// Time the outlet opens, s (default 0).
    #[serde(default)]
    pub start: f64,
}

/// Particles an outlet removed so far (saved in checkpoints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OutletState {
    /// Number removed.
    pub count: u64,
    /// Their mass, kg.
    pub mass: f64,
}

/// An outlet of a running simulation.
#[derive(Clone, Debug)]
pub struct Outlet {
    /// As the scene gives it.
    pub spec: OutletSpec,
    /// What it removed.
    pub state: OutletState,
}
