//! Test support for the verification suite: builds the plugin cdylibs with cargo (which
//! `cargo test` does not do) and loads them.
//!
//! The plugins are built into their own target directory (`target/test-plugins`) so that
//! the nested cargo never waits on the lock of the outer `cargo test`.

pub mod cli;
pub mod flow;
pub mod impact;
pub mod mesh;
pub mod modules;
pub mod polyhedra;
pub mod ranks;
pub mod reference;
pub mod superquadric;

use dem_core::{PluginSet, Scene, Simulation};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Every plugin package of the workspace.
pub const PLUGINS: [&str; 15] = [
    "cg2-facet-sphere",
    "cg2-polyhedron",
    "cg2-sphere-sphere",
    "cg2-wall-sphere",
    "law-linear",
    "law-hertz-mindlin",
    "law-modia3d",
    "law-penalty",
    "law-barrier",
    "law-cohesive",
    "law-adhesion",
    "test-faulty",
    "shape-superquadric",
    "heat-conduction",
    "law-bond",
];

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Builds the named plugin packages and returns their library paths, as cargo reports
/// them in its artifact messages.
pub fn build_plugins(packages: &[&str]) -> Vec<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root())
        .args(["build", "--message-format=json-render-diagnostics"]);
    for p in packages {
        cmd.args(["-p", p]);
    }
    cmd.env(
        "CARGO_TARGET_DIR",
        root().join("target").join("test-plugins"),
    );
    let out = cmd.output().expect("cargo can be run");
    assert!(
        out.status.success(),
        "building plugins failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut libs = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact"
            || !msg["target"]["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "cdylib"))
        {
            continue;
        }
        for f in msg["filenames"].as_array().into_iter().flatten() {
            let f = PathBuf::from(f.as_str().unwrap_or_default());
            if f.extension()
                .is_some_and(|e| e == std::env::consts::DLL_EXTENSION)
            {
                libs.push(f);
            }
        }
    }
    assert_eq!(libs.len(), packages.len(), "one library per plugin package");
    libs
}

/// Builds the plugin crate in `dir` (a `Cargo.toml` and `src/lib.rs` outside the
/// workspace, with `dem-api = { path = "../../crates/dem-api" }`) out of tree: copied to a
/// temporary directory, its dem-api dependency pointed at this checkout by absolute path,
/// as a researcher would. Returns the path of its library `lib` (the library target's
/// name), moved into `target/out-of-tree`: out of the directory where the tests' `dem`
/// finds the workspace's plugins, so that its scenes never see it. Built once per test
/// binary (the tests of one binary that ask for it at once wait for the first).
pub fn build_out_of_tree(dir: &Path, lib: &str) -> PathBuf {
    type Built = std::sync::Mutex<std::collections::HashMap<(PathBuf, String), PathBuf>>;
    static BUILT: OnceLock<Built> = OnceLock::new();
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap();
    let key = (dir.to_path_buf(), lib.to_string());
    if let Some(path) = built.get(&key) {
        return path.clone();
    }
    let path = build_once(dir, lib);
    built.insert(key, path.clone());
    path
}

/// [`build_out_of_tree`], each time it is called.
fn build_once(dir: &Path, lib: &str) -> PathBuf {
    let work = std::env::temp_dir().join(format!("dem-{lib}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(work.join("src")).unwrap();
    std::fs::copy(dir.join("src/lib.rs"), work.join("src/lib.rs")).unwrap();
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let api = root().join("crates/dem-api");
    let manifest = manifest.replace(
        "path = \"../../crates/dem-api\"",
        &format!("path = {:?}", api.display().to_string()),
    );
    assert!(manifest.contains(&api.display().to_string()));
    std::fs::write(work.join("Cargo.toml"), manifest).unwrap();
    // The workspace's dependency versions, so no registry look-up is needed.
    std::fs::copy(root().join("Cargo.lock"), work.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(&work)
        .args([
            "build",
            "--offline",
            "--message-format=json-render-diagnostics",
        ])
        // The plugins' target directory: dem-api and its dependencies are built already.
        .env(
            "CARGO_TARGET_DIR",
            root().join("target").join("test-plugins"),
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "building {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let path = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["target"]["name"] == lib)
        .find_map(|m| {
            m["filenames"]
                .as_array()?
                .iter()
                .filter_map(|f| f.as_str())
                .find(|f| f.ends_with(std::env::consts::DLL_EXTENSION))
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| panic!("cargo reports the library {lib}"));
    let _ = std::fs::remove_dir_all(&work);
    let kept = root().join("target/out-of-tree");
    std::fs::create_dir_all(&kept).unwrap();
    let moved = kept.join(path.file_name().unwrap());
    std::fs::rename(&path, &moved).unwrap();
    moved
}

/// All workspace plugins, built once per test binary and loaded.
pub fn plugins() -> &'static PluginSet {
    static SET: OnceLock<PluginSet> = OnceLock::new();
    SET.get_or_init(|| {
        let mut set = PluginSet::default();
        for lib in build_plugins(&PLUGINS) {
            set.load(&lib).expect("workspace plugin loads");
        }
        set
    })
}

/// A simulation from scene text (errors name `origin`).
pub fn sim_from_text(text: &str, origin: &str) -> Result<Simulation, dem_core::DemError> {
    Simulation::new(Scene::parse(text, Path::new(origin))?, plugins())
}

/// A boxed sample: 64 spheres (r = 1 mm, 2500 kg/m^3) settling for `seconds` under
/// gravity in a box of frictionless walls `(0, 0, 0)`-`(lx, lx, lz)` m.
pub fn boxed_sample(lx: f64, lz: f64, seconds: f64) -> String {
    format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.3),
                      "w": (density: 2500, young: 1e7, poisson: 0.25, friction: 0) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.3))],
        bodies: [
            Box(min: (0, 0, 0), max: ({lx:e}, {lx:e}, {lz:e}), material: "w"),
            Lattice(origin: (0.0012, 0.0012, 0.0011), count: (4, 4, 4), spacing: 0.0025,
                    radius: 0.001, material: "m", velocity_spread: 0.05, seed: 2),
        ],
        gravity: (0, 0, -9.81),
        damping: 0.4,
        timestep: Critical(0.2),
        duration: Time({seconds:e}),
    )"#
    )
}

/// A simulation from a scene file of the repository, e.g. `scenes/settle.ron`.
pub fn sim_from_file(relative: &str) -> Simulation {
    let scene = Scene::load(&root().join(relative)).expect("scene parses");
    Simulation::new(scene, plugins()).expect("scene loads")
}

/// A bench scene (`file`, one of `scenes/bench-settle*.ron`) with its particle file
/// replaced by `csv` (relative to `scenes/`), the upper corner of its box by `box_max` (RON
/// text) and its duration by `steps`.
pub fn bench_scene(file: &str, csv: &str, box_max: &str, steps: u64) -> Simulation {
    let path = root().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text
        .replace("data/data.settle_N10000.csv", csv)
        .replace("(0.02625, 0.041999999999999996, 0.0126)", box_max)
        .replace("Steps(20000)", &format!("Steps({steps})"));
    sim_from_text(&text, path.to_str().unwrap()).unwrap()
}

/// The `dem` executable, built (once per test binary) into `target/test-plugins` next to
/// the plugin libraries, where it finds them as an installed `dem` does.
pub fn dem_exe() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        plugins();
        build_dem(&[], "test-plugins")
    })
}

/// Builds `dem` with the cargo `features` into `target/<dir>` (its own target directory,
/// so that the nested cargo never waits on the outer one's lock) and returns its path.
pub fn build_dem(features: &[&str], dir: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut c = Command::new(cargo);
    c.current_dir(root()).args([
        "build",
        "--message-format=json-render-diagnostics",
        "-p",
        "dem-cli",
    ]);
    if !features.is_empty() {
        c.args(["--features", &features.join(",")]);
    }
    let out = c
        .env("CARGO_TARGET_DIR", root().join("target").join(dir))
        .output()
        .expect("cargo can be run");
    assert!(
        out.status.success(),
        "building dem (features {features:?}) failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo reports the dem executable")
}

/// Runs `dem run --quiet --out <out> <scene>` (without `RUST_LOG`) and fails the test,
/// with dem's stderr, unless it succeeds.
pub fn dem_run(scene: &Path, out: &Path) {
    let result = Command::new(dem_exe())
        .args(["run", "--quiet", "--out"])
        .args([out, scene])
        .env_remove("RUST_LOG")
        .output()
        .expect("dem runs");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
}

/// What VTK itself (Python's `vtk` package) reads from `.vtu` and `.pvd` files, by path
/// (see `tests/support/read_vtk.py`).
pub fn read_vtk(paths: &[&Path]) -> serde_json::Value {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .arg(root().join("tests/support/read_vtk.py"))
        .args(paths)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    assert!(
        out.status.success(),
        "reading VTK files with Python's vtk package failed (install it with \
         `python3 -m pip install vtk`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the reader prints JSON")
}

/// A simulation's state as bits, for bitwise comparisons: every particle's position,
/// velocity and angular velocity in storage order, the bonds (ids, state, L6Geom `u` and
/// `phi`), the ledger, the bonds broken, and each particle field's values and ledger.
pub fn state_bits(sim: &dem_core::Simulation) -> Vec<u64> {
    let p = &sim.particles;
    let mut out: Vec<u64> = Vec::new();
    for i in 0..p.len() {
        out.extend(
            p.pos[i]
                .iter()
                .chain(p.vel[i].iter())
                .chain(p.angvel[i].iter())
                .map(|x| x.to_bits()),
        );
    }
    for b in &sim.bonds.set.list {
        out.extend(b.ids);
        out.extend(b.state.iter().map(|x| x.to_bits()));
        out.extend(
            b.l6.iter()
                .flat_map(|l6| l6.u.iter().chain(l6.phi.iter()).map(|x| x.to_bits())),
        );
    }
    out.extend(sim.ledger.row().iter().map(|x| x.to_bits()));
    out.push(sim.bonds.set.broken);
    for (f, values) in sim.particles.fields.iter().enumerate() {
        out.extend(values.iter().map(|x| x.to_bits()));
        let l = &sim.exchanges.ledger[f];
        out.extend([l.initial, l.boundary, l.stability].map(f64::to_bits));
    }
    out
}
