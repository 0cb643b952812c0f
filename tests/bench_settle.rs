//! The benchmark scenes against LAMMPS runs of the same decks (N = 10,000, 20,000 steps):
//! - `scenes/bench-settle.ron` (`in.settle_hooke`; figures from the team's bench README):
//!   about 8,600-9,000 pair contacts with `r <= r_i + r_j`, about 1,100 wall contacts (within
//!   10 %), and the highest sphere centre at 9.29e-3 to 9.31e-3 m (within 1 %);
//! - `scenes/bench-settle-hertz.ron` (`in.settle_hertz`, run with Debian's LAMMPS 20220106
//!   on this machine kind): 10,288 pair contacts, 1,228 wall contacts (within 10 %),
//!   highest centre 9.2733e-3 m (within 1 %).
//!
//! The Hooke scene at N = 1,000 runs bitwise the same on 1 and 2 threads.

use dem_core::model::particles::Shape;
use dem_core::Simulation;
use dem_verification::bench_scene as scene_file;

/// The Hooke bench scene with its particle file replaced by `csv` and its duration by
/// `steps`.
fn bench_scene(csv: &str, box_max: &str, steps: u64) -> Simulation {
    scene_file("scenes/bench-settle.ron", csv, box_max, steps)
}

/// (pair contacts with r <= r_i + r_j, wall contacts as LAMMPS counts them, highest centre).
fn statistics(sim: &Simulation) -> (usize, usize, f64) {
    let p = &sim.particles;
    let radius = |i: usize| match &p.shape[i] {
        Shape::Sphere(s) => Some(s.radius),
        _ => None,
    };
    let pairs = sim
        .verlet
        .pairs
        .iter()
        .filter(|&&(a, b)| {
            let (a, b) = (a as usize, b as usize);
            match (radius(a), radius(b)) {
                (Some(ra), Some(rb)) => (p.pos[a] - p.pos[b]).norm() <= ra + rb,
                _ => false,
            }
        })
        .count();
    // LAMMPS' diagnostic: a sphere within R of each face of the box counts once per face.
    let (lo, hi) = ([0.0; 3], [0.02625, 0.041999999999999996, 0.0126]);
    let mut walls = 0;
    let mut zmax = f64::MIN;
    for i in 0..p.len() {
        if let Some(r) = radius(i) {
            for k in 0..3 {
                walls +=
                    usize::from(p.pos[i][k] - lo[k] < r) + usize::from(hi[k] - p.pos[i][k] < r);
            }
            zmax = zmax.max(p.pos[i].z);
        }
    }
    (pairs, walls, zmax)
}

/// Runs a full bench scene (N = 10,000, 20,000 steps) and checks its final statistics
/// against LAMMPS' ranges: pair contacts, wall contacts (within 10 %), highest centre
/// (within 1 %).
fn compare_with_lammps(file: &str, pairs_range: [f64; 2], walls_lammps: f64, zmax_range: [f64; 2]) {
    let mut sim = scene_file(
        file,
        "data/data.settle_N10000.csv",
        "(0.02625, 0.041999999999999996, 0.0126)",
        20_000,
    );
    assert_eq!(sim.particles.len(), 10_006);
    sim.run_steps(20_000).unwrap();
    let (pairs, walls, zmax) = statistics(&sim);
    println!(
        "{file} after 20,000 steps: {pairs} pair contacts (LAMMPS {pairs_range:?}), {walls} wall \
         contacts (LAMMPS {walls_lammps}), highest centre {zmax:.5e} m (LAMMPS {zmax_range:?})"
    );
    assert!(
        (pairs_range[0] * 0.9..=pairs_range[1] * 1.1).contains(&(pairs as f64)),
        "{file}: {pairs} pair contacts"
    );
    assert!(
        (walls_lammps * 0.9..=walls_lammps * 1.1).contains(&(walls as f64)),
        "{file}: {walls} wall contacts"
    );
    assert!(
        (zmax_range[0] * 0.99..=zmax_range[1] * 1.01).contains(&zmax),
        "{file}: highest centre {zmax}"
    );
}

#[test]
fn final_state_matches_lammps_statistics() {
    compare_with_lammps(
        "scenes/bench-settle.ron",
        [8600.0, 9000.0],
        1100.0,
        [9.29e-3, 9.31e-3],
    );
}

#[test]
fn hertz_final_state_matches_lammps_statistics() {
    compare_with_lammps(
        "scenes/bench-settle-hertz.ron",
        [10288.0, 10288.0],
        1228.0,
        [9.2733e-3, 9.2733e-3],
    );
}

#[test]
fn bench_scene_is_bitwise_the_same_on_one_and_two_threads() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut sim = bench_scene(
                "data/data.settle_N1000.csv",
                "(0.010499999999999999, 0.010499999999999999, 0.0126)",
                8000,
            );
            sim.run_steps(8000).unwrap();
            let p = &sim.particles;
            let state: Vec<[u64; 6]> = (0..p.len())
                .map(|i| {
                    let (x, v) = (p.pos[i], p.vel[i]);
                    [x.x, x.y, x.z, v.x, v.y, v.z].map(f64::to_bits)
                })
                .collect();
            (state, (sim.contacts.active(), sim.contacts.slots.len()))
        })
    };
    let (one, (contacts, slots)) = run(1);
    let (two, _) = run(2);
    // Several chunks (256 each) of candidate pairs and of contacts for the two threads.
    assert!(
        contacts > 2 * 256 && slots > 4 * 256,
        "{contacts} contacts, {slots} slots"
    );
    assert!(one == two, "trajectories differ between 1 and 2 threads");
}

/// The bench law's LAMMPS damping (`m* gamma_n v_n`, unclamped) gives the restitution its
/// README implies for a wall, `exp(-pi zeta / sqrt(1 - zeta^2))` with
/// `zeta = gamma_n sqrt(m*) / (2 sqrt(kn))`, `m* = m`: 0.561.
#[test]
fn lammps_damping_gives_the_implied_wall_restitution() {
    use dem_verification::impact::{Collision, FloorScene};
    let r = 5e-4;
    let m = 2500.0 * std::f64::consts::PI / 6.0 * 1e-9;
    let zeta = 1e4 * m.sqrt() / (2.0 * 1000f64.sqrt());
    let expected = (-std::f64::consts::PI * zeta / (1.0 - zeta * zeta).sqrt()).exp();
    let mut sim = FloorScene {
        law: "Law2_L6Geom_LinearElPl",
        params: "kn: 1000, kt_kn: 0.2857142857142857, gamma_n: 1e4, gamma_t: 5e3, \
                 friction: 0.5, attraction: true",
        material: "(density: 2500, young: 1e7, poisson: 0.25, friction: 0.5)",
        radius: r,
        height: r + 1e-6,
        velocity: [0.0, 0.0, -0.1],
        angular_velocity: [0.0; 3],
        gravity: [0.0; 3],
        dt: 1e-8,
    }
    .build();
    let hit = Collision::Floor { radius: r }.run(&mut sim, 1_000_000);
    println!("wall restitution {:.6}, implied {expected:.6}", hit.rebound);
    assert!((expected - 0.561).abs() < 5e-4, "README value");
    assert!(
        (hit.rebound / expected - 1.0).abs() < 1e-4,
        "{} vs {expected}",
        hit.rebound
    );
}
