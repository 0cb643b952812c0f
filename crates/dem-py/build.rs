//! Builds the repository's shipped plugins (every `plugins/*` crate but the `test-*` ones)
//! with the workspace's `wheel` profile (release, stripped) and copies the libraries into
//! `python/dem/plugins/`, which maturin packs into the wheel beside the module: `pip
//! install ./crates/dem-py` alone then runs every shipped scene (see
//! `src/plugin_search.rs` for the order in which directories are searched).
//!
//! Skipped, with a warning, outside the repository (no workspace two levels up) and when
//! `DEM_PY_NO_PLUGINS` is set; a failed plugin build fails the module's build, with
//! cargo's message.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=DEM_PY_NO_PLUGINS");
    let here = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = here.join("../..");
    let out = here.join("python/dem/plugins");
    if std::env::var_os("DEM_PY_NO_PLUGINS").is_some() {
        println!("cargo:warning=DEM_PY_NO_PLUGINS is set: the module carries no plugins");
        return;
    }
    let plugins = shipped(&root.join("plugins"));
    if !root.join("Cargo.toml").is_file() || plugins.is_empty() {
        println!("cargo:warning=not in the dem repository: the module carries no plugins");
        return;
    }
    for dir in ["plugins", "crates/dem-api", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args(["build", "--profile", "wheel", "--lib"])
        .arg("--target-dir")
        .arg(root.join("target"));
    for name in &plugins {
        cmd.args(["-p", name]);
    }
    // The outer build's settings are for the module (maturin's target, flags): the
    // plugins build as the repository builds them.
    for var in [
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_PROFILE_RELEASE_DEBUG",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd.status().expect("cargo runs");
    assert!(
        status.success(),
        "building the shipped plugins failed (cargo's message above)"
    );
    std::fs::create_dir_all(&out).expect("python/dem/plugins can be made");
    let built = root.join("target/wheel");
    for name in &plugins {
        let file = format!(
            "{}{}{}",
            std::env::consts::DLL_PREFIX,
            name.replace('-', "_"),
            std::env::consts::DLL_SUFFIX
        );
        std::fs::copy(built.join(&file), out.join(&file))
            .unwrap_or_else(|e| panic!("copying {file} into python/dem/plugins: {e}"));
    }
}

/// The crate names of the shipped plugins: the directories of `plugins` with a
/// `Cargo.toml`, but the `test-*` ones (the suite's faulty plugins), sorted.
fn shipped(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with("test-"))
        .collect();
    names.sort();
    names
}
