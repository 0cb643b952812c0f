//! Behaviour at the plugin boundary: plugin log records reach the host's `tracing`, and two
//! libraries serving the same shape pair or law name are an error naming both. Also the
//! solver's own load-time warnings, which use the same log capture.

use dem_core::{PluginSet, Scene, Simulation};
use dem_verification::{build_plugins, plugins, sim_from_text};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Two spheres apart (a scene cannot start with one centre inside the other sphere: see
/// `plugin_log_records_reach_the_host` for how they are made to coincide).
const TWO_SPHERES: &str = r#"Scene(
    materials: { "m": (density: 1000, young: 1e6) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
    bodies: [
        Sphere(center: (0, 0, 0), radius: 0.01, material: "m"),
        Sphere(center: (0, 0, 0.015), radius: 0.01, material: "m"),
    ],
    timestep: Fixed(1e-6),
    duration: Steps(1),
)"#;

/// Everything logged in this test binary so far. The subscriber is global: the plugins'
/// records arrive on the solver's worker threads.
fn log() -> String {
    static BUFFER: OnceLock<Captured> = OnceLock::new();
    let buffer = BUFFER.get_or_init(|| {
        let buffer = Captured::default();
        let sink = buffer.clone();
        tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .with_max_level(tracing_subscriber::filter::LevelFilter::DEBUG)
            .init();
        buffer
    });
    String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap()
}

#[test]
fn plugin_log_records_reach_the_host() {
    log();
    // Coincident centres: the sphere-sphere functor warns (through its own tracing copy).
    // They are set between steps (a scene that starts so is refused at load), as a
    // collision could leave them.
    let mut sim = sim_from_text(TWO_SPHERES, "logging.ron").unwrap();
    sim.step().unwrap();
    let p = &mut sim.particles;
    p.pos[1] = p.pos[0];
    // The jump adds energy, which the run's guard may refuse: the warning came first.
    let _ = sim.step();
    let text = log();
    assert!(
        text.contains("WARN") && text.contains("coincident sphere centres"),
        "captured: {text}"
    );
    assert!(
        text.contains("cg2_sphere_sphere"),
        "the plugin's module is named: {text}"
    );
}

/// A second copy of a workspace plugin under another file name.
fn duplicate(package: &str, dir: &str) -> std::path::PathBuf {
    let lib = build_plugins(&[package]).pop().unwrap();
    let dir = dem_verification::root().join("target").join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join(lib.file_name().unwrap());
    std::fs::copy(&lib, &copy).unwrap();
    copy
}

/// The error of loading `TWO_SPHERES` with a second copy of `package` loaded.
fn ambiguity_error(package: &str, dir: &str) -> String {
    let mut set = plugins().clone();
    set.load(&duplicate(package, dir)).unwrap();
    let scene = Scene::parse(TWO_SPHERES, Path::new("ambiguous.ron")).unwrap();
    Simulation::new(scene, &set)
        .err()
        .expect("ambiguous")
        .to_string()
}

#[test]
fn two_functors_for_one_shape_pair_is_an_error_naming_both() {
    let e = ambiguity_error("cg2-sphere-sphere", "duplicate-geometry");
    assert!(
        e.contains("Sphere + Sphere") && e.contains("several"),
        "{e}"
    );
    assert!(
        e.contains("duplicate-geometry") && e.contains("test-plugins"),
        "both files named: {e}"
    );
}

#[test]
fn two_laws_with_one_name_is_an_error_naming_both_files() {
    let e = ambiguity_error("law-linear", "duplicate-law");
    assert!(
        e.contains("offered by several plugins") && e.contains("duplicate-law"),
        "{e}"
    );
}

#[test]
fn plugin_directories_are_scanned_and_junk_is_refused() {
    let dir = dem_verification::root().join("target").join("scan-dir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for lib in build_plugins(&dem_verification::PLUGINS) {
        std::fs::copy(&lib, dir.join(lib.file_name().unwrap())).unwrap();
    }
    let junk = dir.join(format!("libjunk.{}", std::env::consts::DLL_EXTENSION));
    std::fs::write(&junk, b"not a library").unwrap();
    let mut set = PluginSet::default();
    set.scan(&dir);
    let mut names: Vec<&str> = set.plugins.iter().map(|p| p.name.as_str()).collect();
    names.sort();
    // Every workspace plugin (their package names), and not the junk file.
    let mut expected = dem_verification::PLUGINS.to_vec();
    expected.sort();
    assert_eq!(names, expected);
    assert!(set
        .plugins
        .iter()
        .all(|p| p.api_version == dem_api::API_VERSION));
    assert_eq!(set.refused.len(), 1, "{:?}", set.refused);
    assert!(
        set.refused[0].0.ends_with(junk.file_name().unwrap())
            && set.refused[0].1.contains("cannot open")
    );

    // DEM_PLUGIN_PATH entries are default directories, after the executable's own.
    std::env::set_var(
        "DEM_PLUGIN_PATH",
        std::env::join_paths([&dir, Path::new("/elsewhere")]).unwrap(),
    );
    let dirs = PluginSet::default_dirs();
    assert_eq!(&dirs[dirs.len() - 2..], [dir.clone(), "/elsewhere".into()]);
}

#[test]
fn a_fixed_step_above_the_critical_step_is_warned_about() {
    log();
    // m = 4.19e-3 kg; the stiffest partner is a wall, k = 2 E r = 2e4 N/m: sqrt(m/k) = 4.6e-4 s.
    let text = TWO_SPHERES
        .replace("center: (0, 0, 0), radius", "center: (0, 0, 0.05), radius")
        .replace("Fixed(1e-6)", "Fixed(1e-3)");
    let sim = sim_from_text(&text, "coarse.ron").unwrap();
    assert!(
        (sim.critical_dt - (4.0 / 3.0 * std::f64::consts::PI * 1e-3 / 2e4f64).sqrt()).abs() < 1e-12
    );
    let log = log();
    assert!(
        log.contains("WARN") && log.contains("exceeds the critical step estimate"),
        "captured: {log}"
    );
}

/// Contact begin and end events, as Modia3D logs them: time, pair, distance, normal and
/// the normal velocity stored at onset.
#[test]
fn contact_begin_and_end_are_logged_with_the_onset_data() {
    log();
    let scene = r#"Scene(
        materials: { "m": (density: 1000, young: 1e7, poisson: 0.3) },
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_Modia3D", params: (restitution: 0.5))],
        bodies: [
            Sphere(center: (0, 0, 0.01001), radius: 0.01, material: "m", velocity: (0, 0, -0.5)),
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
        ],
        timestep: Fixed(1e-6),
        duration: Steps(1),
    )"#;
    let mut sim = sim_from_text(scene, "events.ron").unwrap();
    sim.run_steps(3000).unwrap();
    let text = log();
    let line = |event: &str| {
        text.lines()
            .find(|l| l.contains(&format!("event=\"{event}\"")) && l.contains("a=0 b=1"))
            .unwrap_or_else(|| panic!("no {event} event for 0-1 in: {text}"))
            .to_string()
    };
    let begin = line("begin");
    for field in [
        "t=",
        "gap=",
        "normal=[0.0, 0.0, 1.0]",
        "normal_velocity=-0.5",
    ] {
        assert!(begin.contains(field), "{field} missing in: {begin}");
    }
    let end = line("end");
    assert!(end.contains("t=") && end.contains("gap="), "{end}");
}
