//! The same scene on 1 and 2 threads gives bitwise-identical trajectories.

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
)"#;

fn run(threads: usize) -> (Vec<[u64; 6]>, (usize, usize)) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = sim_from_text(SCENE, "determinism.ron").unwrap();
        sim.run_steps(5000).unwrap();
        let p = &sim.particles;
        let state = (0..p.len())
            .map(|i| {
                let (x, v) = (p.pos[i], p.vel[i]);
                [x.x, x.y, x.z, v.x, v.y, v.z].map(f64::to_bits)
            })
            .collect();
        (state, (sim.contacts.active(), sim.contacts.slots.len()))
    })
}

#[test]
fn one_and_two_threads_agree_bitwise() {
    let (one, (contacts, slots)) = run(1);
    let (two, _) = run(2);
    // Several chunks (256 each) of candidate pairs and of contacts, so that the two
    // threads really share the work.
    assert!(
        slots > 4 * 256 && contacts > 2 * 256,
        "only {slots} candidate pairs and {contacts} contacts"
    );
    assert!(one == two, "trajectories differ between 1 and 2 threads");
}
