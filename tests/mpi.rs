//! The `dem` executable built with the `mpi` feature, under `mpirun -n 2` and `-n 4`
//! (oversubscribed on this machine's cores), writes the files one process writes, byte for
//! byte: spheres with a moving wall, a rotating drum (a moving mesh, particles crossing
//! between the ranks' shares with long-lived contacts), a hopper filled by an inlet,
//! clumps, superquadrics, a checkpoint written on 4 ranks and
//! resumed on 2; and a plugin's failure on one rank stops every rank with its message.
//!
//! Needs an MPI (`mpirun`, and the library and libclang to build the `mpi` crate: Debian's
//! `libopenmpi-dev libclang-dev`). Without `mpirun` these tests say so and pass, except
//! under CI (`CI` set), where they fail: `.ci/run` installs OpenMPI.

use dem_verification::cli::{fresh_dir, s};
use dem_verification::ranks::{PISTON, SCENE};
use dem_verification::{build_dem, build_plugins, root, PLUGINS};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// `dem` with MPI, built into its own target directory (`target/test-mpi`), or `None`
/// without `mpirun`.
fn mpi_dem() -> Option<&'static Path> {
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| {
        let found = Command::new("mpirun").arg("--version").output();
        if !found.is_ok_and(|o| o.status.success()) {
            assert!(
                std::env::var_os("CI").is_none(),
                "no mpirun: CI must install OpenMPI"
            );
            eprintln!("no mpirun on the PATH: the MPI tests are skipped");
            return None;
        }
        Some(build_dem(&["mpi"], "test-mpi"))
    })
    .as_deref()
}

/// Runs `dem args` on `ranks` processes (`mpirun` for more than one), each on one thread;
/// fails the test if it runs for more than two minutes (ranks waiting for each other).
fn run(dem: &Path, ranks: usize, args: &[&str]) -> Output {
    let plugins = build_plugins(&PLUGINS);
    let dir = plugins[0].parent().unwrap();
    let mut c = match ranks {
        1 => Command::new(dem),
        n => {
            let mut c = Command::new("mpirun");
            c.args(["--oversubscribe", "-n", &n.to_string()]).arg(dem);
            c
        }
    };
    c.args(args)
        .args(["--threads", "1", "--quiet"])
        .env("DEM_PLUGIN_PATH", dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("the run starts");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!(
                "{ranks} ranks: `dem {}` still running after 2 minutes",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "failed ({:?}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every file of `a` (a run's output directory but its run id and the energy plot) is in
/// `b` with the same bytes; returns how many were compared.
fn same_files(a: &Path, b: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(a).unwrap() {
        let name = e.unwrap().file_name();
        let name = name.to_str().unwrap();
        if ["run.id", "energy.png", "checkpoint.ckpt"].contains(&name) {
            continue;
        }
        let (x, y) = (
            std::fs::read(a.join(name)).unwrap(),
            std::fs::read(b.join(name)),
        );
        assert!(
            y.as_ref().is_ok_and(|y| *y == x),
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
        n += 1;
    }
    n
}

/// Runs `scene` (a file) on 1, 2 and 4 ranks into `dir/n<ranks>` and compares the files.
fn same_on_ranks(dem: &Path, scene: &Path, dir: &Path) {
    let one = dir.join("n1");
    ok(&run(dem, 1, &["run", s(scene), "--out", s(&one)]));
    for n in [2, 4] {
        let out = dir.join(format!("n{n}"));
        ok(&run(dem, n, &["run", s(scene), "--out", s(&out)]));
        let files = same_files(&one, &out);
        assert!(files >= 6, "only {files} files");
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn spheres_and_a_moving_wall_on_two_and_four_ranks() {
    let Some(dem) = mpi_dem() else { return };
    let dir = fresh_dir("mpi", "spheres");
    let text = SCENE
        .replace("PISTON", PISTON)
        .replace("Steps(3000)", "Steps(1500)")
        .replace("reorder: 100)", "reorder: 100),\n    output: (every: 500)");
    same_on_ranks(dem, &write(&dir, "spheres.ron", &text), &dir);
}

#[test]
fn a_rotating_drum_on_two_and_four_ranks() {
    let Some(dem) = mpi_dem() else { return };
    let dir = fresh_dir("mpi", "drum");
    let mesh = root().join("scenes/meshes/drum.obj");
    let text = std::fs::read_to_string(root().join("scenes/drum.ron"))
        .unwrap()
        .replace("Time(2.0)", "Time(0.05)")
        .replace("\"meshes/drum.obj\"", &format!("{:?}", s(&mesh)))
        .replace("every: 2000", "every: 1000");
    same_on_ranks(dem, &write(&dir, "drum.ron", &text), &dir);
}

#[test]
fn a_hopper_filled_by_an_inlet_on_two_and_four_ranks() {
    // The inlet's steps are taken as one process by every rank, then shared out anew.
    let Some(dem) = mpi_dem() else { return };
    let dir = fresh_dir("mpi", "hopper");
    let mut text = std::fs::read_to_string(root().join("scenes/hopper.ron"))
        .unwrap()
        .replace("Time(2.5)", "Time(0.06)")
        .replace("every: 1000", "every: 300");
    for mesh in ["hopper.stl", "hopper_gate.obj"] {
        let path = root().join("scenes/meshes").join(mesh);
        text = text.replace(&format!("\"meshes/{mesh}\""), &format!("{:?}", s(&path)));
    }
    same_on_ranks(dem, &write(&dir, "hopper.ron", &text), &dir);
}

#[test]
fn clumps_on_two_and_four_ranks() {
    // Clump members are held and moved by every rank, like walls.
    let Some(dem) = mpi_dem() else { return };
    let dir = fresh_dir("mpi", "clumps");
    let rice = root().join("scenes/data/rice.csv");
    let text = std::fs::read_to_string(root().join("scenes/clumps.ron"))
        .unwrap()
        .replace("Time(0.8)", "Time(0.02)")
        .replace("\"data/rice.csv\"", &format!("{:?}", s(&rice)))
        .replace("every: 2000", "every: 1000");
    same_on_ranks(dem, &write(&dir, "clumps.ron", &text), &dir);
}

#[test]
fn a_checkpoint_of_four_ranks_resumes_on_two() {
    let Some(dem) = mpi_dem() else { return };
    let dir = fresh_dir("mpi", "resume");
    let text = SCENE
        .replace("PISTON", PISTON)
        .replace("Steps(3000)", "Steps(1500)");
    let scene = write(&dir, "spheres.ron", &text);
    let (whole, four, two) = (dir.join("whole"), dir.join("four"), dir.join("two"));
    ok(&run(dem, 1, &["run", s(&scene), "--out", s(&whole)]));
    ok(&run(
        dem,
        4,
        &[
            "run",
            s(&scene),
            "--out",
            s(&four),
            "--checkpoint-every",
            "700",
        ],
    ));
    // The last checkpoint, of step 1400, resumed on 2 ranks in a directory of its own.
    std::fs::create_dir_all(&two).unwrap();
    let ckpt = two.join("checkpoint.ckpt");
    std::fs::copy(four.join("checkpoint.ckpt"), &ckpt).unwrap();
    ok(&run(dem, 2, &["resume", s(&ckpt)]));
    for f in ["energy.csv", "particles.csv"] {
        assert_eq!(
            std::fs::read(whole.join(f)).unwrap(),
            std::fs::read(two.join(f)).unwrap(),
            "{f} of the resumed run differs from the uninterrupted one's"
        );
    }
}

#[test]
fn a_plugin_failing_on_one_rank_stops_every_rank() {
    let Some(dem) = mpi_dem() else { return };
    let dir = fresh_dir("mpi", "faulty");
    // Two spheres of their own material, in the lattice's far corner (last in storage, so
    // on the last rank), touch from the start: their law panics there.
    let text = SCENE
        .replace(
            "laws: [",
            r#"laws: [(materials: ("bad", "bad"), law: "Law2_Test_Faulty", params: (fault: "panic")),
        "#,
        )
        .replace(
            r#""m": (density"#,
            r#""bad": (density: 2500, young: 1e7), "m": (density"#,
        )
        .replace(
            "PISTON",
            r#"Sphere(center: (0.0285, 0.0285, 0.048), radius: 0.001, material: "bad"),
        Sphere(center: (0.0285, 0.0285, 0.0461), radius: 0.001, material: "bad"),"#,
        );
    let scene = write(&dir, "faulty.ron", &text);
    let out = run(dem, 4, &["run", s(&scene), "--out", s(&dir.join("out"))]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the run succeeded:\n{stderr}");
    assert!(
        stderr.contains("Law2_Test_Faulty") && stderr.contains("deliberate"),
        "{stderr}"
    );
}

#[test]
fn superquadrics_on_two_and_four_ranks() {
    // Bodies of a plugin shape: every rank loads the plugin and gives the shape the
    // same kind; the functor's contact state travels with the contacts.
    let Some(dem) = mpi_dem() else { return };
    let dir = fresh_dir("mpi", "superquadrics");
    let text = r#"Scene(
    materials: { "m": (density: 1000, young: 1e7, friction: 0.5) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn: 1e4, kt_kn: 0.5, restitution: 0.3))],
    bodies: [
        ShapeFill(shape: "Superquadric", params: (half_axes: (0.012, 0.008, 0.006), blockiness: (2, 3)),
                  min: (0, 0, 0), max: (0.1, 0.1, 0.25), count: 60, material: "m", seed: 3),
        Box(min: (0, 0, 0), max: (0.1, 0.1, 0.4), material: "m"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps(3000),
    contacts: (l6geom: (no_ratch: false)),
    output: (every: 1000),
)"#;
    same_on_ranks(dem, &write(&dir, "superquadrics.ron", text), &dir);
}
