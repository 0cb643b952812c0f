//! The house has floors: no module of a crate names, through any chain of imports, a
//! module that names it back. Prints each crate's module arrows and circles;
//! `DEM_MODULES_ROOT=<checkout>` reads another checkout instead of this one.
//!
//!     cargo test --test module_floors -- --nocapture

use dem_verification::modules::{circles, graphs};
use std::path::PathBuf;

fn crate_sources() -> Vec<PathBuf> {
    let root = std::env::var_os("DEM_MODULES_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(dem_verification::root);
    let mut out = Vec::new();
    for group in ["crates", "plugins"] {
        let Ok(entries) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        for entry in entries.flatten() {
            let src = entry.path().join("src");
            if src.is_dir() {
                out.push(src);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_module_names_a_module_that_names_it_back() {
    let mut found = Vec::new();
    for src in crate_sources() {
        let name = src
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        for (folder, arrows) in graphs(&src) {
            let folder = if folder.is_empty() {
                name.clone()
            } else {
                format!("{name}::{}", folder.join("::"))
            };
            let verbose = std::env::var_os("DEM_MODULES_ARROWS").is_some();
            if verbose {
                for ((a, b), names) in &arrows {
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    println!("{folder}: {a} -> {b}: {}", names.join(", "));
                }
            }
            for circle in circles(&arrows) {
                println!("circle in {folder}: {}", circle.join(", "));
                found.push(format!("{folder}: {}", circle.join(", ")));
            }
        }
    }
    println!("{} circles", found.len());
}
