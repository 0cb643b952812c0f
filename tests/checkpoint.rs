//! Checkpoints: a resumed run is bitwise identical to the uninterrupted one, and files that
//! cannot be resumed (truncated, corrupted, another format version, missing or different
//! plugins) are refused with a message saying what is wrong.

use dem_core::files::checkpoint::FORMAT_VERSION;
use dem_core::{Checkpoint, PluginSet, Simulation};
use dem_verification::{build_plugins, plugins, sim_from_text};
use std::path::Path;

/// Three layers of spheres sliding sideways on the floor of a box under gravity:
/// frictional contacts with tangential springs, sliding and sticking, rotation, walls.
/// `{laws}` is filled in.
const TEMPLATE: &str = r#"Scene(
    materials: {
        "m": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.4),
        "w": (density: 7800, young: 2e7, poisson: 0.3, friction: 0.3),
    },
    laws: [{laws}],
    bodies: [
        Box(min: (0, 0, 0), max: (0.03, 0.03, 0.05), material: "w"),
        Lattice(origin: (0.001, 0.001, 0.0009999), count: (9, 9, 3), spacing: 0.0019999,
                radius: 0.001, material: "m", velocity: (0.05, -0.03, 0)),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps(3000),
)"#;

const PATH: &str = "run.ckpt";

/// The linear law (tangential spring kt = 0.2 kn) everywhere.
const LINEAR: &str =
    r#"(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))"#;

fn scene(laws: &str) -> String {
    TEMPLATE.replace("{laws}", laws)
}

fn fresh() -> Simulation {
    sim_of(LINEAR)
}

fn sim_of(laws: &str) -> Simulation {
    sim_from_text(&scene(laws), "friction.ron").unwrap()
}

/// Every bit of the state that the next steps depend on, and of the outputs.
fn state(sim: &Simulation) -> Vec<u64> {
    let p = &sim.particles;
    let mut bits = Vec::new();
    for i in 0..p.len() {
        for v in [p.pos[i], p.vel[i], p.angvel[i], p.force[i], p.torque[i]] {
            bits.extend(v.iter().map(|x| x.to_bits()));
        }
        bits.extend(p.ori[i].coords.iter().map(|x| x.to_bits()));
    }
    bits.extend(sim.ledger.row().iter().map(|x| x.to_bits()));
    bits.extend([sim.step, sim.time.to_bits(), sim.verlet.rebuilds]);
    bits
}

fn round_trip(sim: &Simulation) -> Simulation {
    let bytes = Checkpoint::capture(sim, plugins(), vec![1, 2, 3]).to_bytes();
    let ck = Checkpoint::from_bytes(&bytes, Path::new(PATH)).unwrap();
    assert_eq!(ck.extra, vec![1, 2, 3]);
    let scene = ck.scene().unwrap();
    ck.restore(scene, plugins(), Path::new(PATH)).unwrap()
}

fn error(bytes: &[u8]) -> String {
    match Checkpoint::from_bytes(bytes, Path::new(PATH)) {
        Ok(_) => panic!("expected the checkpoint to be refused"),
        Err(e) => e.to_string(),
    }
}

fn checkpoint_bytes() -> Vec<u8> {
    let mut sim = fresh();
    sim.run_steps(200).unwrap();
    Checkpoint::capture(&sim, plugins(), Vec::new()).to_bytes()
}

/// Runs 3000 steps whole and in three parts through checkpoints: the same bits.
fn resumes_bitwise(laws: &str) {
    let mut whole = sim_of(laws);
    whole.run_steps(3000).unwrap();

    // Interrupted twice, once between two broad-phase rebuilds.
    let mut parts = sim_of(laws);
    parts.run_steps(1234).unwrap();
    let live = parts.contacts.live_with_geometry();
    let sliding = live
        .filter(|(_, l6, _)| l6.u.y != 0.0 || l6.u.z != 0.0)
        .count();
    assert!(
        sliding > 20,
        "only {sliding} contacts with tangential history"
    );
    for law in 0..parts.dispatch.laws.len() as u16 {
        let n = parts.contacts.live().filter(|s| s.law == law).count();
        assert!(n > 0, "no live contact of law #{law}");
    }
    let rebuilds = parts.verlet.rebuilds;
    let mut parts = round_trip(&parts);
    assert_eq!(parts.verlet.rebuilds, rebuilds);
    // Storage was put in Morton order (`contacts.reorder`): the checkpoint keeps it.
    assert!(!parts.order.ids().is_empty(), "storage was reordered");
    parts.run_steps(1000).unwrap();
    let mut parts = round_trip(&parts);
    parts.run_steps(766).unwrap();

    assert!(whole.contacts.active() > 50, "a packing with contacts");
    assert_eq!(parts.contacts.active(), whole.contacts.active());
    assert_eq!(
        parts.contacts.save(),
        whole.contacts.save(),
        "contact state differs"
    );
    assert!(state(&parts) == state(&whole), "trajectories differ");
    assert_eq!(parts.order, whole.order);
}

#[test]
fn resumed_run_is_bitwise_identical() {
    resumes_bitwise(LINEAR);
}

#[test]
fn resumed_run_is_bitwise_identical_with_rolling_twisting_and_two_laws() {
    // Modia3D against the walls, Hertz-Mindlin with rolling and twisting resistance
    // between spheres: laws of different state lengths side by side.
    resumes_bitwise(
        r#"(materials: ("m", "w"), law: "Law2_L6Geom_Modia3D", params: (restitution: 0.7)),
           (materials: ("*", "*"), law: "Law2_L6Geom_HertzMindlin",
            params: (restitution: 0.5, rolling: Epsd(mu: 0.1), twisting: Cdt(mu: 0.05)))"#,
    );
}

#[test]
fn checkpoint_of_a_fresh_run_resumes() {
    let mut whole = fresh();
    whole.run_steps(50).unwrap();
    let mut resumed = round_trip(&fresh());
    resumed.run_steps(50).unwrap();
    assert!(state(&resumed) == state(&whole));
}

/// Spheres on a shaking floor, between a wall moving sideways and a wall turning about a
/// vertical axis.
const MOVING: &str = r#"Scene(
    materials: { "m": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.4) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    bodies: [
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m",
             motion: Shake(amplitude: (0, 0, 0.0001), frequency: 30)),
        Wall(point: (0, 0, 0), normal: (1, 0, 0), sense: 1, material: "m",
             motion: Translate(velocity: (0.01, 0, 0))),
        Wall(point: (0.02, 0, 0), normal: (1, 0, 0), sense: -1, material: "m",
             motion: Rotate(center: (0.02, 0.01, 0), axis: (0, 0, 1), omega: 0.5)),
        Lattice(origin: (0.003, 0.003, 0.001), count: (4, 4, 2), spacing: 0.002,
                radius: 0.001, material: "m"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps(3000),
)"#;

/// Motions and gravity changed during a run (as the Python module changes them) are part
/// of its state: a checkpoint keeps them, and the resumed run goes on bitwise.
#[test]
fn motions_and_gravity_changed_during_a_run_are_resumed() {
    use dem_core::engines::motion::Motion;
    let change = |sim: &mut Simulation| {
        let t = sim.time;
        let new = [
            Motion::Shake {
                amplitude: [0.0, 0.0, 0.00006],
                frequency: 45.0,
            },
            Motion::Translate {
                velocity: [-0.02, 0.0, 0.0],
            },
            Motion::Rotate {
                center: [0.02, 0.0, 0.0],
                axis: [0.0, 1.0, 1.0],
                omega: -0.3,
            },
        ];
        for (g, m) in sim.motions.iter_mut().zip(new) {
            g.change(m, t).unwrap();
        }
        sim.integrator.gravity.z = -6.0;
    };
    let mut whole = sim_from_text(MOVING, "moving.ron").unwrap();
    whole.run_steps(700).unwrap();
    change(&mut whole);
    let mut parts = sim_from_text(MOVING, "moving.ron").unwrap();
    parts.run_steps(700).unwrap();
    change(&mut parts);
    whole.run_steps(600).unwrap();
    parts.run_steps(300).unwrap();
    let mut parts = round_trip(&parts);
    parts.run_steps(300).unwrap();
    assert!(whole.ledger.damping > 0.0, "the spheres hit the floor");
    assert!(state(&parts) == state(&whole), "trajectories differ");
}

#[test]
fn truncated_checkpoints_are_refused() {
    let bytes = checkpoint_bytes();
    for cut in [bytes.len() - 1, bytes.len() / 2, 30, 10, 3] {
        let e = error(&bytes[..cut]);
        assert!(
            e.starts_with(PATH) && e.contains("truncated checkpoint"),
            "{cut}: {e}"
        );
    }
    let e = error(&[]);
    assert!(e.contains("truncated"), "{e}");
}

#[test]
fn corrupted_checkpoints_are_refused() {
    let bytes = checkpoint_bytes();
    for at in [bytes.len() / 3, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        let e = error(&bad);
        assert!(
            e.starts_with(PATH) && e.contains("checksum mismatch"),
            "{e}"
        );
    }
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"junk");
    assert!(error(&longer).contains("4 unexpected bytes"));
    let e = error(b"Scene(materials: {}, laws: [], bodies: [])");
    assert!(e.contains("not a dem checkpoint"), "{e}");
}

#[test]
fn other_format_versions_are_refused() {
    let mut bytes = checkpoint_bytes();
    // Written by another dem (a version string of the same length) in a newer format.
    let ours = env!("CARGO_PKG_VERSION");
    let other = "9".repeat(ours.len());
    assert_eq!(&bytes[13..13 + ours.len()], ours.as_bytes());
    bytes[13..13 + ours.len()].copy_from_slice(other.as_bytes());
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let e = error(&bytes);
    let want = format!(
        "checkpoint format version {} (written by dem {other})",
        FORMAT_VERSION + 1,
    );
    assert!(
        e.contains(&want) && e.contains(&format!("reads format version {FORMAT_VERSION} only")),
        "{e}"
    );
}

#[test]
fn a_corrupted_version_field_is_called_corrupted() {
    let bytes = checkpoint_bytes();
    // A flipped byte of the version (outside the checksum): 6 becomes 55814; or a newer
    // version than this dem's own version writes.
    for version in [FORMAT_VERSION | 0xda00, FORMAT_VERSION + 1] {
        let mut bad = bytes.clone();
        bad[8..12].copy_from_slice(&version.to_le_bytes());
        let e = error(&bad);
        assert!(
            e.contains(&format!(
                "corrupted checkpoint: its header gives format version {version}, which no dem writes"
            )),
            "{e}"
        );
    }
}

#[test]
fn missing_or_different_plugins_are_refused() {
    let bytes = checkpoint_bytes();
    let path = Path::new(PATH);
    let ck = Checkpoint::from_bytes(&bytes, path).unwrap();

    // Only the geometry plugins loaded: the law's plugin is missing.
    let mut geometry_only = PluginSet::default();
    for lib in build_plugins(&["cg2-sphere-sphere", "cg2-wall-sphere"]) {
        geometry_only.load(&lib).unwrap();
    }
    let scene = ck.scene().unwrap();
    let e = ck
        .clone()
        .restore(scene, &geometry_only, path)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.starts_with(PATH)
            && e.contains("plugin `law-linear`")
            && e.contains("Law2_L6Geom_LinearElPl")
            && e.contains("not loaded"),
        "{e}"
    );

    // Another version of the law's plugin.
    let mut other = ck.clone();
    let law = other
        .plugins
        .iter_mut()
        .find(|p| p.name == "law-linear")
        .unwrap();
    law.version = "0.0.7".into();
    let scene = other.scene().unwrap();
    let e = other
        .restore(scene, plugins(), path)
        .err()
        .unwrap()
        .to_string();
    let loaded = &plugins()
        .plugins
        .iter()
        .find(|p| p.name == "law-linear")
        .unwrap()
        .version;
    assert!(
        e.contains("law-linear` 0.0.7") && e.contains(&format!("loaded version is {loaded}")),
        "{e}"
    );
}

#[test]
fn a_changed_scene_is_refused() {
    let ck = Checkpoint::from_bytes(&checkpoint_bytes(), Path::new(PATH)).unwrap();
    let mut other = ck.clone();
    other.scene_text = other
        .scene_text
        .replace("count: (9, 9, 3)", "count: (9, 9, 2)");
    let scene = other.scene().unwrap();
    let e = other
        .restore(scene, plugins(), Path::new(PATH))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("holds 249 particles, its scene gives 168"),
        "{e}"
    );
}

/// Measures the size of a checkpoint per particle and per contact (printed; run with
/// `--nocapture`): the settled box of this file's scene.
#[test]
fn checkpoint_size() {
    let mut sim = fresh();
    sim.run_steps(3000).unwrap();
    let ck = Checkpoint::capture(&sim, plugins(), Vec::new());
    let total = ck.to_bytes().len();
    let parts = ck.breakdown();
    let (n, c) = (ck.particle_count(), ck.contact_count());
    let pairs = sim.verlet.pairs.len();
    println!(
        "checkpoint: {total} bytes for {n} particles, {c} contacts, {pairs} candidate pairs: {parts:?}"
    );
    println!(
        "per particle {:.1} bytes (+ {:.1} of Verlet anchor and pairs), per contact {:.1} bytes",
        parts[0].1 as f64 / n as f64,
        parts[1].1 as f64 / n as f64,
        parts[2].1 as f64 / c as f64
    );
    assert!(total < 400 * n + 400 * c + 8000, "{total} bytes");
}

/// 150 spheres poured at random into a narrow box, storage put in Morton order every 50
/// steps: contacts begin and end at most steps, and the broad phase is rebuilt about every
/// 50 steps.
const POUR: &str = r#"Scene(
    materials: { "m": (density: 2500, young: 1e7, friction: 0.4) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    bodies: [
        RandomFill(min: (0, 0, 0), max: (0.012, 0.012, 0.03), count: 150, radius: Const(0.001),
                   material: "m", seed: 11),
        Box(min: (0, 0, 0), max: (0.012, 0.012, 0.03), material: "m"),
    ],
    gravity: (0, 0, -100),
    timestep: Critical(0.2),
    duration: Steps(2000),
    contacts: (reorder: 50),
)"#;

/// A checkpoint taken at any step resumes bitwise: at each of 800 steps of a run whose
/// contacts begin and end at most steps (contacts that ended in the step before the
/// checkpoint, a broad-phase rebuild or a Morton reordering right after it), the resumed
/// run matches the uninterrupted one 30 steps later. (Before checkpoints kept the
/// contacts that ended in the last step, 8 of these 800 differed.)
#[test]
fn checkpoints_at_every_offset_resume_bitwise() {
    const AFTER: u64 = 30;
    let steps = 2000;
    let mut whole = sim_from_text(POUR, "pour.ron").unwrap();
    let mut checkpoints = Vec::new();
    let mut states = Vec::new();
    for s in 0..steps + AFTER {
        states.push(state(&whole));
        if (1200..steps).contains(&s) {
            checkpoints.push((
                s,
                Checkpoint::capture(&whole, plugins(), Vec::new()).to_bytes(),
            ));
        }
        whole.step().unwrap();
    }
    assert!(
        whole.order.last.is_some_and(|l| l > steps - 100),
        "reordered"
    );
    assert!(
        whole.verlet.rebuilds > 20,
        "{} rebuilds",
        whole.verlet.rebuilds
    );
    let mut differ = Vec::new();
    for (s, bytes) in checkpoints {
        let ck = Checkpoint::from_bytes(&bytes, Path::new(PATH)).unwrap();
        let scene = ck.scene().unwrap();
        let mut sim = ck.restore(scene, plugins(), Path::new(PATH)).unwrap();
        sim.run_steps(AFTER).unwrap();
        if state(&sim) != states[(s + AFTER) as usize] {
            differ.push(s);
        }
    }
    assert!(
        differ.is_empty(),
        "checkpoints at steps {differ:?} resume otherwise"
    );
}
