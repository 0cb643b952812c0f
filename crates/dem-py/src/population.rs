//! Changing a `dem.Simulation`'s population from Python between steps (see
//! `dem_core::Simulation::remove_particles`).

use crate::simulation::{value_error, PySimulation};
use pyo3::prelude::*;

#[pymethods]
impl PySimulation {
    /// Removes the particles `ids` (scene ids) with their contacts, between two steps,
    /// as an outlet does: the others keep their ids; their energy and their contacts'
    /// elastic energy leave the ledger as `outflow`. Returns that energy, J. ValueError
    /// naming the particle (nothing removed) for an unknown or repeated id, a clump
    /// member, a mesh facet or a body with a prescribed motion.
    fn remove_particles(&self, ids: Vec<i64>) -> PyResult<f64> {
        let ids = ids
            .into_iter()
            .map(|id| {
                u64::try_from(id)
                    .map_err(|_| value_error(format!("particle {id}: no such particle in the run")))
            })
            .collect::<PyResult<Vec<u64>>>()?;
        let mut g = self.lock()?;
        g.sim.remove_particles(&ids).map_err(value_error)
    }
}
