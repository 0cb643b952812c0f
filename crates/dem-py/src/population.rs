//! Changing a `dem.Simulation`'s population from Python between steps (see
//! `dem_core::Simulation::remove_particles` and `add_spheres`).

use crate::simulation::{value_error, PySimulation};
use dem_core::step::simulation::population::NewSphere;
use nalgebra::Vector3;
use numpy::IntoPyArray;
use pyo3::prelude::*;

#[pymethods]
impl PySimulation {
    /// Adds spheres between two steps, as an inlet inserts them: `centers` (n, 3) m,
    /// `radii` (n,) m (or one for all), of `material`, with `velocities` and
    /// `angular_velocities` (n, 3) (zero when None). Their energy is booked as `inflow`.
    /// Returns their scene ids. ValueError naming the sphere (nothing added) for a bad
    /// radius, an unknown material, non-finite values or an overlap with a sphere or a
    /// wall.
    #[pyo3(signature = (centers, radii, material, velocities=None, angular_velocities=None))]
    fn add_spheres<'py>(
        &self,
        py: Python<'py>,
        centers: &Bound<'py, PyAny>,
        radii: &Bound<'py, PyAny>,
        material: &str,
        velocities: Option<&Bound<'py, PyAny>>,
        angular_velocities: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let centers = Self::rows3(centers)?;
        let n = centers.len();
        let radii: Vec<f64> = match radii.extract::<f64>() {
            Ok(r) => vec![r; n],
            Err(_) => py
                .import("numpy")?
                .call_method1("asarray", (radii, "float64"))?
                .call_method0("tolist")?
                .extract()?,
        };
        let rows = |v: Option<&Bound<'py, PyAny>>, what: &str| -> PyResult<Vec<[f64; 3]>> {
            match v {
                None => Ok(vec![[0.0; 3]; n]),
                Some(v) => {
                    let r = Self::rows3(v)?;
                    if r.len() != n {
                        return Err(value_error(format!("{} {what} for {n} spheres", r.len())));
                    }
                    Ok(r)
                }
            }
        };
        let (vel, angvel) = (
            rows(velocities, "velocities")?,
            rows(angular_velocities, "angular velocities")?,
        );
        if radii.len() != n {
            return Err(value_error(format!(
                "{} radii for {n} spheres",
                radii.len()
            )));
        }
        let spheres: Vec<NewSphere> = (0..n)
            .map(|k| NewSphere {
                center: Vector3::from(centers[k]),
                radius: radii[k],
                material: material.to_string(),
                velocity: Vector3::from(vel[k]),
                angular_velocity: Vector3::from(angvel[k]),
            })
            .collect();
        let ids = self
            .lock()?
            .sim
            .add_spheres(&spheres)
            .map_err(value_error)?;
        let ids: Vec<i64> = ids.into_iter().map(|id| id as i64).collect();
        Ok(ids.into_pyarray(py).into_any())
    }

    /// Adds bodies between two steps, written as a scene's `bodies`: a list of
    /// `dem.scene` variants (`Polyhedron(vertices=..., material="rock")`,
    /// `Clump(template="pair", position=(0, 0, 0.1), material="glass")`, `Sphere(...)`,
    /// generators such as `RandomFill(...)`) or its RON text. Returns the scene ids of
    /// their particles (a clump's members). Their energy is booked as `inflow`.
    /// ValueError (nothing added) naming the body for what the scene parser refuses,
    /// walls, meshes and blocked degrees of freedom, a rigid material, an overlap with a
    /// particle present or another added body, a shape the run has no functor for, or a
    /// critical step below the time step.
    fn add_bodies<'py>(
        &self,
        py: Python<'py>,
        bodies: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let text: String = if bodies.is_instance_of::<pyo3::types::PyString>() {
            bodies.extract()?
        } else {
            let list = py.import("builtins")?.call_method1("list", (bodies,))?;
            py.import("dem.scene")?
                .call_method1("to_ron", (list,))?
                .extract()?
        };
        let mut g = self.lock()?;
        let inner = &mut *g;
        let ids = (inner.sim)
            .add_bodies_with(&inner.plugins, &text)
            .map_err(value_error)?;
        drop(g);
        let ids: Vec<i64> = ids.into_iter().map(|id| id as i64).collect();
        Ok(ids.into_pyarray(py).into_any())
    }

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
