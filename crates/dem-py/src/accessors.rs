//! The state of a `dem.Simulation` as numpy arrays in scene-id order (copies), the ledger,
//! and the contacts; the setters check their values as the scene's
//! are checked and raise `ValueError`s naming the particle.

use crate::simulation::{ledger_dict, rows_array, value_error, PySimulation};
use crate::state::{self, Field};
use dem_core::model::energy::Ledger;
use numpy::ndarray::Array2;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

#[pymethods]
impl PySimulation {
    /// Number of particles (walls and mesh facets included).
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.lock()?.sim.particles.len())
    }

    fn __repr__(&self) -> PyResult<String> {
        let g = self.lock()?;
        Ok(format!(
            "<dem.Simulation {}: {} particles, step {} of {}, t = {:e} s>",
            g.sim.scene.origin.display(),
            g.sim.particles.len(),
            g.sim.step,
            g.sim.end_step,
            g.sim.time
        ))
    }

    /// Steps done.
    #[getter]
    fn step(&self) -> PyResult<u64> {
        Ok(self.lock()?.sim.step)
    }

    /// The step at which the scene's duration ends (or a stop condition ended it).
    #[getter]
    fn end_step(&self) -> PyResult<u64> {
        Ok(self.lock()?.sim.end_step)
    }

    /// Time t, s.
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.lock()?.sim.time)
    }

    /// Time step, s.
    #[getter]
    fn dt(&self) -> PyResult<f64> {
        Ok(self.lock()?.sim.dt())
    }

    /// Critical time step estimate, s.
    #[getter]
    fn critical_dt(&self) -> PyResult<f64> {
        Ok(self.lock()?.sim.critical_dt)
    }

    /// The scene file (or the name given to `from_ron`).
    #[getter]
    fn scene_path(&self) -> PyResult<PathBuf> {
        Ok(self.lock()?.sim.scene.origin.clone())
    }

    /// Gravity, m/s^2.
    #[getter]
    fn gravity(&self) -> PyResult<[f64; 3]> {
        let g = self.lock()?.sim.integrator.gravity;
        Ok([g.x, g.y, g.z])
    }

    #[setter(gravity)]
    fn set_gravity(&self, gravity: &Bound<'_, PyAny>) -> PyResult<()> {
        let rows = Self::rows3(gravity)?;
        let [g] = rows.as_slice() else {
            return Err(value_error("gravity: give one [x, y, z], m/s^2".into()));
        };
        let mut inner = self.lock()?;
        let added = state::set_gravity(&mut inner.sim, *g).map_err(value_error)?;
        inner.book(added);
        Ok(())
    }

    /// Positions, m: (n, 3), scene-id order.
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.vectors(py, Field::Position)
    }

    /// Velocities (leap-frog mid-step values v(t - dt/2)), m/s: (n, 3), scene-id order.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.vectors(py, Field::Velocity)
    }

    /// Angular velocities, rad/s: (n, 3), scene-id order.
    #[getter]
    fn angular_velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.vectors(py, Field::AngularVelocity)
    }

    /// Forces of the last step (contacts and gravity), N: (n, 3), scene-id order.
    #[getter]
    fn forces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.vectors(py, Field::Force)
    }

    /// Torques of the last step, N m: (n, 3), scene-id order.
    #[getter]
    fn torques<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.vectors(py, Field::Torque)
    }

    /// Orientations as unit quaternions (x, y, z, w): (n, 4), scene-id order.
    #[getter]
    fn orientations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let flat = state::orientations(&self.lock()?.sim);
        rows_array(py, flat, 4)
    }

    /// Bounding radii, m (infinite for walls and facets): (n,), scene-id order.
    #[getter]
    fn radii<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.lock()?;
        let v = state::scalars(&g.sim, |i| state::radius(&g.sim, i));
        Ok(v.into_pyarray(py).into_any())
    }

    /// Masses, kg (infinite for walls, facets and fixed bodies): (n,), scene-id order.
    #[getter]
    fn masses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.lock()?;
        let v = state::scalars(&g.sim, |i| g.sim.particles.mass[i]);
        Ok(v.into_pyarray(py).into_any())
    }

    /// Material indices (into `material_names`): (n,), scene-id order.
    #[getter]
    fn materials<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.lock()?;
        let v = state::scalars(&g.sim, |i| g.sim.particles.material[i]);
        Ok(v.into_pyarray(py).into_any())
    }

    /// Scene ids of the rows of the per-particle arrays: 0 to n - 1, unless inlets inserted
    /// particles (their ids follow the scene's, in order of insertion) or outlets removed
    /// some (their ids are missing): (n,).
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.lock()?;
        let v: Vec<i64> = state::live(&g.sim)
            .into_iter()
            .map(|(id, _)| id as i64)
            .collect();
        Ok(v.into_pyarray(py).into_any())
    }

    /// The scene's material names, in index order (name order).
    #[getter]
    fn material_names(&self) -> PyResult<Vec<String>> {
        Ok(self.lock()?.sim.material_names.clone())
    }

    /// Shape names ("Sphere", "Wall", "Facet", "Polyhedron", or a plugin shape's own, e.g.
    /// "Superquadric"): (n,) array of str, scene-id order.
    #[getter]
    fn kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.lock()?;
        let v = state::scalars(&g.sim, |i| g.sim.particles.shape[i].name().to_string());
        drop(g);
        py.import("numpy")?.call_method1("array", (v,))
    }

    /// Sets positions (m) of the particles `ids` (scene ids; all when None).
    #[pyo3(signature = (values, ids=None))]
    fn set_positions(&self, values: &Bound<'_, PyAny>, ids: Option<Vec<i64>>) -> PyResult<()> {
        self.set(Field::Position, values, ids)
    }

    /// Sets velocities (m/s, mid-step values) of the particles `ids` (all when None).
    #[pyo3(signature = (values, ids=None))]
    fn set_velocities(&self, values: &Bound<'_, PyAny>, ids: Option<Vec<i64>>) -> PyResult<()> {
        self.set(Field::Velocity, values, ids)
    }

    /// Sets angular velocities (rad/s) of the particles `ids` (all when None).
    #[pyo3(signature = (values, ids=None))]
    fn set_angular_velocities(
        &self,
        values: &Bound<'_, PyAny>,
        ids: Option<Vec<i64>>,
    ) -> PyResult<()> {
        self.set(Field::AngularVelocity, values, ids)
    }

    /// The energy ledger now (J), as a dict of the columns of `energy.csv`.
    #[getter]
    fn ledger<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let l = self.lock()?.sim.ledger;
        ledger_dict(py, &l)
    }

    /// The ledger at the output steps so far (the rows of `energy.csv`): a pandas
    /// DataFrame when pandas is installed (and `dataframe` is not False), else a dict of
    /// numpy arrays.
    #[pyo3(signature = (dataframe=None))]
    fn energy<'py>(&self, py: Python<'py>, dataframe: Option<bool>) -> PyResult<Bound<'py, PyAny>> {
        let rows = self.lock()?.record.energy.clone();
        let d = PyDict::new(py);
        d.set_item(
            "step",
            rows.iter()
                .map(|r| r.0)
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        d.set_item(
            "time",
            rows.iter()
                .map(|r| r.1)
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        for (k, name) in Ledger::COLUMNS.iter().enumerate() {
            let col: Vec<f64> = rows.iter().map(|r| r.2.row()[k]).collect();
            d.set_item(name, col.into_pyarray(py))?;
        }
        if dataframe != Some(false) {
            match py.import("pandas") {
                Ok(pd) => return pd.call_method1("DataFrame", (d,)),
                Err(e) if dataframe == Some(true) => return Err(e),
                Err(_) => {}
            }
        }
        Ok(d.into_any())
    }

    /// The live contacts: a dict of arrays, one row per contact.
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let sim = &g.sim;
        let id = |i: usize| match &sim.periodic {
            Some(per) => sim.order.id(per.owner(i as u32) as usize) as i64,
            None => sim.order.id(i) as i64,
        };
        let (mut ids, mut point, mut normal, mut force) = (vec![], vec![], vec![], vec![]);
        let (mut fnormal, mut tangential, mut overlap) = (vec![], vec![], vec![]);
        let (mut elastic, mut friction, mut damping) = (vec![], vec![], vec![]);
        let (mut feature, mut onset, mut law) = (vec![], vec![], vec![]);
        // The law state: each contact's law's slots, NaN past its `state_len`.
        let laws = &sim.dispatch.laws;
        let width = laws.iter().map(|l| l.state_len).max().unwrap_or(0);
        let mut state: Vec<f64> = Vec::new();
        let states = sim.contacts.live_law_states(|l| laws[l as usize].state_len);
        for (((c, l6, pushed), born), values) in sim
            .contacts
            .live_with_geometry()
            .zip(sim.contacts.live_onsets())
            .zip(states)
        {
            law.push(laws[c.law as usize].name.clone());
            state.extend((0..width).map(|j| values.get(j).copied().unwrap_or(f64::NAN)));
            feature.push(i64::from(c.feature));
            onset.push(born.time);
            elastic.push(pushed.out.elastic);
            friction.push(pushed.out.friction);
            damping.push(pushed.out.damping);
            let (b1, b2) = c.bodies();
            let n = l6.frame.row(0).transpose();
            let f = pushed.force;
            let f_n = n * n.dot(&f);
            ids.extend([id(b1), id(b2)]);
            point.extend(l6.point.iter());
            normal.extend(n.iter());
            force.extend(f.iter());
            fnormal.push(n.dot(&f).abs());
            tangential.extend((f - f_n).iter());
            overlap.push((-l6.u.x).max(0.0));
        }
        drop(g);
        let d = PyDict::new(py);
        let m = fnormal.len();
        d.set_item(
            "ids",
            Array2::from_shape_vec((m, 2), ids)
                .expect("pairs")
                .into_pyarray(py),
        )?;
        d.set_item("point", rows_array(py, point, 3)?)?;
        d.set_item("normal", rows_array(py, normal, 3)?)?;
        d.set_item("force", rows_array(py, force, 3)?)?;
        d.set_item("normal_force", fnormal.into_pyarray(py))?;
        d.set_item("tangential_force", rows_array(py, tangential, 3)?)?;
        d.set_item("overlap", overlap.into_pyarray(py))?;
        d.set_item("feature", feature.into_pyarray(py))?;
        d.set_item("onset", onset.into_pyarray(py))?;
        d.set_item("elastic", elastic.into_pyarray(py))?;
        d.set_item("friction", friction.into_pyarray(py))?;
        d.set_item("damping", damping.into_pyarray(py))?;
        d.set_item("law", py.import("numpy")?.call_method1("array", (law,))?)?;
        let rows = Array2::from_shape_vec((m, width), state).expect("a row per contact");
        d.set_item("state", rows.into_pyarray(py))?;
        Ok(d)
    }

    /// The names of each law's state slots (the columns of `contacts()["state"]` for its
    /// contacts): law name -> list of names, its constants first.
    #[getter]
    fn law_state_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let d = PyDict::new(py);
        for law in &g.sim.dispatch.laws {
            d.set_item(&law.name, law.slot_names.clone())?;
        }
        Ok(d)
    }
}
