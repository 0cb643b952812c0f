//! The house has floors. In every crate of the workspace no module names, through any
//! chain of imports, a module that names it back (at every level: the crate's modules,
//! and the modules of each folder); and dem-core's floors, declared in order in its
//! `lib.rs`, each name only the floors declared before them.
//!
//! `cargo test --test module_floors -- --nocapture` prints each crate's circles;
//! `DEM_MODULES_ARROWS=1` prints every arrow with the names that carry it, and
//! `DEM_MODULES_ROOT=<checkout>` reads another checkout instead of this one (to see the
//! circles of an older commit).

use dem_verification::modules::{circles, graphs};
use std::path::PathBuf;

fn root() -> PathBuf {
    std::env::var_os("DEM_MODULES_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(dem_verification::root)
}

/// The `src` folder of every crate under `crates/` and `plugins/`.
fn crate_sources() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for group in ["crates", "plugins"] {
        let Ok(entries) = std::fs::read_dir(root().join(group)) else {
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

fn crate_name(src: &std::path::Path) -> String {
    let dir = src.parent().expect("a crate folder");
    dir.file_name()
        .expect("a name")
        .to_string_lossy()
        .to_string()
}

#[test]
fn no_module_names_a_module_that_names_it_back() {
    let verbose = std::env::var_os("DEM_MODULES_ARROWS").is_some();
    let sources = crate_sources();
    assert!(sources.len() > 10, "crates found: {sources:?}");
    let mut found = Vec::new();
    for src in sources {
        let name = crate_name(&src);
        for (folder, arrows) in graphs(&src) {
            let folder = match folder.is_empty() {
                true => name.clone(),
                false => format!("{name}::{}", folder.join("::")),
            };
            if verbose {
                for ((a, b), names) in &arrows {
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    println!("{folder}: {a} -> {b}: {}", names.join(", "));
                }
            }
            for circle in circles(&arrows) {
                let line = format!("{folder}: {}", circle.join(", "));
                println!("circle in {line}");
                found.push(line);
            }
        }
    }
    println!("{} circles", found.len());
    assert!(
        found.is_empty(),
        "module circles (break each by moving what both sides need below them):\n{}",
        found.join("\n")
    );
}

#[test]
fn each_floor_of_dem_core_names_only_the_floors_below_it() {
    let src = root().join("crates/dem-core/src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("dem-core's lib.rs");
    // The floors, bottom first: the modules `lib.rs` declares, in its order.
    let floors: Vec<String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect();
    assert!(floors.len() >= 5, "floors in lib.rs: {floors:?}");
    let graph = graphs(&src);
    let top = graph.get(&Vec::new()).cloned().unwrap_or_default();
    let mut wrong = Vec::new();
    for ((from, to), names) in &top {
        let (Some(a), Some(b)) = (
            floors.iter().position(|f| f == from),
            floors.iter().position(|f| f == to),
        ) else {
            continue;
        };
        if b >= a {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            wrong.push(format!("{from} -> {to}: {}", names.join(", ")));
        }
    }
    // Every module of the crate lives in a floor (`lib.rs` declares nothing else).
    let stray: Vec<String> = lib
        .lines()
        .filter(|l| l.contains("mod ") && !l.trim_start().starts_with("//"))
        .filter(|l| !l.trim().starts_with("pub mod "))
        .map(str::to_string)
        .collect();
    assert!(stray.is_empty(), "modules outside the floors: {stray:?}");
    assert!(
        wrong.is_empty(),
        "arrows to the same or a higher floor (floors, bottom first: {floors:?}):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_reader_sees_through_re_exports_groups_and_comments() {
    use dem_verification::modules::{references, Kind};
    let here: Vec<String> = vec!["top".into()];
    let modules = [vec!["top".to_string()], vec!["top".into(), "kid".into()]]
        .into_iter()
        .collect();
    let text = "//! [`crate::gone`] in a comment\n\
                use crate::a::{b::{C, D as E}, f};\n\
                pub use kid::{Item, Used};\n\
                fn g() { let _ = \"crate::in_a_string\"; crate::h::i(); Used; }\n\
                #[cfg(test)] mod tests { use super::*; }\n";
    let found: Vec<(Vec<String>, Kind)> = references(&here, text, &modules).into_iter().collect();
    let path = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    let expect = [
        (path("a::b::C"), Kind::Use),
        (path("a::b::D"), Kind::Use),
        (path("a::f"), Kind::Use),
        (path("h::i"), Kind::Use),
        (path("top::kid::Item"), Kind::Export),
        (path("top::kid::Used"), Kind::ExportAndUse),
    ];
    for e in &expect {
        assert!(found.contains(e), "{e:?} not in {found:?}");
    }
    assert_eq!(found.len(), expect.len(), "{found:?}");
}
