//! A plugin built against an incompatible dem-api is refused with a short message naming
//! the file and what differs: here law-linear, built outside the workspace against altered
//! copies of dem-api (the previous minor version, 0.2; a field added to `RawGeom` and
//! `L6Geom`; two fields swapped).

use dem_core::PluginSet;
use dem_verification::root;
use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Builds law-linear against a copy of dem-api changed by `alter`; returns the library.
fn build_against(name: &str, alter: impl Fn(&Path)) -> PathBuf {
    let work = root().join("target").join("incompatible").join(name);
    let _ = std::fs::remove_dir_all(&work);
    let api = work.join("dem-api");
    copy_dir(&root().join("crates/dem-api"), &api);
    // Standalone manifests: no workspace inheritance.
    let convex = root().join("crates/dem-convex");
    let manifest = |version: &str| {
        format!(
            "[package]\nname = \"dem-api\"\nversion = \"{version}\"\nedition = \"2021\"\n\n[dependencies]\n\
             abi_stable = \"0.11.3\"\nnalgebra = {{ version = \"0.35\", features = [\"bytemuck\"] }}\n\
             bytemuck = {{ version = \"1\", features = [\"derive\"] }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\n\
             ron = \"0.12\"\ntracing = \"0.1\"\nmultiversion = \"0.9.2\"\ndem-convex = {{ path = {:?} }}\n",
            convex.display().to_string()
        )
    };
    std::fs::write(api.join("Cargo.toml"), manifest(dem_api::API_VERSION)).unwrap();
    alter(&api);
    let plugin = work.join("law-linear");
    copy_dir(&root().join("plugins/law-linear/src"), &plugin.join("src"));
    std::fs::write(
        plugin.join("Cargo.toml"),
        "[package]\nname = \"law-linear\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[lib]\n\
         crate-type = [\"cdylib\"]\n\n[dependencies]\ndem-api = { path = \"../dem-api\" }\n\
         abi_stable = \"0.11.3\"\nserde = { version = \"1\", features = [\"derive\"] }\n",
    )
    .unwrap();
    // Same dependency versions as the workspace, without a registry look-up.
    std::fs::copy(root().join("Cargo.lock"), plugin.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(&plugin)
        .args(["build", "--offline", "--quiet"])
        .env(
            "CARGO_TARGET_DIR",
            root().join("target").join("incompatible").join("target"),
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "building the altered plugin failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = root()
        .join("target/incompatible/target/debug")
        .join(format!(
            "{}law_linear.{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_EXTENSION
        ));
    // Each variant gets its own file name, so the loader sees distinct libraries.
    let unique = work.join(lib.file_name().unwrap());
    std::fs::copy(&lib, &unique).unwrap();
    unique
}

fn refusal(lib: &Path) -> String {
    let e = PluginSet::default()
        .load(lib)
        .err()
        .expect("the plugin must be refused")
        .to_string();
    println!("{e}\n");
    assert!(
        e.contains(&lib.canonicalize().unwrap().display().to_string()),
        "names the file: {e}"
    );
    assert!(
        e.lines().count() <= 10,
        "short: {} lines",
        e.lines().count()
    );
    e
}

#[test]
fn incompatible_plugins_are_refused_with_a_short_reason() {
    let minor = build_against("minor", |api| {
        let t = std::fs::read_to_string(api.join("Cargo.toml")).unwrap();
        std::fs::write(
            api.join("Cargo.toml"),
            t.replacen(dem_api::API_VERSION, "0.2.0", 1),
        )
        .unwrap();
    });
    // A plugin of the previous minor version (the record-per-contact ABI of 0.2): one
    // line that says what to do.
    let e = refusal(&minor);
    assert!(
        e.contains(&format!(
            "built against dem-api 0.2.0: rebuild it against dem-api {}",
            dem_api::API_VERSION
        )),
        "{e}"
    );

    let field = build_against("field", |api| {
        let geom = api.join("src/geom.rs");
        let t = std::fs::read_to_string(&geom).unwrap();
        let added = "    /// Added in the altered copy.\n    pub extra: f64,\n}\n";
        let t = t
            .replacen(
                "    pub weight: f64,\n}\n",
                &format!("    pub weight: f64,\n{added}"),
                1,
            )
            .replacen(
                "    pub area: f64,\n}\n",
                &format!("    pub area: f64,\n{added}"),
                1,
            );
        std::fs::write(&geom, t).unwrap();
    });
    let e = refusal(&field);
    assert!(
        e.contains("RawGeom: too many fields (solver has 8, plugin has 9)"),
        "{e}"
    );

    // Two fields of the same type swapped: same size, different meaning.
    let reordered = build_against("reordered", |api| {
        let geom = api.join("src/geom.rs");
        let t = std::fs::read_to_string(&geom).unwrap();
        let t = t
            .replacen("pub radius1: f64", "pub radius_tmp: f64", 1)
            .replacen("pub radius2: f64", "pub radius1: f64", 1)
            .replacen("pub radius_tmp: f64", "pub radius2: f64", 1);
        std::fs::write(&geom, t).unwrap();
    });
    let e = refusal(&reordered);
    assert!(e.contains("RawGeom") && e.contains("radius"), "{e}");
}
