//! The `dem` executable's plugin tools: the catalogue (`dem plugins --json`), the law
//! tester (`dem law-test`), and a failing plugin stopping a run with a checkpoint of the
//! last good state.

use dem_core::Checkpoint;
use dem_verification::{dem_exe, root, PLUGINS};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn dem(args: &[&str]) -> Output {
    Command::new(dem_exe())
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("dem runs")
}

fn dir(name: &str) -> PathBuf {
    let d = root().join("target/test-output/cli-plugins").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_catalogue_as_json_lists_every_plugin_with_units() {
    let out = dem(&["plugins", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cat: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let names: Vec<&str> = cat["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for p in PLUGINS {
        assert!(names.contains(&p), "{p} missing from {names:?}");
    }
    let hm = cat["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["functors"].as_array().unwrap())
        .find(|f| f["name"] == "Law2_L6Geom_HertzMindlin")
        .expect("Hertz-Mindlin listed");
    assert_eq!(hm["role"], "law");
    let params = hm["params"].as_array().unwrap();
    assert!(params
        .iter()
        .any(|p| p["name"] == "restitution" && p["unit"] == "-"));
    assert!(hm["defaults"]
        .as_str()
        .unwrap()
        .contains("tangential_damping"));
    let sphere = cat["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["functors"].as_array().unwrap())
        .find(|f| f["name"] == "Cg2_Sphere_Sphere_L6Geom")
        .unwrap();
    assert_eq!(sphere["shapes"], serde_json::json!(["Sphere", "Sphere"]));
}

#[test]
fn law_test_writes_the_forces_as_csv() {
    let d = dir("law-test");
    let file = d.join("test.ron");
    std::fs::write(
        &file,
        r#"LawTest(
        law: "Law2_L6Geom_LinearElPl",
        params: (kn: 1e5),
        materials: [(density: 1000, young: 1e9, friction: 0.4)],
        radii: (0.01, 0.01),
        dt: 1e-6,
        stages: [Approach(distance: 1e-4, speed: 0.1), Approach(distance: -2e-4, speed: 0.1)],
    )"#,
    )
    .unwrap();
    let csv = d.join("forces.csv");
    let out = dem(&[
        "law-test",
        file.to_str().unwrap(),
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[0], "time");
    let f_n = header.iter().position(|h| *h == "f_n").unwrap();
    let u_n = header.iter().position(|h| *h == "u_n").unwrap();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 3000);
    // The largest force is kn times the largest overlap (0.1 mm, less the first step).
    let peak = rows.iter().map(|r| r[f_n]).fold(0.0, f64::max);
    let deepest = rows.iter().map(|r| -r[u_n]).fold(0.0, f64::max);
    assert!(
        (peak - 1e5 * deepest).abs() < 1e-9 && deepest > 0.99e-4,
        "{peak} {deepest}"
    );

    let bad = d.join("bad.ron");
    std::fs::write(&bad, "LawTest(law: 1)").unwrap();
    let out = dem(&["law-test", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("bad.ron:1:"), "{e}");
}

/// A plugin that panics stops the run with an error naming the plugin, the law and the
/// contact; with checkpoints on, the state before the failing step is saved first.
#[test]
fn a_panicking_plugin_stops_the_run_after_a_checkpoint() {
    let d = dir("panic");
    let scene = d.join("scene.ron");
    std::fs::write(
        &scene,
        r#"Scene(
        materials: { "m": (density: 1000, young: 1e6) },
        laws: [(materials: ("*", "*"), law: "Law2_Test_Faulty", params: (fault: "panic"))],
        bodies: [
            Sphere(center: (-0.0102, 0, 0), radius: 0.01, material: "m", velocity: (1, 0, 0)),
            Sphere(center: (0.0102, 0, 0), radius: 0.01, material: "m", velocity: (-1, 0, 0)),
        ],
        timestep: Fixed(1e-5),
        duration: Steps(1000),
    )"#,
    )
    .unwrap();
    let out_dir = d.join("out");
    let out = dem(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--checkpoint-every",
        "500",
        "--quiet",
    ]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    println!("{e}");
    assert!(
        e.contains("Law2_Test_Faulty") && e.contains("test-faulty") && e.contains("contact 0-1"),
        "{e}"
    );
    let ck = Checkpoint::read(&out_dir.join("checkpoint.ckpt")).expect("a checkpoint");
    // The contact forms at the 20th step (gap 4e-4 m closing at 2 m/s, 1e-5 s steps).
    assert!(
        e.contains(&format!("step {}:", ck.step)),
        "the checkpoint holds the state before the failing step {}: {e}",
        ck.step
    );
    assert!(ck.step > 0 && ck.step < 500);
}

#[test]
fn a_library_that_crashes_when_opened_is_refused_not_fatal() {
    // A library whose initialiser dies of a segmentation fault (as one with flipped bytes
    // may): found by a scan, it is skipped with the signal; named, it is an error. Either
    // way `dem` itself goes on and says why.
    let d = dir("crashing");
    let src = d.join("boom.c");
    std::fs::write(
        &src,
        "#include <signal.h>\n\
         __attribute__((constructor)) static void boom(void) { raise(SIGSEGV); }\n",
    )
    .unwrap();
    let lib = d.join(format!("libboom.{}", std::env::consts::DLL_EXTENSION));
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .expect("a C compiler (cc) runs");
    assert!(cc.success());
    let scanned = dem(&["plugins", "--plugin", d.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&scanned.stderr);
    assert!(scanned.status.success(), "{err}");
    assert!(
        err.contains("libboom") && err.contains("signal 11 (segmentation fault)"),
        "{err}"
    );
    let named = dem(&["plugins", "--plugin", lib.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&named.stderr);
    assert_eq!(named.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: plugin") && err.contains("signal 11"),
        "{err}"
    );
}
