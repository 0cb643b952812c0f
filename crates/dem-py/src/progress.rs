//! The progress bar of `Simulation.run` (tqdm's, when asked for or in Jupyter).

use pyo3::prelude::*;

/// The progress bar of a `run` of at most `total` steps: tqdm's (`tqdm.auto`, a widget in
/// Jupyter, text elsewhere) when `progress` is True, or when it is None and the run is in a
/// Jupyter kernel with tqdm installed; none otherwise. True without tqdm is an ImportError
/// that says so.
pub(crate) fn progress_bar<'py>(
    py: Python<'py>,
    progress: Option<bool>,
    total: u64,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let wanted = match progress {
        Some(p) => p,
        None => py
            .import("sys")?
            .getattr("modules")?
            .contains("ipykernel")?,
    };
    if !wanted {
        return Ok(None);
    }
    let tqdm = match py.import("tqdm.auto") {
        Ok(m) => m,
        Err(_) if progress.is_none() => return Ok(None),
        Err(e) => {
            return Err(pyo3::exceptions::PyImportError::new_err(format!(
                "progress=True needs tqdm (python3 -m pip install tqdm): {e}"
            )))
        }
    };
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("total", total)?;
    kwargs.set_item("unit", "step")?;
    kwargs.set_item("desc", "dem")?;
    Ok(Some(tqdm.getattr("tqdm")?.call((), Some(&kwargs))?))
}
