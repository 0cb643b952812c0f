//! Loads applied from outside to a `dem.Simulation`'s particles: a force and a torque per
//! particle that act at every step until changed (see `dem_core::engines::applied`), set
//! and read as numpy arrays in scene-id order.

use crate::simulation::{rows_array, value_error, PySimulation};
use crate::state;
use dem_core::engines::applied::Load;
use nalgebra::Vector3;
use pyo3::prelude::*;

/// Which half of a load a call sets.
#[derive(Clone, Copy)]
enum Part {
    Force,
    Torque,
}

impl PySimulation {
    /// Sets `part` of the loads of the particles `ids` (all when None) to `values`.
    fn set_part(
        &self,
        part: Part,
        values: &Bound<'_, PyAny>,
        ids: Option<Vec<i64>>,
    ) -> PyResult<()> {
        let rows = Self::rows3(values)?;
        let mut g = self.lock()?;
        let sim = &mut g.sim;
        let ids: Vec<i64> = match ids {
            Some(ids) => ids,
            None => state::live(sim)
                .into_iter()
                .map(|(id, _)| id as i64)
                .collect(),
        };
        if ids.len() != rows.len() {
            return Err(value_error(format!(
                "{} values for {} particles: give one [x, y, z] per particle",
                rows.len(),
                ids.len()
            )));
        }
        let mut loads = Vec::with_capacity(ids.len());
        for (&id, v) in ids.iter().zip(&rows) {
            let Ok(id) = u64::try_from(id) else {
                return Err(value_error(format!(
                    "particle {id}: no such particle in the run"
                )));
            };
            let mut load = sim.applied().get(id);
            match part {
                Part::Force => load.force = Vector3::from(*v),
                Part::Torque => load.torque = Vector3::from(*v),
            }
            loads.push((id, load));
        }
        let mut seen = std::collections::BTreeSet::new();
        if let Some((id, _)) = loads.iter().find(|(id, _)| !seen.insert(*id)) {
            return Err(value_error(format!("particle {id} is given twice")));
        }
        sim.set_loads(&loads).map_err(value_error)
    }

    /// `part` of every particle's load, in scene-id order.
    fn part<'py>(&self, py: Python<'py>, part: Part) -> PyResult<Bound<'py, PyAny>> {
        let g = self.lock()?;
        let sim = &g.sim;
        let mut flat = Vec::new();
        for (id, _) in state::live(sim) {
            let Load { force, torque } = sim.applied().get(id as u64);
            let v = match part {
                Part::Force => force,
                Part::Torque => torque,
            };
            flat.extend_from_slice(v.as_slice());
        }
        drop(g);
        rows_array(py, flat, 3)
    }
}

#[pymethods]
impl PySimulation {
    /// Sets the forces (N, global frame, through the centre of mass) applied from outside
    /// to the particles `ids` (scene ids; all when None), acting at every step from the
    /// next on until changed; their work is booked as boundary work in the ledger. Zero
    /// removes a particle's force. Refused with a ValueError naming the particle for clump
    /// members, mesh facets and particles with a prescribed motion.
    #[pyo3(signature = (values, ids=None))]
    fn set_applied_forces(&self, values: &Bound<'_, PyAny>, ids: Option<Vec<i64>>) -> PyResult<()> {
        self.set_part(Part::Force, values, ids)
    }

    /// Sets the torques (N m, global frame) applied from outside to the particles `ids`
    /// (all when None): see `set_applied_forces`.
    #[pyo3(signature = (values, ids=None))]
    fn set_applied_torques(
        &self,
        values: &Bound<'_, PyAny>,
        ids: Option<Vec<i64>>,
    ) -> PyResult<()> {
        self.set_part(Part::Torque, values, ids)
    }

    /// The forces applied from outside (N), one row per particle in scene-id order (zero
    /// where none is set).
    #[getter]
    fn applied_forces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.part(py, Part::Force)
    }

    /// The torques applied from outside (N m), one row per particle in scene-id order.
    #[getter]
    fn applied_torques<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.part(py, Part::Torque)
    }

    /// Removes every force and torque applied from outside.
    fn clear_applied(&self) -> PyResult<()> {
        self.lock()?.sim.clear_loads();
        Ok(())
    }
}
