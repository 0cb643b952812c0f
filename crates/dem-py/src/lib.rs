//! `dem`: the Python front end of the dem solver (pyo3). The compiled part is `dem._dem`;
//! `python/dem/__init__.py` re-exports it. See docs/python.md.
//!
//! Floors, bottom first: `errors`, `plugin_search`, `progress`, `state`; `simulation`
//! (the `Simulation` class); `accessors`, `fields`, `loads`, `motions`, `notebook` and
//! `population` (its numpy views, coarse-grained fields, loads applied from outside,
//! moving boundaries, pickle, copies and the HTML summary, and removing particles); this
//! file, the module, on top.

mod accessors;
mod changes;
mod errors;
mod fields;
mod loads;
mod motions;
mod notebook;
mod bonds;
mod particle_fields;
mod plugin_search;
mod population;
mod progress;
mod simulation;
mod state;

use pyo3::prelude::*;
use std::path::PathBuf;

/// The plugin catalogue: every loaded library with its functors (name, role, shapes,
/// description, defaults, parameters with units) and the libraries refused, as
/// `dem plugins --json` prints it.
#[pyfunction]
#[pyo3(signature = (plugins=None))]
fn plugins(py: Python<'_>, plugins: Option<Vec<PathBuf>>) -> PyResult<Bound<'_, PyAny>> {
    simulation::catalogue(py, &plugins.unwrap_or_default())
}

/// The directories scanned for plugins after the scene's list and `plugins=[...]`:
/// `DEM_PLUGIN_PATH`; when neither gives any, the plugins the wheel carries (else the
/// repository's `target/release`).
#[pyfunction]
#[pyo3(signature = (plugins=None))]
fn plugin_dirs(plugins: Option<Vec<PathBuf>>) -> Vec<PathBuf> {
    plugin_search::default_dirs(&plugins.unwrap_or_default())
}

#[pymodule]
fn _dem(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Warnings of the solver and the plugins go to stderr, as the `dem` command's
    // (RUST_LOG filters them).
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
    let py = m.py();
    // The wheel's plugins are in `dem/plugins`, beside this module's file.
    if let Ok(file) = m.getattr("__file__").and_then(|f| f.extract::<PathBuf>()) {
        if let Some(dir) = file.parent() {
            plugin_search::set_package_dir(dir);
        }
    }
    m.add_class::<simulation::PySimulation>()?;
    m.add_function(wrap_pyfunction!(plugins, m)?)?;
    m.add_function(wrap_pyfunction!(plugin_dirs, m)?)?;
    m.add("Error", py.get_type::<errors::Error>())?;
    m.add("SceneError", py.get_type::<errors::SceneError>())?;
    m.add("PluginError", py.get_type::<errors::PluginError>())?;
    m.add("CheckpointError", py.get_type::<errors::CheckpointError>())?;
    m.add("StateError", py.get_type::<errors::StateError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
