//! What `dem resume` writes into and what it resumes: a checkpoint carries its scene (an
//! edited or removed scene file does not matter; an edited mesh or CSV file it reads is
//! refused), and a directory holding another run's outputs is refused unless `--force`.

use dem_verification::cli::{dem, fresh_dir, ok, refused, s};
use std::path::{Path, PathBuf};

/// Spheres read from `spheres.csv` falling into a box; `{restitution}`, `{steps}` and
/// `{every}` are filled in.
const SCENE: &str = r#"Scene(
    materials: { "m": (density: 2500, young: 1e7, friction: 0.4) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (restitution: {restitution}))],
    bodies: [
        Box(min: (0, 0, 0), max: (0.02, 0.02, 0.02), material: "m"),
        Csv(file: "spheres.csv", radius: 0.001, material: "m"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps({steps}),
    output: (every: {every}),
)"#;

const SPHERES: &str = "x,y,z\n0.005,0.005,0.003\n0.0055,0.005,0.006\n0.012,0.01,0.004\n";

/// A directory with the scene and its CSV file, and a run of it into `out` with a
/// checkpoint at step 100.
fn run(name: &str, steps: u64, every: u64) -> (PathBuf, PathBuf) {
    let dir = fresh_dir("resume-ownership", name);
    let scene = dir.join("scene.ron");
    std::fs::write(&scene, scene_text("0.5", steps, every)).unwrap();
    std::fs::write(dir.join("spheres.csv"), SPHERES).unwrap();
    let out = dir.join("out");
    ok(&dem(&[
        "run",
        s(&scene),
        "--out",
        s(&out),
        "--checkpoint-every",
        "100",
        "--quiet",
    ]));
    (dir, out)
}

fn scene_text(restitution: &str, steps: u64, every: u64) -> String {
    SCENE
        .replace("{restitution}", restitution)
        .replace("{steps}", &steps.to_string())
        .replace("{every}", &every.to_string())
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn vtu_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".vtu"))
        .collect();
    names.sort();
    names
}

#[test]
fn another_runs_directory_is_refused_unless_forced() {
    let (_, a) = run("a", 150, 50);
    let (_, b) = run("b", 160, 40);
    let energy_a = read(&a.join("energy.csv"));
    // B's checkpoint copied into A's output directory.
    let copied = a.join("b.ckpt");
    std::fs::copy(b.join("checkpoint.ckpt"), &copied).unwrap();
    let e = refused(&dem(&["resume", s(&copied), "--quiet"]));
    assert!(
        e.contains(&format!("{}: holds the outputs of another run", s(&a)))
            && e.contains("energy.csv")
            && e.contains("--force"),
        "{e}"
    );
    assert!(
        read(&a.join("energy.csv")) == energy_a,
        "A's outputs untouched"
    );
    // Also with --out pointing at A.
    let e = refused(&dem(&[
        "resume",
        s(&b.join("checkpoint.ckpt")),
        "--out",
        s(&a),
        "--quiet",
    ]));
    assert!(e.contains("holds the outputs of another run"), "{e}");

    // Told to: A's outputs are replaced, none of its frames is left.
    ok(&dem(&["resume", s(&copied), "--force", "--quiet"]));
    assert!(read(&a.join("energy.csv")) == read(&b.join("energy.csv")));
    // (Only B's frames after its checkpoint are written there.)
    let (left, of_b) = (vtu_names(&a), vtu_names(&b));
    assert!(
        !left.is_empty() && left.iter().all(|n| of_b.contains(n)),
        "{left:?}"
    );
    assert!(copied.exists(), "the resumed checkpoint is kept");
}

#[test]
fn resume_into_its_own_or_a_fresh_directory() {
    let (dir, out) = run("own", 200, 50);
    let whole = read(&out.join("energy.csv"));
    ok(&dem(&[
        "resume",
        s(&out.join("checkpoint.ckpt")),
        "--quiet",
    ]));
    assert!(read(&out.join("energy.csv")) == whole);
    let fresh = dir.join("fresh");
    ok(&dem(&[
        "resume",
        s(&out.join("checkpoint.ckpt")),
        "--out",
        s(&fresh),
        "--quiet",
    ]));
    assert!(read(&fresh.join("energy.csv")) == whole);
}

#[test]
fn the_checkpoint_carries_its_scene() {
    let (dir, out) = run("edited", 200, 50);
    let whole = read(&out.join("energy.csv"));
    let ckpt = out.join("checkpoint.ckpt");
    // Restitution edited: the run goes on with its own scene, and says so.
    let scene = dir.join("scene.ron");
    std::fs::write(&scene, scene_text("0.9", 200, 50)).unwrap();
    let res = dem(&["resume", s(&ckpt), "--out", s(&dir.join("r1")), "--quiet"]);
    ok(&res);
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(
        stderr.contains("edited since the run started")
            && stderr.contains("the scene saved in its checkpoint"),
        "{stderr}"
    );
    assert!(read(&dir.join("r1/energy.csv")) == whole);
    // Scene file removed: the same.
    std::fs::remove_file(&scene).unwrap();
    ok(&dem(&[
        "resume",
        s(&ckpt),
        "--out",
        s(&dir.join("r2")),
        "--quiet",
    ]));
    assert!(read(&dir.join("r2/energy.csv")) == whole);
    // The CSV file the scene reads edited: refused, naming the file and the field.
    std::fs::write(dir.join("spheres.csv"), SPHERES.replace("0.012", "0.013")).unwrap();
    let e = refused(&dem(&["resume", s(&ckpt), "--out", s(&dir.join("r3"))]));
    assert!(
        e.contains(&format!(
            "{}: {} (bodies[1].file of the scene) changed since the run started",
            s(&ckpt),
            s(&dir.join("spheres.csv"))
        )),
        "{e}"
    );
}
