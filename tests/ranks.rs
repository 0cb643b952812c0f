//! A simulation shared among ranks gives bitwise the particles and the ledger of one
//! process: 2 and 4 ranks (threads standing in for MPI processes, see
//! `support/ranks.rs`) against the same scene on its own, over steps where contacts begin
//! and end, the broad phase is rebuilt and the storage reordered (particles change owner,
//! with their contacts' state). The MPI executable is tested in `tests/mpi.rs`.

use dem_core::Simulation;
use dem_verification::ranks::{group, PISTON, SCENE};
use dem_verification::sim_from_text;

/// What is compared, as bits: every particle's scene id, position, velocity,
/// orientation and angular velocity in scene order, and the ledger's row.
fn state(sim: &Simulation) -> (Vec<[u64; 14]>, Vec<u64>) {
    let p = &sim.particles;
    // Scene ids in order (with gaps where outlets took particles).
    let mut ids: Vec<(usize, usize)> = (0..p.len()).map(|i| (sim.order.id(i), i)).collect();
    ids.sort_unstable();
    let rows = ids
        .into_iter()
        .map(|(id, i)| {
            let q = p.ori[i].quaternion();
            let v = [
                id as f64,
                p.pos[i].x,
                p.pos[i].y,
                p.pos[i].z,
                p.vel[i].x,
                p.vel[i].y,
                p.vel[i].z,
                q.w,
                q.i,
                q.j,
                q.k,
                p.angvel[i].x,
                p.angvel[i].y,
                p.angvel[i].z,
            ];
            v.map(f64::to_bits)
        })
        .collect();
    (rows, sim.ledger.row().map(f64::to_bits).to_vec())
}

/// What a rank ends with: the compared state, how many reorderings and rebuilds of the
/// broad phase happened, how many contacts the rank holds, and the last step with the
/// unbalanced force every 10 steps before it (as bits).
type Ending = ((Vec<[u64; 14]>, Vec<u64>), u64, u64, usize, (u64, Vec<u64>));

/// The scene run `steps` steps on `ranks` ranks, or until its end (its duration, or its
/// stop conditions): what each rank ends with.
fn run(scene: &str, ranks: usize, steps: u64) -> Vec<Ending> {
    let scene = scene.to_string();
    let handles: Vec<_> = group(ranks)
        .into_iter()
        .map(|rank| {
            let scene = scene.clone();
            std::thread::spawn(move || {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .build()
                    .unwrap();
                pool.install(|| {
                    let mut sim = sim_from_text(&scene, "ranks.ron").unwrap();
                    if ranks > 1 {
                        sim.distribute(Box::new(rank)).unwrap();
                    }
                    let (mut reorders, mut unbalanced) = (0, Vec::new());
                    for _ in 0..steps {
                        if sim.step >= sim.end_step {
                            break;
                        }
                        let last = sim.order.last;
                        sim.step().unwrap();
                        reorders += u64::from(sim.order.last != last);
                        // Among ranks an exchange: every rank takes part.
                        if sim.step.is_multiple_of(10) {
                            unbalanced.push(sim.unbalanced_force().to_bits());
                        }
                    }
                    let held = sim.contacts.list().len();
                    // A rank holds the state of its own particles and of those it reads;
                    // the outputs see every particle's, put together.
                    let rebuilds = sim.verlet.rebuilds;
                    let last = (sim.step, unbalanced);
                    (
                        sim.as_one_process(state).unwrap(),
                        reorders,
                        rebuilds,
                        held,
                        last,
                    )
                })
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

/// The scene on 2 and 4 ranks against one process, over at least 5 reorderings and as
/// many rebuilds between them (or without reordering, when `reordered` is false).
fn same_on_ranks(scene: &str, reordered: bool) {
    let one = run(scene, 1, 1500).remove(0);
    let (_, reorders, rebuilds, contacts, _) = one;
    let between = rebuilds.saturating_sub(reorders);
    assert!(
        (!reordered || reorders >= 5) && between >= 5 && contacts > 500,
        "{reorders} reorderings, {rebuilds} rebuilds, {contacts} contacts"
    );
    for n in [2, 4] {
        for (rank, r) in run(scene, n, 1500).into_iter().enumerate() {
            // Each holds its share (with the contacts between ranks, and the walls').
            assert!(
                r.3 < contacts,
                "{n} ranks: rank {rank} holds {} contacts",
                r.3
            );
            assert!(
                r.0 .0 == one.0 .0,
                "{n} ranks: rank {rank}'s particles differ from one process's"
            );
            assert_eq!(r.0 .1, one.0 .1, "{n} ranks: rank {rank}'s ledger differs");
            assert!(
                r.4 == one.4,
                "{n} ranks: rank {rank}'s unbalanced force differs"
            );
        }
    }
}

#[test]
fn ranks_give_the_bits_of_one_process() {
    same_on_ranks(&SCENE.replace("PISTON", ""), true);
}

#[test]
fn ranks_share_a_moving_wall() {
    same_on_ranks(&SCENE.replace("PISTON", PISTON), true);
}

#[test]
fn ranks_rebuild_without_reordering() {
    // Every rebuild takes the positions only, then the new ghosts' whole state. With a
    // thin skin, pairs enter the list when already nearly touching: a new ghost's contact
    // may begin at once, with its velocity.
    let scene = SCENE.replace("PISTON", PISTON);
    let scene = scene.replace("skin: 0.3, reorder: 100", "skin: 0.01, reorder: 0");
    same_on_ranks(&scene, false);
}

#[test]
fn what_ranks_cannot_share_is_refused_with_its_name() {
    // A fluid's drag is not shared among the ranks yet: refused.
    let scene = SCENE.replace("PISTON", "").replace(
        "duration: Steps(3000),",
        "duration: Steps(3000), fluid: (viscosity: 1e-3),",
    );
    let mut sim = sim_from_text(&scene, "ranks.ron").unwrap();
    let rank = group(2).remove(0);
    let e = sim.distribute(Box::new(rank)).unwrap_err().to_string();
    assert!(e.contains("fluid"), "{e}");
}

#[test]
fn ranks_stop_on_the_unbalanced_force_at_one_process_step() {
    // Each rank sums the unbalanced force over the chunks it owns and the ranks share
    // the chunks' sums: every rank finds one process's value (compared every 10 steps,
    // as in every test of this file), so all stop at its step with its bits. The spheres
    // fly apart, then land: the first contacts on the floor bring the force below the
    // threshold (a few contacts against the weight of every particle).
    let scene = SCENE.replace("PISTON", "").replace(
        "duration: Steps(3000),",
        "duration: Steps(3000), stop: [Unbalanced(0.1)],",
    );
    let one = run(&scene, 1, 3000).remove(0);
    let stopped = one.4 .0;
    assert!((300..3000).contains(&stopped), "stopped at step {stopped}");
    for n in [2, 4] {
        for (rank, r) in run(&scene, n, 3000).into_iter().enumerate() {
            assert_eq!(
                r.4 .0, stopped,
                "{n} ranks: rank {rank} stopped at another step"
            );
            assert!(
                r.4 == one.4,
                "{n} ranks: rank {rank}'s unbalanced force differs"
            );
            assert!(r.0 == one.0, "{n} ranks: rank {rank}'s state differs");
        }
    }
}

#[test]
fn ranks_run_inlets_and_outlets() {
    // An inlet pours spheres from above while an outlet takes those that reach the
    // floor's layer: the steps where the population changes are run as one process by
    // every rank, and the ranks share the simulation out anew after each.
    let scene = SCENE.replace("PISTON", PISTON).replace(
        "duration: Steps(3000),",
        r#"duration: Steps(3000),
        inlets: [Inlet(name: "pour", region: Box(min: (0.004, 0.004, 0.038), max: (0.026, 0.026, 0.046)),
                       radius: Uniform(0.0008, 0.001), material: "m", rate: Number(40000), total: 150,
                       velocity: (0, 0, -1), velocity_spread: 0.1, seed: 3, every: 40)],
        outlets: [Outlet(name: "floor", region: Box(min: (-1, -1, -1), max: (1, 1, 0.0012)), start: 0.001)],"#,
    );
    let one = run(&scene, 1, 1500).remove(0);
    let n = one.0 .0.len();
    eprintln!("{n} particles at the end (1200 at the start, 150 poured)");
    assert!(n != 1200, "the population changed: {n} particles");
    for ranks in [2, 4] {
        for (rank, r) in run(&scene, ranks, 1500).into_iter().enumerate() {
            assert!(r.0 == one.0, "{ranks} ranks: rank {rank}'s state differs");
            assert!(
                r.4 == one.4,
                "{ranks} ranks: rank {rank}'s unbalanced force differs"
            );
        }
    }
}

#[test]
fn ranks_share_clumps() {
    // Clump members are not free particles: like walls, every rank holds them and
    // computes their contacts, and moves every clump alike from the same forces. 80
    // clumps falling into a box and 320 spheres (the free particles, shared among the
    // ranks) thrown down onto them, and an inlet pouring clumps (its steps taken as one
    // process).
    let root = dem_verification::root();
    let rice = format!("{:?}", root.join("scenes/data/rice.csv"));
    let scene = std::fs::read_to_string(root.join("scenes/clumps.ron"))
        .unwrap()
        .replace("\"data/rice.csv\"", &rice)
        .replace("count: 150", "count: 40")
        .replace(
            "Box(min: (0, 0, 0)",
            "Lattice(origin: (0.01, 0.01, 0.31), count: (8, 8, 5), spacing: 0.011, \
             radius: 0.002, material: \"grain\", velocity: (0, 0, -20), velocity_spread: 1, \
             seed: 5),\n        Box(min: (0, 0, 0)",
        )
        .replace("(0, 0, -9.81)", "(0, 0, -2000)")
        .replace(
            "Time(0.8),",
            "Steps(3000), contacts: (reorder: 100),
            inlets: [Inlet(name: \"pour\", region: Box(min: (0.01, 0.01, 0.37), \
                max: (0.09, 0.09, 0.39)), shape: Clump(\"tri\"), radius: Uniform(0.002, 0.0025), \
                material: \"grain\", rate: Number(20000), total: 40, velocity: (0, 0, -20), \
                seed: 4, every: 50)],",
        );
    let one = run(&scene, 1, 2000).remove(0);
    eprintln!(
        "clumps: {} particles, {} contacts at the end, {} reorderings, {} rebuilds",
        one.0 .0.len(),
        one.3,
        one.1,
        one.2
    );
    for n in [2, 4] {
        for (rank, r) in run(&scene, n, 2000).into_iter().enumerate() {
            assert!(r.0 == one.0, "{n} ranks: rank {rank}'s state differs");
            assert!(
                r.4 == one.4,
                "{n} ranks: rank {rank}'s unbalanced force differs"
            );
        }
    }
}

#[test]
fn ranks_share_rocks() {
    // Polyhedra: contacts whose functor keeps state (a cached direction) from step to step,
    // handed over with the particles at each reordering.
    let scene = r#"Scene(
        materials: { "rock": (density: 2600, young: 1e8, friction: 0.5) },
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
                params: (kn_per_area: 1e8, kt_kn: 0.5, restitution: 0.3))],
        bodies: [
            Rocks(min: (0, 0, 0), max: (0.06, 0.06, 0.16), count: 100, size: (0.006, 0.009),
                  axes: (1, 0.8, 0.6), points: 12, material: "rock", seed: 3),
            Box(min: (0, 0, 0), max: (0.06, 0.06, 0.2), material: "rock"),
        ],
        gravity: (0, 0, -400),
        timestep: Critical(0.2),
        duration: Steps(3000),
        contacts: (skin: 0.3, reorder: 100),
    )"#;
    let one = run(scene, 1, 1500).remove(0);
    let (_, reorders, rebuilds, contacts, _) = one;
    assert!(
        reorders >= 5 && rebuilds >= reorders + 5 && contacts > 100,
        "{reorders} reorderings, {rebuilds} rebuilds, {contacts} contacts"
    );
    for n in [2, 4] {
        for (rank, r) in run(scene, n, 1500).into_iter().enumerate() {
            assert!(
                r.0 == one.0,
                "{n} ranks: rank {rank} differs from one process"
            );
        }
    }
}
