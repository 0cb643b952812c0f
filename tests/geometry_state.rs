//! A geometry functor's contact state (`Cg2Functor::state_len`, dem-api 0.5) starts at zero
//! for every contact, is handed to each of the contact's calls and kept from one to the
//! next (through broad-phase rebuilds, the storage's reordering, chunks that mix functors
//! and the geometry pass that runs before detection), and a checkpoint keeps it: the
//! resumed run is bitwise the uninterrupted one.
//!
//! The functor (`tests/plugins/kept-geometry`, built out of tree) counts the calls of each
//! contact in its state and reports the count as the contact's area.

use dem_core::{Checkpoint, PluginSet, Simulation};
use dem_verification::{build_out_of_tree, build_plugins, root};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

/// The fixture with the workspace's wall, sphere-sphere and polyhedron functors and the
/// linear law.
fn plugins() -> &'static PluginSet {
    static SET: OnceLock<PluginSet> = OnceLock::new();
    SET.get_or_init(|| {
        let mut set = PluginSet::default();
        let shipped = [
            "cg2-sphere-sphere",
            "cg2-wall-sphere",
            "cg2-polyhedron",
            "law-linear",
        ];
        for lib in build_plugins(&shipped) {
            set.load(&lib).unwrap();
        }
        let kept = root().join("tests/plugins/kept-geometry");
        set.load(&build_out_of_tree(&kept, "kept_geometry"))
            .unwrap();
        set
    })
}

/// Three layers of spheres sliding sideways on the floor of a box (sphere-sphere contacts
/// of the fixture beside wall contacts, in the same chunks); with `rock`, a fixed
/// tetrahedron in a far corner, which makes the geometry of live contacts a pass of its
/// own before detection.
fn scene(rock: bool) -> String {
    let rock = if rock {
        r#"Polyhedron(vertices: [(0.025, 0.025, 0.04), (0.028, 0.025, 0.04),
                                 (0.025, 0.028, 0.04), (0.025, 0.025, 0.043)],
                      material: "w", blocked: "xyzXYZ"),"#
    } else {
        ""
    };
    format!(
        r#"Scene(
    materials: {{
        "m": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.4),
        "w": (density: 7800, young: 2e7, poisson: 0.3, friction: 0.3),
    }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    geometry: [(shapes: ("Sphere", "Sphere"), functor: "Cg2_Test_Kept")],
    bodies: [
        Box(min: (0, 0, 0), max: (0.03, 0.03, 0.05), material: "w"),
        Lattice(origin: (0.001, 0.001, 0.0009999), count: (9, 9, 3), spacing: 0.0019999,
                radius: 0.001, material: "m", velocity: (0.05, -0.03, 0)),
        {rock}
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps(3000),
)"#
    )
}

fn sim(rock: bool) -> Simulation {
    let scene = dem_core::Scene::parse(&scene(rock), Path::new("kept.ron")).unwrap();
    Simulation::new(scene, plugins()).unwrap()
}

/// The area (the fixture's call count) of every live contact of the fixture, by pair of
/// scene ids.
fn counts(sim: &Simulation) -> BTreeMap<(usize, usize), f64> {
    let kept = sim
        .dispatch
        .geoms
        .iter()
        .position(|g| g.name == "Cg2_Test_Kept")
        .unwrap() as u16;
    sim.contacts
        .live_with_geometry()
        .filter(|(c, ..)| c.geom == kept)
        .map(|(c, l6, _)| {
            let id = |i: u32| sim.order.id(i as usize);
            ((id(c.a), id(c.b)), l6.area)
        })
        .collect()
}

/// A contact's count is 1 on the step it is created (the detection's call, whose state
/// is dropped), 1 again on its next step (its first call with its own state, zero), and
/// goes up by one per step after that, whatever happens to the storage in between.
fn counts_every_call(rock: bool) {
    let mut sim = sim(rock);
    let mut before = counts(&sim);
    let mut born = BTreeMap::new();
    let (mut kept, mut new) = (0, 0);
    for _ in 0..1500 {
        sim.step().unwrap();
        let now = counts(&sim);
        for (pair, &count) in &now {
            let at = format!("contact {pair:?} at step {}", sim.step);
            match before.get(pair) {
                Some(&last) if born.get(pair) == Some(&(sim.step - 1)) => {
                    assert_eq!((last, count), (1.0, 1.0), "{at}");
                }
                Some(&last) => {
                    assert_eq!(count, last + 1.0, "{at}");
                    kept += 1;
                }
                None => {
                    assert_eq!(count, 1.0, "new {at}");
                    born.insert(*pair, sim.step);
                    new += 1;
                }
            }
        }
        before = now;
    }
    println!(
        "{kept} counts carried over, {new} contacts created, {} rebuilds",
        sim.verlet.rebuilds
    );
    assert!(new > 100, "only {new} sphere-sphere contacts created");
    assert!(kept > 100_000, "only {kept} counts carried over");
    assert!(sim.verlet.rebuilds >= 2, "the broad phase never rebuilt");
    assert!(!sim.order.ids().is_empty(), "storage was never reordered");
    // Some counts span the whole run: the first contacts are still there.
    let longest = before.values().fold(0.0f64, |a, &b| a.max(b));
    assert!(longest > 1000.0, "longest count {longest}");
}

#[test]
fn each_contact_keeps_its_own_state() {
    counts_every_call(false);
}

#[test]
fn the_state_is_kept_when_geometry_runs_before_detection() {
    let s = sim(true);
    assert!(s.particles.len() > 243, "the rock is in the scene");
    counts_every_call(true);
}

#[test]
fn a_checkpoint_keeps_the_state() {
    let round_trip = |sim: &Simulation| {
        let bytes = Checkpoint::capture(sim, plugins(), Vec::new()).to_bytes();
        let ck = Checkpoint::from_bytes(&bytes, Path::new("kept.ckpt")).unwrap();
        let scene = ck.scene().unwrap();
        ck.restore(scene, plugins(), Path::new("kept.ckpt"))
            .unwrap()
    };
    let mut whole = sim(false);
    whole.run_steps(1500).unwrap();
    let mut parts = sim(false);
    parts.run_steps(777).unwrap();
    let mut parts = round_trip(&parts);
    parts.run_steps(723).unwrap();
    assert!(counts(&whole).len() > 50, "a packing with contacts");
    assert_eq!(counts(&parts), counts(&whole));
    assert_eq!(parts.contacts.save(), whole.contacts.save());
    let bits = |s: &Simulation| {
        let p = &s.particles;
        (0..p.len())
            .flat_map(|i| [p.pos[i], p.vel[i], p.angvel[i]])
            .flat_map(|v| [v.x, v.y, v.z].map(f64::to_bits))
            .collect::<Vec<_>>()
    };
    assert!(bits(&parts) == bits(&whole), "trajectories differ");
}

/// The scene through the fixture told to misreport as `fault` (see its docs) stops at
/// its first contact, with an error naming the functor, its plugin and the contact.
fn refused(fault: &str) -> String {
    let text = scene(false).replace(
        r#"functor: "Cg2_Test_Kept")"#,
        &format!(r#"functor: "Cg2_Test_Kept", params: (fault: "{fault}"))"#),
    );
    let scene = dem_core::Scene::parse(&text, Path::new("faulty.ron")).unwrap();
    let mut sim = Simulation::new(scene, plugins()).unwrap();
    let e = loop {
        match sim.step() {
            Ok(()) => assert!(sim.step < 3000, "{fault}: never refused"),
            Err(e) => break e.to_string(),
        }
    };
    assert!(
        e.contains("Cg2_Test_Kept") && e.contains("kept-geometry") && e.contains("contact"),
        "{fault}: {e}"
    );
    e
}

#[test]
fn a_new_contact_with_a_radius_of_zero_or_nan_is_refused() {
    for fault in ["radius", "nan_radius"] {
        let e = refused(fault);
        assert!(e.contains("must be above zero"), "{fault}: {e}");
    }
}

#[test]
fn a_normal_not_of_unit_length_is_refused() {
    let e = refused("normal");
    assert!(e.contains("invalid geometry"), "{e}");
}
