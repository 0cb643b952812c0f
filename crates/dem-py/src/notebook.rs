//! A `dem.Simulation` in notebooks and sweeps: copies by `pickle` and `copy.deepcopy`
//! (through the checkpoint's bytes, so a copy goes on bitwise as the original would) and
//! an HTML summary for Jupyter.

use crate::simulation::{Inner, PySimulation};
use dem_core::Checkpoint;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::path::{Path, PathBuf};

/// The name a pickled state goes by in error messages.
const PICKLED: &str = "<pickled dem.Simulation>";

/// Escapes text for HTML.
fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[pymethods]
impl PySimulation {
    /// A simulation from the bytes `__reduce__` gives (a checkpoint's), with the
    /// plugins `plugins` and `threads` threads: how `pickle` and `copy` make one.
    #[staticmethod]
    #[pyo3(signature = (data, plugins=None, threads=None))]
    fn _from_checkpoint_bytes(
        py: Python<'_>,
        data: &[u8],
        plugins: Option<Vec<PathBuf>>,
        threads: Option<usize>,
    ) -> PyResult<PySimulation> {
        let explicit = plugins.unwrap_or_default();
        let data = data.to_vec();
        Self::build(py, threads, move || {
            let path = Path::new(PICKLED);
            Self::restored(Checkpoint::from_bytes(&data, path)?, path, &explicit)
        })
    }

    /// For `pickle`: the state as checkpoint bytes, with the plugins and threads it was
    /// made with. The copy finds its plugins as this process did (the same files must be
    /// there), goes on bitwise as the original would, and keeps its energy rows (not the
    /// list of VTK frames written).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let bytes = PyBytes::new(py, &this.checkpoint_bytes(py)?);
        let explicit = this.lock()?.explicit.clone();
        let make = slf.get_type().getattr("_from_checkpoint_bytes")?;
        let args = (bytes, explicit, this.threads_given()?).into_pyobject(py)?;
        (make, args).into_pyobject(py)
    }

    /// `copy.copy`: a whole copy (nothing is shared between two simulations).
    fn __copy__(slf: &Bound<'_, Self>) -> PyResult<PySimulation> {
        let py = slf.py();
        let this = slf.get();
        let bytes = this.checkpoint_bytes(py)?;
        let explicit = this.lock()?.explicit.clone();
        Self::_from_checkpoint_bytes(py, &bytes, Some(explicit), this.threads_given()?)
    }

    /// `copy.deepcopy`: as `copy.copy`.
    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> PyResult<PySimulation> {
        Self::__copy__(slf)
    }

    /// Jupyter's summary: the scene, the step and time, the particles and contacts, the
    /// ledger.
    fn _repr_html_(&self) -> PyResult<String> {
        let g = self.lock()?;
        let inner: &Inner = &g;
        let s = &inner.sim;
        let l = &s.ledger;
        let rows = [
            ("scene", html(&s.scene.origin.display().to_string())),
            ("step", format!("{} of {}", s.step, s.end_step)),
            ("time", format!("{:.6e} s (dt {:.3e} s)", s.time, s.dt())),
            ("particles", s.particles.len().to_string()),
            ("live contacts", s.contacts.active().to_string()),
            (
                "kinetic + rotational",
                format!("{:.6e} J", l.kinetic + l.rotational),
            ),
            ("elastic", format!("{:.6e} J", l.elastic)),
            (
                "dissipated",
                format!("{:.6e} J", l.friction + l.damping + l.nonviscous),
            ),
            ("ledger total", format!("{:.6e} J", l.total())),
        ];
        let body: String = rows
            .iter()
            .map(|(k, v)| format!("<tr><th style=\"text-align:left\">{k}</th><td>{v}</td></tr>"))
            .collect();
        Ok(format!(
            "<table><caption>dem.Simulation</caption>{body}</table>"
        ))
    }
}
