//! The particle fields a plugin declares (a temperature; see `dem_core::engines::exchange`)
//! as numpy arrays in scene-id order, and their ledgers.

use crate::simulation::{value_error, PySimulation};
use crate::state;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pymethods]
impl PySimulation {
    /// The names of the scene's particle fields (e.g. `["temperature"]`), in name order.
    #[getter]
    fn field_names(&self) -> PyResult<Vec<String>> {
        let g = self.lock()?;
        Ok(g.sim.exchanges.fields.iter().map(|f| f.name.clone()).collect())
    }

    /// The values of particle field `name` in its unit (a temperature in K): (n,),
    /// scene-id order. A `ValueError` names the fields there are.
    fn field<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let g = self.lock()?;
        let f = field_index(&g.sim, name)?;
        let v = state::scalars(&g.sim, |i| g.sim.particles.fields[f][i]);
        Ok(v.into_pyarray(py).into_any())
    }

    /// The balance of particle field `name`: a dict of `stored` (the quantity the
    /// particles of finite mass hold now, `sum m c value`: J for a temperature),
    /// `initial` (the same at t = 0), `from_fixed_bodies` (what walls and meshes gave
    /// since), `inflow` and `outflow` (what inserted particles brought and removed ones
    /// carried out), `balance_error` (`stored - initial - from_fixed_bodies - inflow +
    /// outflow`, round-off) and
    /// `largest_step_ratio` (the largest `dt * conductance / (m c)` so far; the explicit
    /// step is stable below 1).
    fn field_balance<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let f = field_index(&g.sim, name)?;
        let b = g.sim.exchanges.balance(f, &g.sim.particles);
        let d = PyDict::new(py);
        d.set_item("stored", b.stored)?;
        d.set_item("initial", b.ledger.initial)?;
        d.set_item("from_fixed_bodies", b.ledger.boundary)?;
        d.set_item("inflow", b.ledger.inflow)?;
        d.set_item("outflow", b.ledger.outflow)?;
        d.set_item("balance_error", b.error)?;
        d.set_item("largest_step_ratio", b.ledger.stability)?;
        Ok(d)
    }
}

/// The index of field `name`, or a `ValueError` listing the fields.
fn field_index(sim: &dem_core::Simulation, name: &str) -> PyResult<usize> {
    sim.exchanges.field(name).ok_or_else(|| {
        let names: Vec<&str> = sim.exchanges.fields.iter().map(|f| f.name.as_str()).collect();
        value_error(format!(
            "no particle field `{name}`; the scene's fields: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))
    })
}
