//! dem's errors as Python exceptions. The message is the `dem` command's (`file:line:col`
//! for a scene, the plugin and contact for a failed law call, the particle and step for a
//! non-finite state); the class says what kind of failure it is.

use dem_core::DemError;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyOSError};
use pyo3::{create_exception, PyErr};

create_exception!(
    dem,
    Error,
    PyException,
    "Base class of dem's errors; the message is the one the `dem` command prints."
);
create_exception!(
    dem,
    SceneError,
    Error,
    "A scene that does not parse (file:line:col and field) or is inconsistent."
);
create_exception!(
    dem,
    PluginError,
    Error,
    "A plugin library that cannot be loaded, or a functor that failed during a step \
     (plugin, functor, contact and step named)."
);
create_exception!(
    dem,
    CheckpointError,
    Error,
    "A checkpoint that cannot be read, is corrupted or does not fit its plugins or scene."
);
create_exception!(
    dem,
    StateError,
    Error,
    "A run stopped by a guard: non-finite state or energy growth (particle and step named)."
);

/// The Python exception of `e`: reading or writing a file is an `OSError`
/// (`FileNotFoundError` for a missing file), the rest a subclass of `dem.Error`.
pub fn to_py(e: DemError) -> PyErr {
    let message = e.to_string();
    match e {
        DemError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(message)
        }
        DemError::Io { .. } => PyOSError::new_err(message),
        DemError::Parse { .. } | DemError::Scene(_) => SceneError::new_err(message),
        DemError::Plugin { .. } | DemError::PluginCall { .. } | DemError::BondCall { .. } => {
            PluginError::new_err(message)
        }
        DemError::Checkpoint { .. } => CheckpointError::new_err(message),
        DemError::NonFinite { .. } | DemError::EnergyGrowth { .. } => StateError::new_err(message),
        // The module runs one process: this comes only from an exchange among ranks.
        DemError::Rank { .. } => Error::new_err(message),
    }
}
