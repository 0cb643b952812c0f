//! The prescribed motions of a `dem.Simulation` from Python: read as dicts, and their
//! parameters changed between steps (checked as the scene's, the motion re-anchored so that
//! its pose is continuous; see `dem_core::engines::motion`).

use crate::simulation::{set_motion, value_error, PySimulation};
use dem_core::engines::motion::Motion;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The parameters of each kind of motion, as the scene names them.
fn parameters(m: &Motion) -> &'static [&'static str] {
    match m {
        Motion::Translate { .. } => &["velocity"],
        Motion::Rotate { .. } => &["center", "axis", "omega"],
        Motion::Shake { .. } => &["amplitude", "frequency"],
        Motion::Servo { .. } => &["stress", "area", "max_velocity", "gain"],
    }
}

/// `m` with its parameter `name` set to `value` (a vector [x, y, z] or a number); errors
/// name the parameter (the caller adds the motion).
fn with(m: Motion, name: &str, value: &Bound<'_, PyAny>) -> PyResult<Motion> {
    let number = || {
        value
            .extract::<f64>()
            .map_err(|_| value_error(format!("{name}: give a number, got {value}")))
    };
    let vector = || -> PyResult<[f64; 3]> {
        match PySimulation::rows3(value).map(|rows| rows.as_slice().to_vec()) {
            Ok(rows) if rows.len() == 1 => Ok(rows[0]),
            _ => Err(value_error(format!(
                "{name}: give one [x, y, z], got {value}"
            ))),
        }
    };
    let mut m = m;
    match (&mut m, name) {
        (Motion::Translate { velocity }, "velocity") => *velocity = vector()?,
        (Motion::Rotate { center, .. }, "center") => *center = vector()?,
        (Motion::Rotate { axis, .. }, "axis") => *axis = vector()?,
        (Motion::Rotate { omega, .. }, "omega") => *omega = number()?,
        (Motion::Shake { amplitude, .. }, "amplitude") => *amplitude = vector()?,
        (Motion::Shake { frequency, .. }, "frequency") => *frequency = number()?,
        (Motion::Servo { stress, .. }, "stress") => *stress = number()?,
        (Motion::Servo { area, .. }, "area") => *area = number()?,
        (Motion::Servo { max_velocity, .. }, "max_velocity") => *max_velocity = number()?,
        (Motion::Servo { gain, .. }, "gain") => *gain = number()?,
        _ => {
            return Err(value_error(format!(
                "a {} has no parameter `{name}` (its parameters: {})",
                m.kind(),
                parameters(&m).join(", ")
            )))
        }
    }
    Ok(m)
}

impl PySimulation {
    /// Changes the parameters of motion `index` named in `params` (the others keep their
    /// values), all checked before any is taken.
    fn change_motion(&self, index: usize, params: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        let mut g = self.lock()?;
        let n = g.sim.motions.len();
        let Some(now) = g.sim.motions.get(index).map(|m| m.motion) else {
            return Err(value_error(format!(
                "motion {index}: no such motion (the scene has {n})"
            )));
        };
        let mut m = now;
        for (name, value) in params.into_iter().flatten() {
            let name: String = name.extract()?;
            m = with(m, &name, &value)
                .map_err(|e| value_error(format!("motion {index}: {}", e.value(value.py()))))?;
        }
        set_motion(&mut g.sim, index, m).map_err(value_error)
    }
}

#[pymethods]
impl PySimulation {
    /// The boundaries with a prescribed motion (scene order): a list of dicts with
    /// `index`, `kind` and its parameters, and `ids` (scene ids of the moved particles).
    fn motions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let g = self.lock()?;
        let list = PyList::empty(py);
        for (k, m) in g.sim.motions.iter().enumerate() {
            let d = PyDict::new(py);
            d.set_item("index", k)?;
            d.set_item("kind", m.motion.kind())?;
            match m.motion {
                Motion::Translate { velocity } => {
                    d.set_item("velocity", velocity)?;
                }
                Motion::Rotate {
                    center,
                    axis,
                    omega,
                } => {
                    d.set_item("center", center)?;
                    d.set_item("axis", axis)?;
                    d.set_item("omega", omega)?;
                }
                Motion::Shake {
                    amplitude,
                    frequency,
                } => {
                    d.set_item("amplitude", amplitude)?;
                    d.set_item("frequency", frequency)?;
                }
                Motion::Servo {
                    stress,
                    area,
                    max_velocity,
                    gain,
                } => {
                    d.set_item("stress", stress)?;
                    d.set_item("area", area)?;
                    d.set_item("max_velocity", max_velocity)?;
                    d.set_item("gain", gain)?;
                    d.set_item("measured_stress", m.servo.stress)?;
                    d.set_item("displacement", m.servo.displacement)?;
                }
            }
            let ids: Vec<usize> = m.members.iter().map(|&i| g.sim.order.id(i)).collect();
            d.set_item("ids", ids)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// Changes parameters of motion `index` (see `motions()`) by name, e.g.
    /// `set_motion(0, velocity=[0, 0, 0.1])`; the others keep their values.
    #[pyo3(signature = (index, **params))]
    fn set_motion(&self, index: usize, params: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        self.change_motion(index, params)
    }

    /// Changes the settings of servo-controlled wall `index` (see `motions()`); the others
    /// keep their values.
    #[pyo3(signature = (index, stress=None, area=None, max_velocity=None, gain=None))]
    fn set_servo(
        &self,
        py: Python<'_>,
        index: usize,
        stress: Option<f64>,
        area: Option<f64>,
        max_velocity: Option<f64>,
        gain: Option<f64>,
    ) -> PyResult<()> {
        let kind = self.lock()?.sim.motions.get(index).map(|m| m.motion.kind());
        if let Some(kind) = kind.filter(|&k| k != "Servo") {
            return Err(value_error(format!(
                "motion {index} is a {kind}, not a Servo: change it with set_motion"
            )));
        }
        let params = PyDict::new(py);
        let given = [
            ("stress", stress),
            ("area", area),
            ("max_velocity", max_velocity),
            ("gain", gain),
        ];
        for (name, x) in given {
            if let Some(x) = x {
                params.set_item(name, x)?;
            }
        }
        self.change_motion(index, Some(&params))
    }
}
