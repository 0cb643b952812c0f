//! The bonds between spheres (see `dem_core::engines::bond`) as numpy arrays, one row per
//! intact bond in the order of the solver's list (by the spheres' scene ids), and their
//! counts.

use crate::simulation::PySimulation;
use numpy::{IntoPyArray, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pymethods]
impl PySimulation {
    /// The intact bonds at the last step: a dict of `ids` ((n, 2) int64, the scene ids of
    /// each bond's spheres, the smaller first), `tension` ((n,), N: the force along the
    /// line of centres that pulls the spheres together, negative in compression),
    /// `shear_force` ((n,), N) and `elastic` ((n,), J, the energy each stores).
    #[getter]
    fn bonds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let list = &g.sim.bonds.set.list;
        let ids: Vec<i64> = list.iter().flat_map(|b| b.ids.map(|x| x as i64)).collect();
        let ids = ids.into_pyarray(py).reshape([list.len(), 2])?;
        let normal = |b: &dem_core::engines::bond::Bond| {
            b.l6.map_or(nalgebra::Vector3::zeros(), |l6| l6.frame.row(0).transpose())
        };
        let tension: Vec<f64> = list.iter().map(|b| -normal(b).dot(&b.force)).collect();
        let shear: Vec<f64> = list
            .iter()
            .map(|b| (b.force - normal(b) * normal(b).dot(&b.force)).norm())
            .collect();
        let elastic: Vec<f64> = list.iter().map(|b| b.elastic).collect();
        let d = PyDict::new(py);
        d.set_item("ids", ids)?;
        d.set_item("tension", tension.into_pyarray(py))?;
        d.set_item("shear_force", shear.into_pyarray(py))?;
        d.set_item("elastic", elastic.into_pyarray(py))?;
        Ok(d)
    }

    /// The bonds' counts: a dict of `made` (at t = 0 and since, by `reform` rules),
    /// `intact`, `broken` and `removed` (gone with a sphere an outlet or Python removed).
    #[getter]
    fn bond_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let set = &g.sim.bonds.set;
        let d = PyDict::new(py);
        d.set_item("made", set.made)?;
        d.set_item("intact", set.list.len())?;
        d.set_item("broken", set.broken)?;
        d.set_item("removed", set.removed)?;
        Ok(d)
    }
}
