//! Changing a `dem.Simulation`'s laws and materials from Python between steps (see
//! `dem_core::Simulation::set_law_params` and `set_material`).

use crate::simulation::{value_error, PySimulation};
use dem_core::model::changes::MaterialChange;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

#[pymethods]
impl PySimulation {
    /// Builds law `law` (its place in the scene's `laws`, from 0) again with new
    /// parameters: RON text (`"(kn: 2e4, restitution: 0.5)"`) or a dict
    /// (`{"kn": 2e4, "restitution": 0.5}`, written as `dem.scene` writes a scene). The
    /// contacts keep their state (L6Geom, springs) and compute their constants again at
    /// the next step; what that changes of the stored energy is booked as
    /// `boundary_work`. ValueError (nothing changed) for a law that does not exist,
    /// parameters the plugin refuses, a changed number of state slots or interaction
    /// distance, a time step above the new critical step, or a plugin built before
    /// dem-api 0.5.1.
    fn set_law_params(
        &self,
        py: Python<'_>,
        law: usize,
        params: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let text: String = if params.is_instance_of::<PyString>() {
            params.extract()?
        } else {
            py.import("dem.scene")?
                .call_method1("to_ron", (params,))?
                .extract()?
        };
        let mut g = self.lock()?;
        let inner = &mut *g;
        inner
            .sim
            .set_law_params(&inner.plugins, law, &text)
            .map_err(value_error)
    }

    /// Sets material `name`'s Young's modulus (Pa), Poisson's ratio or friction
    /// coefficient (None keeps the present value; the density cannot change). The
    /// contacts of the laws serving it keep their state and compute their constants again
    /// at the next step, as with `set_law_params`. ValueError (nothing changed) for an
    /// unknown material, a value out of range, a rigid material's Young's modulus, or a
    /// time step above the new critical step.
    #[pyo3(signature = (name, young=None, poisson=None, friction=None))]
    fn set_material(
        &self,
        name: &str,
        young: Option<f64>,
        poisson: Option<f64>,
        friction: Option<f64>,
    ) -> PyResult<()> {
        let change = MaterialChange {
            young,
            poisson,
            friction,
        };
        let mut g = self.lock()?;
        let inner = &mut *g;
        inner
            .sim
            .set_material(&inner.plugins, name, change)
            .map_err(value_error)
    }

    /// The scene's materials now: name -> dict of density (kg/m^3), young (Pa, inf for a
    /// rigid material), poisson and friction.
    #[getter]
    fn material_properties<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let d = PyDict::new(py);
        for (name, m) in g.sim.material_names.iter().zip(&g.sim.materials) {
            let x = PyDict::new(py);
            x.set_item("density", m.density)?;
            x.set_item("young", m.young)?;
            x.set_item("poisson", m.poisson)?;
            x.set_item("friction", m.friction)?;
            d.set_item(name, x)?;
        }
        Ok(d)
    }

    /// The laws' parameters changed since the scene was built: law index -> RON text.
    #[getter]
    fn law_changes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let d = PyDict::new(py);
        for (k, text) in &g.sim.changes().laws {
            d.set_item(k, text)?;
        }
        Ok(d)
    }
}
