//! Which run an output directory belongs to.
//!
//! Each run gets an id when it starts (`dem run`), kept in its checkpoints and written to
//! `run.id` in its output directory. `dem resume` writes into a directory only when it holds
//! no outputs of dem, or those of the same run (same id); a directory holding another
//! run's outputs (a checkpoint copied from elsewhere, `--out` pointing at another run) is
//! refused, unless `--force` is given: then the other run's outputs are removed first, so
//! that none of its frames is left beside the resumed run's.

use dem_core::DemError;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

/// Name of the file holding the run id in an output directory.
pub const RUN_ID: &str = "run.id";

/// A new run id: 16 hexadecimal digits from the standard library's random hash keys and
/// the clock (no two runs share one in practice).
pub fn new_id() -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(now);
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

/// Is `name` a file dem writes in an output directory?
fn is_output(name: &str) -> bool {
    matches!(
        name,
        "energy.csv"
            | "meshes.csv"
            | "stress.csv"
            | "flow.csv"
            | "particles.csv"
            | "energy.png"
            | RUN_ID
    ) || name.ends_with(".vtu")
        || name.ends_with(".pvd")
        || name.ends_with(".ckpt")
        || name.ends_with(".ckpt.tmp")
}

/// The run id written in `dir`, if any.
fn id_in(dir: &Path) -> Option<String> {
    std::fs::read_to_string(dir.join(RUN_ID))
        .ok()
        .map(|s| s.trim().to_string())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DemError + '_ {
    move |source| DemError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Makes `dir` the output directory of run `id`, resumed from `checkpoint`: refused when
/// it holds the outputs of another run, unless `force` (then they are removed; the
/// checkpoint being resumed is kept).
pub fn claim_for_resume(
    dir: &Path,
    id: &str,
    checkpoint: &Path,
    force: bool,
) -> Result<(), DemError> {
    if id_in(dir).as_deref() == Some(id) {
        return Ok(());
    }
    let keep = checkpoint.canonicalize().ok();
    let mut others: Vec<PathBuf> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            let is_file = e.file_type().is_ok_and(|t| t.is_file());
            if is_file && is_output(&name) && path.canonicalize().ok() != keep {
                others.push(path);
            }
        }
    }
    others.sort();
    if !others.is_empty() {
        if !force {
            let owner = match id_in(dir) {
                Some(other) => format!("run {other}"),
                None => "a run without a run id".to_string(),
            };
            let vtk = |n: &str| n.ends_with(".vtu") || n.ends_with(".pvd");
            let names: Vec<String> = others
                .iter()
                .filter_map(|p| p.file_name())
                .map(|n| n.to_string_lossy().to_string())
                .collect();
            let mut listed: Vec<String> = names.iter().filter(|n| !vtk(n)).cloned().collect();
            let frames = names.len() - listed.len();
            if frames > 0 {
                listed.push(format!("{frames} VTK files"));
            }
            return Err(DemError::Scene(format!(
                "{}: holds the outputs of another run ({owner}; the checkpoint is of run {id}): \
                 {}; resume into another directory with --out DIR, or add --force to replace \
                 them",
                dir.display(),
                listed.join(", ")
            )));
        }
        for path in &others {
            std::fs::remove_file(path).map_err(io(path))?;
        }
        tracing::warn!(
            "{}: removed {} outputs of another run (--force)",
            dir.display(),
            others.len()
        );
    }
    write_id(dir, id)
}

/// Writes `id` to `dir`'s run id file (creating the directory).
pub fn write_id(dir: &Path, id: &str) -> Result<(), DemError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(RUN_ID);
    dem_core::files::output::write_atomic(&path, format!("{id}\n").as_bytes()).map_err(io(&path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_differ_and_outputs_are_recognised() {
        let (a, b) = (new_id(), new_id());
        assert_eq!(a.len(), 16);
        assert_ne!(a, b);
        for name in [
            "energy.csv",
            "particles_000000200.vtu",
            "walls.pvd",
            "run.id",
        ] {
            assert!(is_output(name), "{name}");
        }
        for name in ["scene.ron", "notes.txt", "data.csv"] {
            assert!(!is_output(name), "{name}");
        }
    }
}
