//! Plugins from outside the workspace, as a researcher makes them: the Rust template crate
//! built out of tree against this checkout's dem-api, and the C example law built with the
//! system C compiler against `include/dem_plugin.h`. Both run the same two-sphere impact
//! and must give the same result; C plugins built for another interface version or other
//! record sizes are refused with a message naming what differs.

use dem_core::{PluginSet, Scene, Simulation};
use dem_verification::impact::Collision;
use dem_verification::root;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C header as cbindgen generates it from dem-api.
fn generated_header() -> String {
    let api = root().join("crates/dem-api/src");
    let config = cbindgen::Config {
        language: cbindgen::Language::C,
        style: cbindgen::Style::Both,
        cpp_compat: true,
        usize_is_size_t: true,
        documentation: true,
        include_guard: Some("DEM_PLUGIN_H".into()),
        header: Some(
            "/* The C interface of dem plugins (dem-api, C interface version 1).\n \
             * Generated from crates/dem-api by cbindgen; do not edit: the test suite checks it\n \
             * (regenerate with DEM_BLESS=1 cargo test --test third_party). */"
                .into(),
        ),
        trailer: Some(
            "/* The one symbol a C plugin exports. */\nconst DemCPlugin *dem_c_plugin_v1(void);"
                .into(),
        ),
        export: cbindgen::ExportConfig {
            include: [
                "DemCPlugin",
                "DemCLaw",
                "DemCParam",
                "LawInput",
                "LawOutput",
            ]
            .map(String::from)
            .to_vec(),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut out = Vec::new();
    let mut builder = cbindgen::Builder::new().with_config(config);
    for file in ["math.rs", "geom.rs", "law.rs", "c_abi.rs"] {
        builder = builder.with_src(api.join(file));
    }
    builder
        .generate()
        .expect("cbindgen reads dem-api")
        .write(&mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn the_c_header_is_current() {
    let path = root().join("include/dem_plugin.h");
    let generated = generated_header();
    if std::env::var_os("DEM_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/dem_plugin.h is out of date: regenerate it with DEM_BLESS=1 cargo test --test third_party"
    );
}

/// Compiles the C example law with `cc` and the extra flags; returns the library.
fn build_c_plugin(name: &str, flags: &[&str]) -> PathBuf {
    let dir = root().join("target").join("c-plugins");
    std::fs::create_dir_all(&dir).unwrap();
    let lib = dir.join(format!("lib{name}.{}", std::env::consts::DLL_EXTENSION));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args([
            "-shared", "-fPIC", "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror",
        ])
        .args(flags)
        .arg("-I")
        .arg(root().join("include"))
        .arg(root().join("examples/c-plugin/law_c_linear.c"))
        .arg("-o")
        .arg(&lib)
        .arg("-lm")
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(
        out.status.success(),
        "{cc} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lib
}

/// Builds examples/plugin-template out of tree, as a researcher would.
fn build_template() -> PathBuf {
    dem_verification::build_out_of_tree(&root().join("examples/plugin-template"), "law_template")
}

/// Two spheres meeting head-on at 0.5 m/s each with `law` from `lib` (and the workspace's
/// sphere-sphere geometry): (rebound, peak force N, duration s).
fn head_on(lib: &Path, law: &str) -> (f64, f64, f64) {
    let mut set = PluginSet::default();
    for l in dem_verification::build_plugins(&["cg2-sphere-sphere"]) {
        set.load(&l).unwrap();
    }
    set.load(lib).unwrap();
    let scene = format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e8, poisson: 0.25, friction: 0.3) }},
        laws: [(materials: ("*", "*"), law: "{law}", params: (restitution: 0.6))],
        bodies: [
            Sphere(center: (-0.0101, 0, 0), radius: 0.01, material: "m", velocity: (0.5, 0, 0)),
            Sphere(center: (0.0101, 0, 0), radius: 0.01, material: "m", velocity: (-0.5, 0, 0)),
        ],
        timestep: Fixed(1e-6),
        duration: Steps(1),
    )"#
    );
    let mut sim = Simulation::new(
        Scene::parse(&scene, Path::new("head_on.ron")).unwrap(),
        &set,
    )
    .unwrap();
    let i = Collision::HeadOn { radius: 0.01 }.run(&mut sim, 100_000);
    (i.rebound, i.peak_force, i.duration)
}

/// Closed form of the linear spring-dashpot with `kn = 2 E* R*`, restitution 0.6 clamped
/// at zero: the contact lasts a little less than half a damped period.
#[test]
fn template_and_c_plugin_give_the_same_impact() {
    let template = build_template();
    let c = build_c_plugin("law_c_linear", &[]);
    let (e_rust, f_rust, t_rust) = head_on(&template, "Law2_L6Geom_Template");
    let (e_c, f_c, t_c) = head_on(&c, "Law2_C_Linear");
    println!("template: rebound {e_rust:.6}, peak {f_rust:.6} N, {t_rust:.6e} s");
    println!("C:        rebound {e_c:.6}, peak {f_c:.6} N, {t_c:.6e} s");
    // Independent check of the force: k_n delta_max bounded by the undamped value
    // v sqrt(k m*) with k = 2 E* R*, E* = E / (2 (1 - nu^2)), R* = r / 2.
    let k = 2.0 * 1e8 / (2.0 * (1.0 - 0.0625)) * 0.005;
    let m_star = 0.5 * 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-6;
    let undamped_peak = 1.0 * (k * m_star).sqrt();
    assert!(
        f_rust < undamped_peak && f_rust > 0.5 * undamped_peak,
        "{f_rust} vs {undamped_peak}"
    );
    // Restitution 0.6 requested, clamped: a little above.
    assert!(e_rust > 0.6 && e_rust < 0.66, "{e_rust}");
    // Same law in two languages: the same result up to the last few bits.
    for (a, b) in [(e_rust, e_c), (f_rust, f_c), (t_rust, t_c)] {
        assert!((a / b - 1.0).abs() < 1e-12, "{a} vs {b}");
    }
    // And the dem executable loads both from a scene's `plugins` list and runs the same
    // impact: the final velocities are the rebound measured above.
    for (lib, law) in [(&template, "Law2_L6Geom_Template"), (&c, "Law2_C_Linear")] {
        let v = run_with_dem(lib, law);
        assert!(
            (v / (0.5 * e_rust) - 1.0).abs() < 1e-6,
            "{law}: {v} vs {}",
            0.5 * e_rust
        );
    }
}

/// Runs the head-on impact with the `dem` executable, the plugin listed in the scene;
/// returns the final speed of the right sphere, m/s.
fn run_with_dem(lib: &Path, law: &str) -> f64 {
    let dir = root().join("target/test-output/third-party").join(law);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("scene.ron");
    std::fs::write(
        &scene,
        format!(
            r#"Scene(
        plugins: [{lib:?}],
        materials: {{ "m": (density: 2500, young: 1e8, poisson: 0.25, friction: 0.3) }},
        laws: [(materials: ("*", "*"), law: "{law}", params: (restitution: 0.6))],
        bodies: [
            Sphere(center: (-0.0101, 0, 0), radius: 0.01, material: "m", velocity: (0.5, 0, 0)),
            Sphere(center: (0.0101, 0, 0), radius: 0.01, material: "m", velocity: (-0.5, 0, 0)),
        ],
        timestep: Fixed(1e-6),
        duration: Steps(2000),
    )"#,
            lib = lib.display().to_string()
        ),
    )
    .unwrap();
    dem_verification::dem_run(&scene, &dir.join("out"));
    let csv = std::fs::read_to_string(dir.join("out/particles.csv")).unwrap();
    let row = csv.lines().nth(2).expect("sphere 1");
    row.split(',').nth(5).unwrap().parse().unwrap()
}

#[test]
fn a_c_plugin_is_listed_with_its_law() {
    let lib = build_c_plugin("law_c_listed", &[]);
    let mut set = PluginSet::default();
    let p = set.load(&lib).unwrap();
    assert_eq!(p.name, "law-c-linear");
    assert_eq!(p.functors.len(), 1);
    assert_eq!(p.functors[0].name.as_str(), "Law2_C_Linear");
    assert!(p.functors[0].description.contains("kn (N/m"));
}

/// A C law's state slots have no names (`slot_<j>`), and its parameters cannot be changed
/// between steps (it computes its constants itself, without `FLAG_REFRESH`); the template,
/// built with the SDK, names its constants.
#[test]
fn a_c_law_has_unnamed_slots_and_fixed_parameters() {
    let lib = build_c_plugin("law_c_named", &[]);
    let mut set = PluginSet::default();
    for l in dem_verification::build_plugins(&["cg2-sphere-sphere"]) {
        set.load(&l).unwrap();
    }
    set.load(&lib).unwrap();
    set.load(&build_template()).unwrap();
    let scene = |law: &str| {
        format!(
            r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e8, poisson: 0.25, friction: 0.3) }},
        laws: [(materials: ("*", "*"), law: "{law}", params: (restitution: 0.6))],
        bodies: [Sphere(center: (0, 0, 0), radius: 0.01, material: "m")],
        timestep: Fixed(1e-6),
        duration: Steps(1),
    )"#
        )
    };
    let build = |law: &str| {
        Simulation::new(
            Scene::parse(&scene(law), Path::new("named.ron")).unwrap(),
            &set,
        )
        .unwrap()
    };
    let mut c = build("Law2_C_Linear");
    let law = &c.dispatch.laws[0];
    let unnamed: Vec<String> = (0..law.state_len).map(|j| format!("slot_{j}")).collect();
    assert_eq!(law.slot_names, unnamed);
    let e = c.set_law_params(&set, 0, "(restitution: 0.5)").unwrap_err();
    assert!(
        e.contains("C interface") && e.contains("C plugins cannot"),
        "{e}"
    );
    let template = build("Law2_L6Geom_Template");
    let names = [
        "kn",
        "eta",
        "mu",
        "normal_damping_force",
        "shear_force_y",
        "shear_force_z",
    ];
    assert_eq!(template.dispatch.laws[0].slot_names[..6], names);
}

#[test]
fn c_plugins_built_for_another_interface_are_refused() {
    let check = |name: &str, flags: &[&str], expected: &[&str]| {
        let lib = build_c_plugin(name, flags);
        let e = PluginSet::default()
            .load(&lib)
            .err()
            .expect("refused")
            .to_string();
        println!("{e}");
        for part in expected {
            assert!(e.contains(part), "`{part}` missing in: {e}");
        }
        assert!(e.lines().count() <= 3, "short message: {e}");
    };
    check(
        "law_c_bigger_input",
        &["-DDEM_TEST_EXTRA_BYTES=8"],
        &["law_c_bigger_input", "LawInput", "bytes", "dem_plugin.h"],
    );
    check(
        "law_c_version_2",
        &["-DDEM_TEST_ABI_VERSION=2"],
        &["law_c_version_2", "version 2", "version 1"],
    );
}

#[test]
fn bad_parameters_of_a_c_law_are_reported() {
    let lib = build_c_plugin("law_c_params", &[]);
    let mut set = PluginSet::default();
    set.load(&lib).unwrap();
    for (params, expected) in [
        ("(restitution: 2.0)", "restitution must be in (0, 1]"),
        ("(stiffnes: 2.0)", "unknown parameter `stiffnes`"),
        ("(kn: \"big\")", "must be a number"),
    ] {
        let e = match set.new_law("Law2_C_Linear", params) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{params} accepted"),
        };
        assert!(e.contains(expected), "{params}: {e}");
    }
}
