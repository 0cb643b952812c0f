//! The same scene on 1 and 2 threads gives bitwise-identical trajectories (and ledger):
//! spheres in a box, and overlapping polyhedra. So do the trajectories of the same scene
//! with another Verlet skin: the broad phase's candidate set and rebuild steps (hence the
//! order of the contact list) change, the physics does not.

use dem_verification::sim_from_text;

const SCENE: &str = r#"Scene(
    materials: { "m": (density: 2500, young: 1e7, friction: 0.4) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    bodies: [
        Box(min: (-0.001, -0.001, -0.001), max: (0.03, 0.03, 0.05), material: "m"),
        Lattice(origin: (0.001, 0.001, 0.001), count: (14, 14, 6), spacing: 0.00199, radius: 0.001,
                material: "m", velocity: (0.01, -0.02, 0)),
    ],
    gravity: (0, 0, -9.81),
    damping: 0.1,
    timestep: Critical(0.2),
    duration: Steps(5000),
    contacts: (skin: SKIN, reorder: REORDER),
)"#;

fn run(threads: usize) -> (Vec<[u64; 6]>, (usize, usize), Vec<u64>) {
    run_with(threads, 0.2, 1000)
}

/// The scene with a Verlet skin of `skin` radii and a Morton reordering every `reorder`
/// steps, on `threads` threads: the particles' positions and velocities as bits, the live
/// contacts and the candidate pairs, and the ledger's row as bits.
fn run_with(threads: usize, skin: f64, reorder: u64) -> (Vec<[u64; 6]>, (usize, usize), Vec<u64>) {
    let scene = SCENE
        .replace("SKIN", &skin.to_string())
        .replace("REORDER", &reorder.to_string());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = sim_from_text(&scene, "determinism.ron").unwrap();
        sim.run_steps(5000).unwrap();
        let p = &sim.particles;
        let state = (0..p.len())
            .map(|i| {
                let (x, v) = (p.pos[i], p.vel[i]);
                [x.x, x.y, x.z, v.x, v.y, v.z].map(f64::to_bits)
            })
            .collect();
        let ledger = sim.ledger.row().map(f64::to_bits).to_vec();
        (
            state,
            (sim.contacts.active(), sim.contacts.slots.len()),
            ledger,
        )
    })
}

#[test]
fn one_and_two_threads_agree_bitwise() {
    let (one, (contacts, slots), ledger_one) = run(1);
    let (two, _, ledger_two) = run(2);
    // Several chunks (256 each) of candidate pairs and of contacts, so that the two
    // threads really share the work.
    assert!(
        slots > 4 * 256 && contacts > 2 * 256,
        "only {slots} candidate pairs and {contacts} contacts"
    );
    assert!(one == two, "trajectories differ between 1 and 2 threads");
    assert_eq!(
        ledger_one, ledger_two,
        "ledgers differ between 1 and 2 threads"
    );
}

#[test]
fn the_skin_changes_no_bit() {
    // Without reordering: a reordering is due at the first rebuild some steps after the
    // last, which the skin moves, and storage order is part of the sums' order.
    let (thin, (contacts, slots), ledger_thin) = run_with(1, 0.1, 0);
    let (thick, (_, more), ledger_thick) = run_with(2, 1.0, 0);
    // Contacts begin and end between rebuilds, so that the list is in another order than
    // the slots (appended, and moved into the places of ended ones).
    assert!(
        more > slots && contacts > 256,
        "{slots} / {more} candidate pairs"
    );
    assert!(thin == thick, "trajectories differ between skins 0.1 and 1");
    // The contacts' energies are booked to particles and summed in slot order too.
    assert_eq!(ledger_thin, ledger_thick, "ledgers differ between skins");
}

/// Between two rebuilds of the broad phase contacts begin and end, and the list drifts out
/// of slot order (an ended contact's place taken by the last one, new ones appended: half
/// the list out of order a few hundred steps after a rebuild on the dense bed). Every 8
/// steps the solver puts it back in order if more than one contact in 64 is out of place
/// (`dem-core`'s `contacts/order.rs`), so that the law pass and the gather read memory
/// nearly as it is stored: checked after each of those steps, on the contacts that were
/// there before it (the step appends the new ones at the end). The bits do not depend on
/// it: see `the_skin_changes_no_bit`, whose two runs sort at different steps.
#[test]
fn the_list_is_kept_in_slot_order_between_rebuilds() {
    // A thick skin: few rebuilds, many steps between them.
    let scene = SCENE.replace("SKIN", "1.0").replace("REORDER", "0");
    let mut sim = sim_from_text(&scene, "determinism.ron").unwrap();
    let key = |c: &&dem_core::engines::contacts::Contact| (c.geom, c.law, c.a, c.b, c.feature);
    let (mut checked, mut worst) = (0, 0.0f64);
    for _ in 0..1500 {
        let looked = sim.step.is_multiple_of(8);
        sim.run_steps(1).unwrap();
        let old: Vec<_> = sim.contacts.list().iter().filter(|c| !c.new).collect();
        let descents = old.windows(2).filter(|w| key(&w[1]) < key(&w[0])).count();
        let n = old.len().max(1);
        worst = worst.max(descents as f64 / n as f64);
        if looked {
            assert!(
                descents * 64 <= n,
                "step {}: {descents} of {n} contacts out of slot order",
                sim.step
            );
            checked += 1;
        }
    }
    // The check had something to check: between its steps the list drifted further.
    assert!(
        checked > 150 && worst > 1.0 / 64.0,
        "{checked} checks, worst {worst}"
    );
}

/// The elastic energy the gather books to the particles' chunks is that of every contact
/// of the list, each once: against a plain sum over the list.
#[test]
fn every_contact_books_its_energy_once() {
    let scene = SCENE.replace("SKIN", "0.3").replace("REORDER", "100");
    let mut sim = sim_from_text(&scene, "determinism.ron").unwrap();
    let mut checked = 0;
    for _ in 0..40 {
        sim.run_steps(100).unwrap();
        let listed: f64 = sim
            .contacts
            .list()
            .iter()
            .enumerate()
            .filter(|(_, c)| c.active() || c.ending)
            .map(|(k, _)| sim.contacts.forces(k).out.elastic)
            .sum();
        let booked = sim.ledger.elastic;
        assert!(
            (booked - listed).abs() <= 1e-12 * listed.abs(),
            "step {}: booked {booked} J, listed {listed} J",
            sim.step
        );
        checked += usize::from(listed > 0.0);
    }
    assert!(checked > 30, "only {checked} checks with contacts");
}

/// `n × n × m` unit-ish polyhedra (cubes and octahedra of 1 cm, each turned by its own
/// angles) on a grid of spacing 9.5 mm: every body overlaps its neighbours from the first
/// step, hundreds of contacts at once, through the clipping path of the polyhedron functor
/// and its exact path (the cubes' square faces are two coplanar triangles, which clipping
/// leaves to it). No gravity, no walls.
fn polyhedra_scene(n: usize, m: usize) -> String {
    use nalgebra::{UnitQuaternion, Vector3};
    let cube: Vec<Vector3<f64>> = (0..8)
        .map(|k| {
            Vector3::new(k & 1, (k >> 1) & 1, (k >> 2) & 1).cast::<f64>() - Vector3::repeat(0.5)
        })
        .collect();
    let octahedron: Vec<Vector3<f64>> = (0..6)
        .map(|k| Vector3::ith(k / 2, if k % 2 == 0 { 0.75 } else { -0.75 }))
        .collect();
    let mut bodies = String::new();
    for (i, j, k) in (0..n).flat_map(|i| (0..n).flat_map(move |j| (0..m).map(move |k| (i, j, k)))) {
        let t = (i * 131 + j * 37 + k * 11) as f64;
        let rot = UnitQuaternion::from_euler_angles(
            0.3 * (1.7 * t).sin(),
            0.3 * (2.3 * t).cos(),
            0.3 * (0.9 * t).sin(),
        );
        let centre = Vector3::new(i as f64, j as f64, k as f64) * 0.0095;
        let shape = if (i + j + k) % 3 == 0 {
            &octahedron
        } else {
            &cube
        };
        let vertices: Vec<String> = shape
            .iter()
            .map(|v| {
                let p = centre + rot * v * 0.01;
                format!("({:e}, {:e}, {:e})", p.x, p.y, p.z)
            })
            .collect();
        bodies.push_str(&format!(
            "Polyhedron(vertices: [{}], material: \"m\"),\n",
            vertices.join(", ")
        ));
    }
    format!(
        r#"Scene(
    materials: {{ "m": (density: 2600, young: 1e8, friction: 0.5) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn_per_area: 1e8, kt_kn: 0.5, restitution: 0.3, rolling: Cdt(mu: 0.05)))],
    bodies: [{bodies}],
    gravity: (0, 0, 0),
    timestep: Critical(0.2),
    duration: Steps(30),
    contacts: (l6geom: (no_ratch: false, point_rate: true)),
)"#
    )
}

#[test]
fn polyhedra_on_one_and_two_threads_agree_bitwise() {
    let scene = polyhedra_scene(8, 4);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut sim = sim_from_text(&scene, "polyhedra-determinism.ron").unwrap();
            sim.run_steps(30).unwrap();
            let p = &sim.particles;
            let state: Vec<[u64; 13]> = (0..p.len())
                .map(|i| {
                    let (x, v, w, q) = (p.pos[i], p.vel[i], p.angvel[i], p.ori[i]);
                    [
                        x.x, x.y, x.z, v.x, v.y, v.z, w.x, w.y, w.z, q.i, q.j, q.k, q.w,
                    ]
                    .map(f64::to_bits)
                })
                .collect();
            (state, sim.contacts.active(), sim.contacts.slots.len())
        })
    };
    let (one, contacts, slots) = run(1);
    let (two, ..) = run(2);
    println!(
        "{} bodies, {slots} candidate pairs, {contacts} contacts",
        one.len()
    );
    // Several chunks (256 each) of candidate pairs and of contacts, so that the two
    // threads really share the polyhedron contacts.
    assert!(
        slots > 4 * 256 && contacts > 2 * 256,
        "only {slots} candidate pairs and {contacts} contacts"
    );
    assert!(
        one == two,
        "polyhedra trajectories differ between 1 and 2 threads"
    );
}
