//! Running the `dem` executable from a test: its output, and a fresh directory per test.

use crate::{dem_exe, root};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty directory `target/test-output/<group>/<name>`.
pub fn fresh_dir(group: &str, name: &str) -> PathBuf {
    let dir = root().join("target/test-output").join(group).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `dem` with `args`, without `RUST_LOG` (its default log level).
pub fn command(args: &[&str]) -> Command {
    let mut c = Command::new(dem_exe());
    c.args(args).env_remove("RUST_LOG");
    c
}

/// Runs `dem` with `args` to its end.
pub fn dem(args: &[&str]) -> Output {
    command(args).output().expect("dem runs")
}

/// Its standard output, after failing the test (with its stderr) unless it succeeded.
pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "dem failed ({:?}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Its standard error, after failing the test unless it exited with status 1 (an error).
pub fn refused(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "expected an error:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// A path as the `&str` an argument list takes.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
