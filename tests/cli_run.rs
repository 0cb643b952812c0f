//! The `dem` executable: outputs of a run (energy CSV and plot, VTK streams, checkpoint,
//! JSON progress and summary, quiet mode), Ctrl-C and resume giving the uninterrupted
//! result, SIGKILL during checkpoint writes, and corrupted checkpoints refused.

use dem_core::Checkpoint;
use dem_verification::{dem_exe, read_vtk, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Spheres falling into a box and bouncing sideways; `{steps}` and `{count}` are filled in.
const SCENE: &str = r#"Scene(
    materials: { "m": (density: 2500, young: 1e7, friction: 0.4) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    bodies: [
        Box(min: (0, 0, 0), max: (0.05, 0.05, 0.05), material: "m"),
        Lattice(origin: (0.002, 0.002, 0.002), count: ({count}, {count}, 4), spacing: 0.0021,
                radius: 0.001, material: "m", velocity: (0.05, -0.03, -0.02)),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps({steps}),
    output: (every: {every}),
)"#;

/// A fresh directory `target/test-output/cli/<name>` holding `scene.ron`.
fn setup(name: &str, count: u32, steps: u64, every: u64) -> (PathBuf, PathBuf) {
    let dir = root().join("target/test-output/cli").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("scene.ron");
    let text = SCENE
        .replace("{count}", &count.to_string())
        .replace("{steps}", &steps.to_string())
        .replace("{every}", &every.to_string());
    std::fs::write(&scene, text).unwrap();
    (dir, scene)
}

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(dem_exe());
    c.args(args).env_remove("RUST_LOG");
    c
}

fn dem(args: &[&str]) -> Output {
    command(args).output().expect("dem runs")
}

fn spawn(args: &[&str]) -> Child {
    command(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dem starts")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "dem failed ({:?}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_run_writes_every_output() {
    let (dir, scene) = setup("outputs", 6, 300, 100);
    let out = dir.join("out");
    let stdout = ok(&dem(&[
        "run",
        s(&scene),
        "--out",
        s(&out),
        "--json",
        "--checkpoint-every",
        "150",
    ]));
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let progress: Vec<u64> = events
        .iter()
        .filter(|e| e["event"] == "progress")
        .map(|e| e["step"].as_u64().unwrap())
        .collect();
    assert_eq!(progress, [1, 101, 201, 300]);
    let summary = events.last().unwrap();
    assert_eq!(summary["event"], "summary");
    assert_eq!(summary["steps"], 300);
    assert_eq!(summary["checkpoints_written"], 1);
    let contacts = &summary["contacts"];
    assert!(contacts["min"].as_u64() <= contacts["max"].as_u64());
    for key in [
        "simulated_time",
        "wall_time",
        "particle_steps_per_second",
        "ledger_balance_error",
    ] {
        assert!(summary[key].is_number(), "{key}: {summary}");
    }

    // energy.csv: a row per output step, every ledger entry.
    let csv = String::from_utf8(read(&out.join("energy.csv"))).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "step,time,kinetic,rotational,potential,elastic,friction,damping,nonviscous,broken,boundary_work,inflow,outflow,total"
    );
    let steps: Vec<&str> = lines.map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(steps, ["0", "100", "200", "299"]);

    // energy.png: a valid PNG of the documented size.
    let png = png::Decoder::new(std::fs::File::open(out.join("energy.png")).unwrap());
    let mut reader = png.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG data decodes");
    assert_eq!((info.width, info.height), (1200, 800));
    assert!(buf.iter().any(|&b| b != 255), "something is drawn");

    // VTK: the collections list every frame with its time; VTK reads every file.
    let mut files = Vec::new();
    for stream in ["particles", "contacts", "walls"] {
        let pvd = out.join(format!("{stream}.pvd"));
        let sets = read_vtk(&[&pvd])[s(&pvd)]["datasets"].clone();
        let sets = sets.as_array().unwrap();
        let names: Vec<&str> = sets.iter().map(|d| d[1].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [0, 100, 200, 300].map(|k| format!("{stream}_{k:09}.vtu")),
            "{stream}"
        );
        let last = sets.last().unwrap()[0].as_f64().unwrap();
        assert_eq!(last, summary["simulated_time"].as_f64().unwrap());
        files.extend(names.iter().map(|n| out.join(n)));
    }
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let grids = read_vtk(&paths);
    let particles = &grids[s(&out.join("particles_000000300.vtu"))];
    assert_eq!(particles["points"].as_array().unwrap().len(), 3 * 144);
    let walls = &grids[s(&out.join("walls_000000300.vtu"))];
    assert_eq!(walls["types"], serde_json::json!([9, 9, 9, 9, 9, 9]));

    // The checkpoint of step 150 loads.
    let ck = Checkpoint::read(&out.join("checkpoint.ckpt")).unwrap();
    assert_eq!((ck.step, ck.particle_count()), (150, 150));
    let info = ok(&dem(&["inspect", s(&out.join("checkpoint.ckpt"))]));
    assert!(
        info.contains("step 150 of 300")
            && info.contains("150 particles")
            && info.contains("plugin law-linear"),
        "{info}"
    );

    // --quiet: nothing on stdout, no log lines on stderr.
    let quiet = dem(&["run", s(&scene), "--out", s(&dir.join("quiet")), "--quiet"]);
    assert!(ok(&quiet).is_empty());
    assert!(
        quiet.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
}

/// Waits for `path` to exist.
#[test]
fn frames_have_an_interval_of_their_own() {
    // A ledger row every 20 steps, a VTK frame every 100: the rows do not bring frames.
    let (dir, scene) = setup("frames", 4, 250, 20);
    let text = std::fs::read_to_string(&scene).unwrap();
    let framed = text.replace("output: (every: 20)", "output: (every: 20, frames: 100)");
    assert_ne!(framed, text);
    std::fs::write(&scene, framed).unwrap();
    let out = dir.join("out");
    ok(&dem(&["run", s(&scene), "--out", s(&out), "--quiet"]));
    let csv = String::from_utf8(read(&out.join("energy.csv"))).unwrap();
    let rows: Vec<u64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    let expected: Vec<u64> = (0..=240).step_by(20).chain([249]).collect();
    assert_eq!(rows, expected, "a row every 20 steps and at the last");
    let pvd = out.join("particles.pvd");
    let sets = read_vtk(&[&pvd])[s(&pvd)]["datasets"].clone();
    let listed: Vec<&str> = sets
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d[1].as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        [0, 100, 200, 250].map(|k| format!("particles_{k:09}.vtu"))
    );
    let mut vtu: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("particles_"))
        .collect();
    vtu.sort();
    assert_eq!(vtu, listed, "no other frame files");

    // `frames: 0` is refused, naming the field.
    let message = refused_with(&scene, ("frames: 100", "frames: 0"));
    assert!(message.contains("output.frames"), "{message}");
}

/// What `dem check` says of `scene` with `change.0` replaced by `change.1`, which it must
/// refuse.
fn refused_with(scene: &Path, change: (&str, &str)) -> String {
    let text = std::fs::read_to_string(scene).unwrap();
    assert!(text.contains(change.0), "{}", change.0);
    std::fs::write(scene, text.replace(change.0, change.1)).unwrap();
    let refused = dem(&["check", s(scene)]);
    assert!(!refused.status.success());
    String::from_utf8_lossy(&refused.stderr).into_owned()
}

/// The numbers of a CSV text's rows (the header left out), each row's fields parsed.
fn csv_rows(text: &str) -> Vec<Vec<f64>> {
    let rows = text.lines().skip(1);
    rows.map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect()
}

#[test]
fn tracked_particles_and_their_contacts_are_written_as_rows() {
    // The box's six walls (ids 0 to 5) and a sphere of the lattice, which starts just
    // above the floor.
    let (dir, scene) = setup("tracked", 4, 100, 25);
    let text = std::fs::read_to_string(&scene).unwrap();
    let tracked = text
        .replace(
            "output: (every: 25)",
            "output: (every: 25, track: [0, 1, 2, 3, 4, 5, 30])",
        )
        .replace(
            "origin: (0.002, 0.002, 0.002)",
            "origin: (0.002, 0.002, 0.00101)",
        );
    std::fs::write(&scene, tracked).unwrap();
    let out = dir.join("out");
    ok(&dem(&["run", s(&scene), "--out", s(&out), "--quiet"]));

    // A row per tracked particle at steps 0, 25, ..., 100; the last rows are the final
    // state that particles.csv holds.
    let rows = csv_rows(&String::from_utf8(read(&out.join("tracked.csv"))).unwrap());
    let keys: Vec<(u64, u64)> = rows.iter().map(|r| (r[0] as u64, r[2] as u64)).collect();
    let ids = [0, 1, 2, 3, 4, 5, 30];
    let expected: Vec<(u64, u64)> = (0..=100)
        .step_by(25)
        .flat_map(|s| ids.map(|id| (s, id)))
        .collect();
    assert_eq!(keys, expected);
    let finals = csv_rows(
        &String::from_utf8(read(&out.join("particles.csv")))
            .unwrap()
            .lines()
            .map(|l| l.replace("Sphere,", "0,").replace("Wall,", "1,"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    // Printed with 13 significant digits (particles.csv: as many as round-trip).
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs());
    for row in &rows[rows.len() - ids.len()..] {
        let id = row[2] as usize;
        let last = &finals[id];
        // particles.csv: id,kind,x,y,z,vx,vy,vz,wx,wy,wz,radius,fx,fy,fz.
        let want = [&last[2..11], &last[12..15]].concat();
        let got = [&row[3..12], &row[12..15]].concat();
        for (&g, &w) in got.iter().zip(&want) {
            assert!(close(g, w), "{id}: {got:?} {want:?}");
        }
    }

    // The contacts of the tracked particles at the last step are those of the last VTK
    // frame, with the same normal and force.
    let rows = csv_rows(&String::from_utf8(read(&out.join("tracked_contacts.csv"))).unwrap());
    let last: Vec<&Vec<f64>> = rows.iter().filter(|r| r[0] == 100.0).collect();
    assert!(!last.is_empty(), "the spheres touch the floor at the end");
    let path = out.join("contacts_000000100.vtu");
    let vtk = &read_vtk(&[&path])[s(&path)]["cell_data"];
    let values = |name: &str| -> Vec<f64> {
        let v = vtk[name]["values"].as_array().unwrap();
        v.iter().map(|x| x.as_f64().unwrap()).collect()
    };
    let (id1, id2) = (values("id1"), values("id2"));
    let (normal, f_n, f_t) = (
        values("normal"),
        values("normal_force_vector"),
        values("tangential_force"),
    );
    let listed = (0..id1.len())
        .filter(|&k| ids.iter().any(|&t| [id1[k], id2[k]].contains(&(t as f64))))
        .count();
    assert_eq!(
        last.len(),
        listed,
        "every contact of a tracked particle, once"
    );
    for row in last {
        let k = (0..id1.len())
            .find(|&k| (id1[k], id2[k]) == (row[2], row[3]))
            .expect("the contact is in the frame");
        let force: Vec<f64> = (0..3).map(|c| f_n[3 * k + c] + f_t[3 * k + c]).collect();
        let size = force.iter().map(|f| f.abs()).fold(0.0, f64::max);
        for c in 0..3 {
            assert!(close(row[7 + c], normal[3 * k + c]) || normal[3 * k + c] == 0.0);
            assert!(
                (row[10 + c] - force[c]).abs() <= 1e-11 * size,
                "{row:?} {force:?}"
            );
        }
    }

    // An id no particle has is refused, naming the field.
    let message = refused_with(&scene, ("track: [0, 1, 2, 3, 4, 5, 30]", "track: [2, 500]"));
    assert!(
        message.contains("output.track") && message.contains("500"),
        "{message}"
    );
}

fn wait_for(path: &Path, child: &mut Child) {
    let start = Instant::now();
    while !path.exists() {
        assert!(child.try_wait().unwrap().is_none(), "dem ended early");
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn ctrl_c_writes_a_checkpoint_and_resume_finishes_the_same_run() {
    let (dir, scene) = setup("interrupt", 10, 6000, 500);
    // Tracked particles too: their rows go on from the checkpoint's.
    let text = std::fs::read_to_string(&scene).unwrap();
    let tracked = text.replace(
        "output: (every: 500)",
        "output: (every: 500, track: [0, 77])",
    );
    std::fs::write(&scene, tracked).unwrap();
    let whole = dir.join("whole");
    ok(&dem(&["run", s(&scene), "--out", s(&whole), "--quiet"]));

    let parts = dir.join("parts");
    let mut child = spawn(&["run", s(&scene), "--out", s(&parts)]);
    wait_for(&parts.join("energy.csv"), &mut child);
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let ckpt = parts.join("checkpoint.ckpt");
    assert!(
        stderr.contains("interrupted at step") && stderr.contains(s(&ckpt)),
        "{stderr}"
    );
    let at = Checkpoint::read(&ckpt).unwrap().step;
    assert!(at > 0 && at < 6000, "interrupted at step {at}");

    // On one thread where the run had all cores: the result does not depend on it.
    let summary = ok(&dem(&["resume", s(&ckpt), "--threads", "1"]));
    assert!(
        summary.contains(&format!("(resumed at step {at})")),
        "{summary}"
    );
    for file in [
        "particles.csv",
        "energy.csv",
        "particles_000006000.vtu",
        "contacts.pvd",
        "tracked.csv",
        "tracked_contacts.csv",
    ] {
        assert!(
            read(&parts.join(file)) == read(&whole.join(file)),
            "{file} differs from the uninterrupted run"
        );
    }
}

#[test]
fn sigterm_writes_a_checkpoint_too() {
    // What a batch scheduler sends at the wall-clock limit.
    let (dir, scene) = setup("sigterm", 10, 100_000, 500);
    let out = dir.join("out");
    let mut child = spawn(&["run", s(&scene), "--out", s(&out), "--json"]);
    wait_for(&out.join("energy.csv"), &mut child);
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let ck = Checkpoint::read(&out.join("checkpoint.ckpt")).unwrap();
    assert!(ck.step > 0 && ck.step < 100_000);
}

#[test]
fn sigkill_during_checkpoint_writes_leaves_a_loadable_checkpoint() {
    // 1600 spheres, a checkpoint after every step: most of the time goes into writing.
    let (dir, scene) = setup("sigkill", 20, 1500, 500);
    let out = dir.join("out");
    let ckpt = out.join("checkpoint.ckpt");
    let tmp = out.join(".checkpoint.ckpt.tmp");
    let mut mid_write = 0;
    let mut last = 0;
    for round in 0..8u64 {
        let mut args = vec!["--checkpoint-every", "1", "--quiet"];
        let mut child = if round == 0 {
            args.splice(0..0, ["run", s(&scene), "--out", s(&out)]);
            spawn(&args)
        } else {
            args.splice(0..0, ["resume", s(&ckpt)]);
            spawn(&args)
        };
        if round == 0 {
            wait_for(&ckpt, &mut child);
        }
        // Kill at varied moments.
        std::thread::sleep(Duration::from_millis(150 + 97 * round));
        child.kill().unwrap();
        child.wait().unwrap();
        mid_write += tmp.exists() as u32;
        let ck = Checkpoint::read(&ckpt).unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert!(ck.step >= last, "round {round}: step {} < {last}", ck.step);
        last = ck.step;
    }
    println!(
        "last checkpoint at step {last}; {mid_write} of 8 kills left a partial temporary file"
    );
    assert!(last > 0 && last < 1500);
    ok(&dem(&["resume", s(&ckpt), "--quiet"]));
    let whole = dir.join("whole");
    ok(&dem(&["run", s(&scene), "--out", s(&whole), "--quiet"]));
    assert!(read(&out.join("particles.csv")) == read(&whole.join("particles.csv")));
    assert!(read(&out.join("energy.csv")) == read(&whole.join("energy.csv")));
}

#[test]
fn resume_refuses_a_corrupted_checkpoint() {
    let (dir, scene) = setup("corrupted", 4, 40, 100);
    let out = dir.join("out");
    ok(&dem(&[
        "run",
        s(&scene),
        "--out",
        s(&out),
        "--checkpoint-every",
        "20",
        "--quiet",
    ]));
    let ckpt = out.join("checkpoint.ckpt");
    let mut bytes = read(&ckpt);
    let n = bytes.len();
    bytes[n / 2] ^= 1;
    std::fs::write(&ckpt, &bytes).unwrap();
    let res = dem(&["resume", s(&ckpt)]);
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: {}: corrupted checkpoint: checksum mismatch",
            s(&ckpt)
        )),
        "{stderr}"
    );
    std::fs::write(&ckpt, &bytes[..n - 100]).unwrap();
    let stderr = String::from_utf8_lossy(&dem(&["resume", s(&ckpt)]).stderr).to_string();
    assert!(stderr.contains("truncated checkpoint"), "{stderr}");
}

/// A log that goes to a file or a pipe (a batch job's) is plain text: no terminal colour
/// codes around its INFO and WARN lines.
#[test]
fn a_log_that_is_not_a_terminal_has_no_colour_codes() {
    let (dir, scene) = setup("plain-log", 20, 30, 10);
    let out = dem(&["run", s(&scene), "--out", s(&dir.join("out"))]);
    ok(&out);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("INFO"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a piped log: {log:?}"
    );
}
