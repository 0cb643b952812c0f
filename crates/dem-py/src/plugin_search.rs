//! Where the module finds plugin libraries.
//!
//! The `dem` executable scans its own directory (where `cargo build --release --workspace`
//! puts the plugins beside it). A Python interpreter's directory holds no plugins, so the
//! module scans instead, after the scene's own `plugins` list and the `plugins=[...]`
//! argument, every directory of `DEM_PLUGIN_PATH`; and when neither gave a library or a
//! directory, the plugins the wheel carries (`dem/plugins` beside the module, put there by
//! `build.rs`), or when it carries none, the `target/release` directory of the repository
//! the module was built from (the README's build command puts the plugins there).

use dem_core::{DemError, PluginSet, Scene};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The plugins directory of the installed package, set when the module is imported.
static BUNDLED: OnceLock<PathBuf> = OnceLock::new();

/// Notes the directory of the compiled module (`dem/`): its `plugins` directory, if it
/// holds any library, is the wheel's.
pub fn set_package_dir(dir: &Path) {
    let plugins = dir.join("plugins");
    let any = std::fs::read_dir(&plugins).is_ok_and(|mut d| {
        d.any(|e| {
            e.is_ok_and(|e| {
                e.path().extension().and_then(|x| x.to_str())
                    == Some(std::env::consts::DLL_EXTENSION)
            })
        })
    });
    if any {
        let _ = BUNDLED.set(plugins);
    }
}

/// The plugins the wheel carries, if it carries any.
pub fn bundled() -> Option<PathBuf> {
    BUNDLED.get().cloned()
}

/// `target/release` of the repository this module was built from, if it is still there.
pub fn repository_build() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release");
    dir.canonicalize().ok().filter(|d| d.is_dir())
}

/// The directories scanned after the explicit libraries: `DEM_PLUGIN_PATH`; or, when it
/// is unset and `explicit` is empty, the wheel's plugins, else the repository's build.
pub fn default_dirs(explicit: &[PathBuf]) -> Vec<PathBuf> {
    let env: Vec<PathBuf> = std::env::var_os("DEM_PLUGIN_PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if !env.is_empty() || !explicit.is_empty() {
        return env;
    }
    bundled().or_else(repository_build).into_iter().collect()
}

/// The plugins of a run of `scene` (or of none, for the catalogue).
pub fn load(scene: Option<&Scene>, explicit: &[PathBuf]) -> Result<PluginSet, DemError> {
    // No executable of ours to try libraries in a child process: loaded here directly.
    PluginSet::for_run(scene, explicit, &default_dirs(explicit), None)
}
