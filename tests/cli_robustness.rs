//! The `dem` executable under conditions a script creates: a reader that goes away
//! (`dem check scene.ron | head -1`) ends every command quietly, as it ends Unix tools,
//! while a run goes on and writes its files; values that would make a run meaningless
//! are refused with their field.

use dem_verification::cli::{command, dem, fresh_dir, ok, refused, s};
use dem_verification::root;
use std::os::unix::process::ExitStatusExt;
use std::process::{Output, Stdio};

/// Runs `dem` with its stdout a pipe whose reader is closed before dem writes (dem takes
/// milliseconds to start; the pipe is closed at once).
fn with_closed_stdout(args: &[&str]) -> Output {
    let mut child = command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dem starts");
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

/// Ended quietly: without a message, by SIGPIPE as Unix tools are (or done before it
/// wrote anything).
fn quiet(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{what}: {stderr}");
    const SIGPIPE: i32 = 13;
    assert!(
        out.status.success() || out.status.signal() == Some(SIGPIPE),
        "{what}: {:?}",
        out.status
    );
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let hopper = root().join("scenes/hopper.ron");
    let law_test = root().join("examples/law-test-linear.ron");
    let scene = bounce_with("pipe", "duration: Time(1.0)", "duration: Steps(1000)");
    let dir = scene.parent().unwrap().to_path_buf();
    let out = dir.join("bounce");
    ok(&dem(&[
        "run",
        s(&scene),
        "--out",
        s(&out),
        "--checkpoint-every",
        "500",
        "--quiet",
    ]));
    let ckpt = out.join("checkpoint.ckpt");
    for args in [
        vec!["check", s(&hopper)],
        vec!["plugins"],
        vec!["plugins", "--json"],
        vec!["law-test", s(&law_test)],
        vec!["inspect", s(&ckpt)],
    ] {
        quiet(&with_closed_stdout(&args), &args.join(" "));
    }
    // A run goes on to its end and writes its files: its results are not on stdout.
    let again = dir.join("again");
    let res = with_closed_stdout(&["run", s(&scene), "--out", s(&again), "--json"]);
    assert!(res.status.success(), "{res:?}");
    assert!(again.join("particles.csv").exists());
}

/// `scenes/bounce.ron` with `from` replaced by `to`, in a fresh directory.
fn bounce_with(name: &str, from: &str, to: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(root().join("scenes/bounce.ron")).unwrap();
    assert!(text.contains(from), "bounce.ron has no `{from}`");
    let dir = fresh_dir("cli-robustness", name);
    let path = dir.join("scene.ron");
    std::fs::write(&path, text.replace(from, to)).unwrap();
    path
}

#[test]
fn meaningless_durations_and_output_intervals_are_refused() {
    let path = bounce_with("negative", "duration: Time(1.0)", "duration: Time(-1.0)");
    let e = refused(&dem(&["check", s(&path)]));
    assert!(
        e.contains("duration: Time(-1) must be positive and finite"),
        "{e}"
    );
    let e = refused(&dem(&["run", s(&path), "--quiet"]));
    assert!(e.contains("duration: Time(-1)"), "{e}");
    let path = bounce_with("zero-steps", "duration: Time(1.0)", "duration: Steps(0)");
    let e = refused(&dem(&["check", s(&path)]));
    assert!(e.contains("duration: Steps(0)"), "{e}");
    let path = bounce_with("every-0", "output: (every: 200)", "output: (every: 0)");
    let e = refused(&dem(&["check", s(&path)]));
    assert!(e.contains("output.every: must be at least 1"), "{e}");
}

#[test]
fn thread_counts_are_validated() {
    let scene = root().join("scenes/bounce.ron");
    let out = fresh_dir("cli-robustness", "threads");
    let e = refused(&dem(&[
        "run",
        s(&scene),
        "--out",
        s(&out),
        "--threads",
        "0",
    ]));
    assert!(
        e.contains("--threads 0: a run needs at least 1 thread"),
        "{e}"
    );
    let e = refused(&dem(&[
        "run",
        s(&scene),
        "--out",
        s(&out),
        "--threads",
        "100000",
    ]));
    assert!(e.contains("--threads 100000: more than"), "{e}");
    assert!(!out.join("energy.csv").exists());
}

#[test]
fn devices_are_not_read_as_checkpoints() {
    for args in [["resume", "/dev/urandom"], ["inspect", "/dev/zero"]] {
        let e = refused(&dem(&args));
        assert!(e.contains("not a regular file"), "{args:?}: {e}");
    }
}

#[test]
fn a_signal_during_the_set_up_ends_the_run_at_once() {
    // 10 rocks, each the hull of 20,000 random points: a set-up of several seconds.
    let path = bounce_with(
        "setup-signal",
        "bodies: [",
        "bodies: [\n        Rocks(min: (-1, -1, 1), max: (1, 1, 3), count: 10, \
         size: (0.01, 0.01), points: 20000, material: \"glass\", seed: 1),",
    );
    let out = path.parent().unwrap().join("out");
    let mut child = command(&["run", s(&path), "--out", s(&out), "--checkpoint-every", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    // Stopped before its first step: nothing was run, nothing to save.
    assert!(!out.join("energy.csv").exists() && !out.join("checkpoint.ckpt").exists());
}

#[test]
fn write_errors_name_the_file_and_stale_temporaries_are_removed() {
    let path = bounce_with("write-error", "duration: Time(1.0)", "duration: Steps(300)");
    let out = path.parent().unwrap().join("out");
    // A directory where the first VTK frame goes: its write fails (as on a full disk).
    let frame = out.join("particles_000000000.vtu");
    std::fs::create_dir_all(&frame).unwrap();
    // What a checkpoint write killed midway leaves.
    let tmp = out.join(".checkpoint.ckpt.tmp");
    std::fs::write(&tmp, b"half a checkpoint").unwrap();
    let e = refused(&dem(&["run", s(&path), "--out", s(&out), "--quiet"]));
    assert!(e.contains(&format!("error: {}: ", s(&frame))), "{e}");
    assert!(!tmp.exists(), "the stale temporary file is removed");
}

#[test]
fn a_checkpoint_that_cannot_be_written_says_what_is_kept() {
    let path = bounce_with("ckpt-error", "duration: Time(1.0)", "duration: Steps(300)");
    let out = path.parent().unwrap().join("out");
    ok(&dem(&[
        "run",
        s(&path),
        "--out",
        s(&out),
        "--checkpoint-every",
        "100",
        "--quiet",
    ]));
    // Its temporary file cannot be created now (as on a full disk).
    std::fs::create_dir_all(out.join(".checkpoint.ckpt.tmp")).unwrap();
    let ckpt = out.join("checkpoint.ckpt");
    let e = refused(&dem(&[
        "resume",
        s(&ckpt),
        "--checkpoint-every",
        "50",
        "--quiet",
    ]));
    assert!(
        e.contains("cannot write the checkpoint of step 250")
            && e.contains("the previous checkpoint (step 200) is kept whole"),
        "{e}"
    );
}

#[test]
fn a_log_gets_progress_lines() {
    // stderr is a pipe here, as in a batch job's log: no bar, progress lines instead.
    let path = bounce_with("log", "duration: Time(1.0)", "duration: Steps(400)");
    let out = path.parent().unwrap().join("out");
    let res = dem(&["run", s(&path), "--out", s(&out)]);
    ok(&res);
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(
        stderr.contains("step 1 of 400 (0.2 %), t = ") && stderr.contains("step 400 of 400"),
        "{stderr}"
    );
}

#[test]
fn a_scene_beyond_the_memory_is_refused_at_once() {
    // 1000^3 spheres: 1.5 TB by the estimate; refused before anything is built.
    let path = bounce_with(
        "huge",
        "Sphere(center: (0, 0, 0.1), radius: 0.01, material: \"glass\"),",
        "Lattice(origin: (0, 0, 0.1), count: (1000, 1000, 1000), spacing: 0.03, \
         radius: 0.01, material: \"glass\"),",
    );
    let e = refused(&dem(&["check", s(&path)]));
    assert!(
        e.contains("bodies: the scene makes 1000000001 particles, which need about 1500.0 GB"),
        "{e}"
    );
}
