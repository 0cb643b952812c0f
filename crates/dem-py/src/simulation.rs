//! `dem.Simulation`: a scene loaded with its plugins, stepped from Python, checkpointed and
//! written out as the `dem` command writes it; its state is read and set in
//! [`crate::accessors`].

use crate::errors::to_py;
use crate::plugin_search;
use crate::progress;
use crate::state::{self, Field};
use dem_core::engines::motion::Motion;
use dem_core::files::output;
use dem_core::files::py_record::PyRecord;
use dem_core::model::energy::Ledger;
use dem_core::support::threads::Threads;
use dem_core::{Checkpoint, DemError, PluginSet, Scene};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often a run gives the interpreter a chance to see Ctrl-C (it runs its signal
/// handlers only when a thread holds the GIL).
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// The solver's state with what the module keeps beside it.
pub(crate) struct Inner {
    pub(crate) sim: dem_core::Simulation,
    pub(crate) plugins: PluginSet,
    pub(crate) record: PyRecord,
    /// Output frames (step, time) written by `write_vtk`, per directory (its `.pvd` files
    /// list them).
    frames: HashMap<PathBuf, Vec<(u64, f64)>>,
    /// The plugin libraries and directories given with `plugins=` (a copy made by pickle
    /// loads them again).
    pub(crate) explicit: Vec<PathBuf>,
}

impl Inner {
    /// One step; books the energy row of the step before it at the output steps, as the
    /// `dem` command writes it to `energy.csv`.
    fn step(&mut self) -> Result<(), DemError> {
        let t = self.sim.time;
        self.sim.step()?;
        let (step, every) = (self.sim.step, self.sim.scene.output.every.max(1));
        if (step - 1).is_multiple_of(every) || step == self.sim.end_step {
            self.record.energy.push((step - 1, t, self.sim.ledger));
        }
        Ok(())
    }

    /// Books energy added from outside (a state or gravity set from Python) as work done
    /// on the particles, so that the ledger's total stays balanced.
    pub(crate) fn book(&mut self, added: f64) {
        self.sim.ledger.boundary_work += added;
    }
}

/// Changes the parameters of motion `k` now (see `dem_core::engines::motion::Prescribed::change`);
/// errors name the motion and the field.
pub(crate) fn set_motion(
    sim: &mut dem_core::Simulation,
    k: usize,
    motion: Motion,
) -> Result<(), String> {
    let (n, t) = (sim.motions.len(), sim.time);
    let g = sim
        .motions
        .get_mut(k)
        .ok_or_else(|| format!("motion {k}: no such motion (the scene has {n})"))?;
    g.change(motion, t).map_err(|e| format!("motion {k}: {e}"))
}

pub(crate) fn value_error(e: String) -> PyErr {
    PyValueError::new_err(e)
}

/// A simulation: a scene turned into particles and contact functors, advanced step by step.
///
/// Build one with `Simulation.load`, `Simulation.from_ron` or `Simulation.resume`.
#[pyclass(module = "dem", name = "Simulation", frozen)]
pub struct PySimulation {
    inner: Mutex<Inner>,
    pool: rayon::ThreadPool,
}

fn pool(threads: Option<usize>) -> PyResult<rayon::ThreadPool> {
    if threads == Some(0) {
        return Err(value_error(
            "threads=0: a run needs at least 1 thread (leave it out to let dem choose)".into(),
        ));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or_else(|| dem_core::support::threads::available(1)))
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start worker threads: {e}")))
}

fn paths(plugins: Option<Vec<PathBuf>>) -> Vec<PathBuf> {
    plugins.unwrap_or_default()
}

impl PySimulation {
    /// Builds a simulation in a pool of `threads` (None: as `dem` chooses).
    pub(crate) fn build(
        py: Python<'_>,
        threads: Option<usize>,
        make: impl FnOnce() -> Result<Inner, DemError> + Send,
    ) -> PyResult<PySimulation> {
        let pool = pool(threads)?;
        let mut inner = py.detach(|| pool.install(make)).map_err(to_py)?;
        // Without `threads`, as many as the work pays for (see `dem_core::support::threads`).
        inner.sim.set_threads(match threads {
            Some(_) => Threads::Pool,
            None => Threads::Auto,
        });
        Ok(PySimulation {
            inner: Mutex::new(inner),
            pool,
        })
    }

    fn new_run(scene: Scene, explicit: &[PathBuf]) -> Result<Inner, DemError> {
        let plugins = plugin_search::load(Some(&scene), explicit)?;
        let sim = dem_core::Simulation::new(scene, &plugins)?;
        Ok(Inner {
            sim,
            plugins,
            record: PyRecord::default(),
            frames: HashMap::new(),
            explicit: explicit.to_vec(),
        })
    }

    /// The run a checkpoint holds (read from `path`, which errors name), with its plugins.
    pub(crate) fn restored(
        mut ck: Checkpoint,
        path: &Path,
        explicit: &[PathBuf],
    ) -> Result<Inner, DemError> {
        let extra = std::mem::take(&mut ck.extra);
        let record = PyRecord::from_bytes(&extra).map_err(|reason| DemError::Checkpoint {
            path: path.to_path_buf(),
            reason,
        })?;
        let scene = ck.scene()?;
        let plugins = plugin_search::load(Some(&scene), explicit)?;
        let sim = ck.restore(scene, &plugins, path)?;
        Ok(Inner {
            sim,
            plugins,
            record: record.unwrap_or_default(),
            frames: HashMap::new(),
            explicit: explicit.to_vec(),
        })
    }

    /// The stepping of `run`: between stretches of steps (at most [`SIGNAL_CHECK`] long,
    /// or up to the next call into Python) it checks Ctrl-C, calls `callback` and `until`
    /// every `every` steps from `first`, and moves the progress bar.
    fn run_loop(
        slf: &Bound<'_, Self>,
        (first, every, python_calls): (u64, u64, bool),
        done: &(dyn Fn(&Inner) -> bool + Sync),
        (callback, until): (&Option<Bound<'_, PyAny>>, &Option<Bound<'_, PyAny>>),
        bar: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let py = slf.py();
        let this = slf.get();
        let mut shown = first;
        loop {
            let finished = py.detach(|| -> Result<bool, DemError> {
                let start = Instant::now();
                this.pool.install(|| {
                    let mut g = this.inner.lock().expect("not poisoned: checked above");
                    loop {
                        if done(&g) {
                            return Ok(true);
                        }
                        g.step()?;
                        let at_call = python_calls && (g.sim.step - first).is_multiple_of(every);
                        if at_call || start.elapsed() >= SIGNAL_CHECK {
                            return Ok(done(&g));
                        }
                    }
                })
            });
            let finished = finished.map_err(to_py)?;
            // Ctrl-C: KeyboardInterrupt, between two steps.
            py.check_signals()?;
            let step = this.lock()?.sim.step;
            if let Some(b) = bar {
                b.call_method1("update", (step - shown,))?;
                shown = step;
            }
            if python_calls && step != first && (step - first).is_multiple_of(every) {
                if let Some(f) = &callback {
                    f.call1((slf,))?;
                }
                if let Some(u) = &until {
                    if u.call1((slf,))?.is_truthy()? {
                        break;
                    }
                }
            }
            if finished {
                break;
            }
        }
        Ok(())
    }

    /// The state now as checkpoint bytes (the module's energy rows included).
    pub(crate) fn checkpoint_bytes(&self, py: Python<'_>) -> PyResult<Vec<u8>> {
        let g = self.lock()?;
        Ok(py.detach(|| Checkpoint::capture(&g.sim, &g.plugins, g.record.to_bytes()).to_bytes()))
    }

    /// The threads given when it was made (None: chosen by dem).
    pub(crate) fn threads_given(&self) -> PyResult<Option<usize>> {
        let g = self.lock()?;
        Ok(match g.sim.thread_choice() {
            Threads::Pool => Some(self.pool.current_num_threads()),
            _ => None,
        })
    }

    pub(crate) fn lock(&self) -> PyResult<MutexGuard<'_, Inner>> {
        self.inner.lock().map_err(|_| {
            PyRuntimeError::new_err(
                "the simulation panicked during an earlier call: its state is lost",
            )
        })
    }

    /// Reads `values` as an (n, 3) array of floats.
    pub(crate) fn rows3(values: &Bound<'_, PyAny>) -> PyResult<Vec<[f64; 3]>> {
        let py = values.py();
        let np = py.import("numpy")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("dtype", "float64")?;
        let arr = np.call_method("asarray", (values,), Some(&kwargs))?;
        let arr = arr.cast::<PyArrayDyn<f64>>()?;
        let shape = arr.shape().to_vec();
        let rows = match shape.as_slice() {
            [3] => 1,
            [n, 3] => *n,
            _ => {
                return Err(value_error(format!(
                    "expected an array of shape (n, 3) (or one [x, y, z]), got shape {shape:?}"
                )))
            }
        };
        let flat = arr.to_vec().map_err(|e| value_error(e.to_string()))?;
        Ok((0..rows)
            .map(|r| [flat[3 * r], flat[3 * r + 1], flat[3 * r + 2]])
            .collect())
    }

    pub(crate) fn set(
        &self,
        field: Field,
        values: &Bound<'_, PyAny>,
        ids: Option<Vec<i64>>,
    ) -> PyResult<()> {
        let rows = Self::rows3(values)?;
        let mut g = self.lock()?;
        let added =
            state::set_vectors(&mut g.sim, field, ids.as_deref(), &rows).map_err(value_error)?;
        g.book(added);
        Ok(())
    }

    pub(crate) fn vectors<'py>(
        &self,
        py: Python<'py>,
        field: Field,
    ) -> PyResult<Bound<'py, PyAny>> {
        let g = self.lock()?;
        let flat = state::vectors(&g.sim, field);
        drop(g);
        rows_array(py, flat, 3)
    }
}

/// A flat buffer as an (n, width) array (the buffer is moved, not copied).
pub(crate) fn rows_array(
    py: Python<'_>,
    flat: Vec<f64>,
    width: usize,
) -> PyResult<Bound<'_, PyAny>> {
    let n = flat.len() / width;
    let a = Array2::from_shape_vec((n, width), flat).expect("whole rows");
    Ok(a.into_pyarray(py).into_any())
}

pub(crate) fn ledger_dict<'py>(py: Python<'py>, l: &Ledger) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, x) in Ledger::COLUMNS.iter().zip(l.row()) {
        d.set_item(name, x)?;
    }
    Ok(d)
}

#[pymethods]
impl PySimulation {
    /// A simulation of a scene built in Python (`dem.scene.Scene`): its `to_ron()` text
    /// loaded as `from_ron` loads a scene, from its `base_dir` (errors name the line of
    /// that text).
    #[new]
    #[pyo3(signature = (scene, plugins=None, threads=None))]
    fn new(
        py: Python<'_>,
        scene: &Bound<'_, PyAny>,
        plugins: Option<Vec<PathBuf>>,
        threads: Option<usize>,
    ) -> PyResult<PySimulation> {
        let text: String = scene.call_method0("to_ron")?.extract()?;
        let base: PathBuf = scene.getattr("base_dir")?.extract()?;
        Self::from_ron(py, &text, base, "scene.ron", plugins, threads)
    }

    /// Loads a scene file and its plugins.
    #[staticmethod]
    #[pyo3(signature = (path, plugins=None, threads=None))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        plugins: Option<Vec<PathBuf>>,
        threads: Option<usize>,
    ) -> PyResult<PySimulation> {
        let explicit = paths(plugins);
        Self::build(py, threads, || {
            let scene = Scene::load(&path)?;
            Self::new_run(scene, &explicit)
        })
    }

    /// Builds a simulation from scene text; `base_dir` is where the scene's relative paths
    /// (meshes, CSV files, plugins) start, and `name` the file name errors give.
    #[staticmethod]
    #[pyo3(signature = (text, base_dir=PathBuf::from("."), name="scene.ron", plugins=None, threads=None))]
    fn from_ron(
        py: Python<'_>,
        text: &str,
        base_dir: PathBuf,
        name: &str,
        plugins: Option<Vec<PathBuf>>,
        threads: Option<usize>,
    ) -> PyResult<PySimulation> {
        let explicit = paths(plugins);
        let origin = base_dir.join(name);
        Self::build(py, threads, || {
            let scene = Scene::parse(text, &origin)?;
            Self::new_run(scene, &explicit)
        })
    }

    /// Goes on with a checkpointed run (written by `checkpoint` or by `dem run
    /// --checkpoint-every`).
    #[staticmethod]
    #[pyo3(signature = (checkpoint, plugins=None, threads=None))]
    fn resume(
        py: Python<'_>,
        checkpoint: PathBuf,
        plugins: Option<Vec<PathBuf>>,
        threads: Option<usize>,
    ) -> PyResult<PySimulation> {
        let explicit = paths(plugins);
        Self::build(py, threads, || {
            Self::restored(Checkpoint::read(&checkpoint)?, &checkpoint, &explicit)
        })
    }

    /// Advances the simulation; returns the number of steps done.
    #[pyo3(signature = (steps=None, time=None, until=None, every=None, callback=None, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        slf: &Bound<'_, Self>,
        steps: Option<i64>,
        time: Option<f64>,
        until: Option<Bound<'_, PyAny>>,
        every: Option<i64>,
        callback: Option<Bound<'_, PyAny>>,
        progress: Option<bool>,
    ) -> PyResult<u64> {
        let py = slf.py();
        let this = slf.get();
        // Taken as signed integers, so that a negative count gets this message rather than
        // Python's "can't convert negative int to unsigned".
        let steps = match steps {
            Some(n) if n < 0 => {
                return Err(value_error(format!("steps={n}: steps must be >= 0")));
            }
            n => n.map(|n| n as u64),
        };
        let every = match every {
            Some(n) if n < 1 => {
                return Err(value_error(format!(
                    "every={n}: give a number of steps >= 1"
                )));
            }
            n => n.map(|n| n as u64),
        };
        if let Some(t) = time {
            if !(t >= 0.0 && t.is_finite()) {
                return Err(value_error(format!(
                    "time={t}: give a finite simulated time >= 0, s"
                )));
            }
        }
        let (first, t0, scene_every, dt, end) = {
            let g = this.lock()?;
            let s = &g.sim;
            (
                s.step,
                s.time,
                s.scene.output.every.max(1),
                s.dt(),
                s.end_step,
            )
        };
        let last_step = steps.map(|n| first.saturating_add(n));
        let last_time = time.map(|t| t0 + t);
        let to_scene_end = steps.is_none() && time.is_none();
        let every = every.unwrap_or(scene_every);
        let python_calls = until.is_some() || callback.is_some();
        let done = |g: &Inner| {
            last_step.is_some_and(|s| g.sim.step >= s)
                || last_time.is_some_and(|t| g.sim.time >= t)
                || (to_scene_end && g.sim.step >= g.sim.end_step)
        };
        // The steps the run will take at most, for a progress bar.
        let total = [
            steps,
            time.map(|t| (t / dt).ceil() as u64),
            to_scene_end.then(|| end.saturating_sub(first)),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(0);
        let bar = progress::progress_bar(py, progress, total)?;
        let stepped = Self::run_loop(
            slf,
            (first, every, python_calls),
            &done,
            (&callback, &until),
            bar.as_ref(),
        );
        if let Some(b) = &bar {
            b.call_method0("close")?;
        }
        stepped?;
        Ok(this.lock()?.sim.step - first)
    }

    /// Writes a checkpoint of the state now (atomically and durably).
    fn checkpoint(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let bytes = self.checkpoint_bytes(py)?;
        output::write_durable(&path, &bytes).map_err(|source| to_py(DemError::Io { path, source }))
    }

    /// Writes a VTK frame of the state now into `dir` (particles, contacts, walls, and
    /// polyhedra) and rewrites the `.pvd` collections there to list this object's frames.
    fn write_vtk(&self, dir: PathBuf) -> PyResult<()> {
        let mut g = self.lock()?;
        std::fs::create_dir_all(&dir).map_err(|source| {
            to_py(DemError::Io {
                path: dir.clone(),
                source,
            })
        })?;
        let (step, time) = (g.sim.step, g.sim.time);
        let inner = &mut *g;
        let frames = inner.frames.entry(dir.clone()).or_default();
        if frames.last().is_none_or(|&(s, _)| s != step) {
            frames.push((step, time));
        }
        output::write_vtk(&dir, &inner.sim, frames).map_err(to_py)
    }

    /// Writes `particles.csv` (the state now, as `dem run` writes it at the end) into
    /// `dir`; returns its path.
    fn write_particles_csv(&self, dir: PathBuf) -> PyResult<PathBuf> {
        let g = self.lock()?;
        std::fs::create_dir_all(&dir).map_err(|source| {
            to_py(DemError::Io {
                path: dir.clone(),
                source,
            })
        })?;
        output::write_particles(&dir, &g.sim).map_err(to_py)
    }

    /// Writes `energy.csv` (the ledger at the output steps so far, as `dem run` writes
    /// it) into `dir`; returns its path.
    fn write_energy_csv(&self, dir: PathBuf) -> PyResult<PathBuf> {
        let g = self.lock()?;
        let path = dir.join("energy.csv");
        let io = |source| {
            to_py(DemError::Io {
                path: path.clone(),
                source,
            })
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        output::write_atomic(&path, output::energy_csv(&g.record.energy).as_bytes()).map_err(io)?;
        Ok(path)
    }
}

/// The plugin catalogue, as `dem plugins --json` prints it.
pub fn catalogue<'py>(py: Python<'py>, explicit: &[PathBuf]) -> PyResult<Bound<'py, PyAny>> {
    let set = plugin_search::load(None, explicit).map_err(to_py)?;
    let text = dem_core::setup::catalogue::to_json(&set).to_string();
    py.import("json")?.call_method1("loads", (text,))
}
