//! Clump dynamics (issue 24): one rigid body per clump, members moved with it, no
//! contacts inside a clump, loads summed in a fixed order.

use dem_core::engines::rotation;
use dem_core::Simulation;
use dem_verification::sim_from_text;
use nalgebra::Vector3;

/// An L of three overlapping spheres of radius 1 cm in the template's xy plane: three
/// distinct principal moments.
const TEMPLATE: &str = r#"clump_templates: {
        "ell": (members: [((0, 0, 0), 0.01), ((0.015, 0, 0), 0.01), ((0, 0.012, 0), 0.01)]),
    },"#;

fn scene(bodies: &str, gravity: f64, damping: f64, timestep: &str, steps: u64) -> String {
    format!(
        r#"Scene(
    materials: {{ "m": (density: 1000, young: 1e6, poisson: 0.3, friction: 0.3) }},
    laws: [(materials: ("m", "m"), law: "Law2_L6Geom_LinearElPl",
            params: (kt_kn: 0.25, restitution: 0.5))],
    {TEMPLATE}
    bodies: [{bodies}],
    gravity: (0, 0, -{gravity}),
    damping: {damping},
    timestep: {timestep},
    duration: Steps({}),
)"#,
        steps.max(1)
    )
}

#[test]
fn a_clump_resting_on_a_wall_loads_it_with_its_weight() {
    let text = scene(
        r#"Clump(template: "ell", position: (0, 0, 0.0102), rotate: (0, 0, 0.3), material: "m"),
           Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m")"#,
        9.81,
        0.3,
        "Critical(0.2)",
        0,
    );
    let mut sim = sim_from_text(&text, "rest.ron").unwrap();
    let wall = sim.particles.len() - 1;
    let weight = sim.clumps[0].mass * 9.81;
    // Settle: the normal force on the wall converges to the weight.
    sim.run_steps(20_000).unwrap();
    let f = sim.particles.force[wall];
    let err = (-f.z / weight - 1.0).abs();
    println!(
        "wall normal force {:.9e} N, weight {weight:.9e} N, relative error {err:.2e}, \
         clump speed {:.2e} m/s",
        -f.z,
        sim.clumps[0].vel.norm()
    );
    assert!(err < 1e-4, "{err:e}");
    assert!(f.x.abs() < 1e-4 * weight && f.y.abs() < 1e-4 * weight);
    // Three members touch the wall, none touch each other.
    assert_eq!(sim.live_contacts, 3);
}

/// Body-frame angular velocity of clump 0.
fn body_omega(sim: &Simulation) -> Vector3<f64> {
    let c = &sim.clumps[0];
    c.ori.inverse_transform_vector(&c.angvel)
}

/// Euler's equations of the torque-free body, `I w' = (I w) x w`, by classical
/// Runge-Kutta with step `h`: the times at which `w[1]` changes sign, up to `t_end`.
fn euler_flips(i: Vector3<f64>, w0: Vector3<f64>, h: f64, t_end: f64) -> Vec<f64> {
    let f = |w: &Vector3<f64>| i.component_mul(w).cross(w).component_div(&i);
    let (mut w, mut t, mut flips) = (w0, 0.0, Vec::new());
    while t < t_end {
        let k1 = f(&w);
        let k2 = f(&(w + k1 * (h / 2.0)));
        let k3 = f(&(w + k2 * (h / 2.0)));
        let k4 = f(&(w + k3 * h));
        let next = w + (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
        if next[1].signum() != w[1].signum() {
            // Linear interpolation of the crossing.
            flips.push(t + h * w[1] / (w[1] - next[1]));
        }
        w = next;
        t += h;
    }
    flips
}

#[test]
fn a_free_clump_conserves_energy_and_momentum_and_flips_about_its_middle_axis() {
    // One thread: the run is three particles, and a pool's hand-over per step would
    // dominate.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(free_clump);
}

fn free_clump() {
    let dt = 2e-4;
    let steps = 1_000_000;
    let text = scene(
        r#"Clump(template: "ell", position: (0, 0, 0), material: "m")"#,
        0.0,
        0.0,
        &format!("Fixed({dt})"),
        steps,
    );
    let mut sim = sim_from_text(&text, "flip.ron").unwrap();
    let clock = std::time::Instant::now();
    let inertia = sim.clumps[0].inertia;
    assert!(inertia.x < inertia.y && inertia.y < inertia.z, "{inertia}");
    // Spin about the intermediate axis with a small perturbation.
    // (The flip time is set by the distance from the separatrix, of order of the square
    // of the perturbation relative to the spin: a perturbation of 1e-4 would make that
    // distance 1e-8 relative and the flip times sensitive to the invariants' round-off.)
    let w0 = Vector3::new(0.3, 10.0, 0.2);
    let ori = sim.clumps[0].ori;
    let l0 = ori * inertia.component_mul(&w0);
    sim.clumps[0].angvel = rotation::angvel_for_momentum(&ori, &l0, &inertia, dt);
    let c = sim.clumps[0].clone();
    c.place_members(&mut sim.particles);
    let e0 = 0.5 * w0.dot(&inertia.component_mul(&w0));

    let (mut worst_e, mut worst_l) = (0.0f64, 0.0f64);
    let mut flips = Vec::new();
    let mut last = body_omega(&sim)[1];
    for n in 0..steps {
        sim.step().unwrap();
        let c = &sim.clumps[0];
        let l = rotation::angular_momentum(&c.ori, &c.angvel, &inertia, dt);
        worst_l = worst_l.max((l - l0).norm() / l0.norm());
        worst_e = worst_e.max((sim.ledger.rotational / e0 - 1.0).abs());
        let now = body_omega(&sim)[1];
        if now.signum() != last.signum() {
            // The stored velocity is the drift's midpoint: `last` at (n - 1/2) dt, `now`
            // at (n + 1/2) dt.
            flips.push((n as f64 - 0.5) * dt + dt * last / (last - now));
        }
        last = now;
        assert_eq!(sim.live_contacts, 0, "members of one clump must not touch");
    }
    let wall_time = clock.elapsed().as_secs_f64();
    let t_end = steps as f64 * dt;
    let reference = euler_flips(inertia, w0, 2e-5, t_end);
    println!("{steps} steps in {wall_time:.1} s of wall time");
    println!(
        "{steps} steps of {dt} s: energy error {worst_e:.2e}, momentum error {worst_l:.2e}; \
         moments {:?}; {} flips, the first at {:?} s, reference (RK4, h = 2e-5 s) {:?} s; \
         largest difference {:.2e} s",
        inertia.as_slice(),
        flips.len(),
        &flips[..2.min(flips.len())],
        &reference[..2.min(reference.len())],
        flips
            .iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
    );
    assert!(worst_e < 1e-6 && worst_l < 1e-6);
    assert!(reference.len() >= 2, "{reference:?}");
    assert_eq!(flips.len(), reference.len(), "{flips:?} vs {reference:?}");
    for (a, b) in flips.iter().zip(&reference) {
        // Measured: 3e-6 s at most over the 71 flips (half-period 2.8 s).
        assert!((a - b).abs() < 1e-4, "flip at {a} s, reference {b} s");
    }
    // No translation: nothing acts on the clump.
    assert_eq!(sim.clumps[0].vel, Vector3::zeros());
}

/// The largest ledger error of a tumbling clump dropped from 2 cm onto a wall (restitution
/// 0.5, friction), with time step `Critical(f)`, relative to `m g h`, over the same
/// simulated time (bounces included) for every `f`.
fn drop_error(f: f64) -> f64 {
    let text = scene(
        r#"Clump(template: "ell", position: (0, 0, 0.02), rotate: (0.4, -0.3, 0.2),
                 angular_velocity: (3, -2, 5), material: "m"),
           Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m")"#,
        9.81,
        0.0,
        &format!("Critical({f})"),
        0,
    );
    let mut sim = sim_from_text(&text, "drop.ron").unwrap();
    sim.step().unwrap();
    let first = sim.ledger.total();
    let scale = sim.clumps[0].mass * 9.81 * 0.02;
    let mut worst = 0.0f64;
    let mut touched = false;
    while sim.time < 0.12 {
        sim.step().unwrap();
        worst = worst.max((sim.ledger.total() - first).abs());
        touched |= sim.live_contacts > 0;
    }
    let l = sim.ledger;
    println!(
        "Critical({f}): dt {:.3e} s, ledger error {:.2e} of m g h = {scale:.3e} J; \
         dissipated: damping {:.3e} J, friction {:.3e} J",
        sim.dt(),
        worst / scale,
        l.damping,
        l.friction
    );
    assert!(touched && l.damping > 0.1 * scale);
    worst / scale
}

#[test]
fn the_ledger_closes_when_a_clump_drops_on_a_wall() {
    // The error is that of the leap-frog with a contact law: second order in dt (each
    // halving divides it by about 4), so it closes as dt goes to zero.
    let (coarse, fine) = (drop_error(0.1), drop_error(0.05));
    assert!(coarse / fine > 3.0, "{coarse:e} -> {fine:e}");
    assert!(fine < 1e-3, "{fine:e}");
}

/// 40 random clumps poured into a box.
fn pour() -> String {
    scene(
        r#"ClumpFill(template: "ell", min: (0, 0, 0), max: (0.2, 0.2, 0.3), count: 40, material: "m", seed: 3),
           Box(min: (0, 0, 0), max: (0.2, 0.2, 0.3), material: "m")"#,
        9.81,
        0.1,
        "Critical(0.2)",
        0,
    )
}

/// Every bit of the clumps' bodies and of the particles' positions and velocities.
fn bits(sim: &Simulation) -> Vec<u64> {
    let p = &sim.particles;
    let mut out = Vec::new();
    for c in &sim.clumps {
        for v in [c.pos, c.vel, c.angvel] {
            out.extend(v.iter().map(|x| x.to_bits()));
        }
        out.extend(c.ori.coords.iter().map(|x| x.to_bits()));
    }
    for i in 0..p.len() {
        out.extend(p.pos[i].iter().chain(p.vel[i].iter()).map(|x| x.to_bits()));
    }
    out.extend(sim.ledger.row().iter().map(|x| x.to_bits()));
    out
}

#[test]
fn a_clump_run_resumes_bitwise_from_a_checkpoint() {
    use dem_core::Checkpoint;
    use std::path::Path;
    let text = pour();
    let mut whole = sim_from_text(&text, "pour.ron").unwrap();
    whole.run_steps(2000).unwrap();
    let mut parts = sim_from_text(&text, "pour.ron").unwrap();
    parts.run_steps(1100).unwrap();
    assert!(parts.live_contacts > 0);
    let bytes = Checkpoint::capture(&parts, dem_verification::plugins(), Vec::new()).to_bytes();
    let ck = Checkpoint::from_bytes(&bytes, Path::new("pour.ckpt")).unwrap();
    let scene = ck.scene().unwrap();
    let mut parts = ck
        .restore(scene, dem_verification::plugins(), Path::new("pour.ckpt"))
        .unwrap();
    parts.run_steps(900).unwrap();
    assert!(bits(&parts) == bits(&whole), "the resumed run differs");
}

#[test]
fn clump_runs_are_bitwise_equal_on_one_and_two_threads() {
    let text = pour();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut sim = sim_from_text(&text, "threads.ron").unwrap();
            sim.run_steps(3000).unwrap();
            let state: Vec<[u64; 6]> = sim
                .clumps
                .iter()
                .map(|c| {
                    [
                        c.pos.x, c.pos.y, c.pos.z, c.angvel.x, c.angvel.y, c.angvel.z,
                    ]
                    .map(f64::to_bits)
                })
                .collect();
            (state, sim.live_contacts, sim.ledger.total().to_bits())
        })
    };
    let (one, two) = (run(1), run(2));
    assert!(
        one.1 > 0,
        "the clumps must touch for the test to mean something"
    );
    assert_eq!(one, two);
}

#[test]
fn outputs_give_one_row_per_clump_and_the_members_their_clump() {
    let text = scene(
        r#"Sphere(center: (0.1, 0, 0.05), radius: 0.01, material: "m"),
           Clump(template: "ell", position: (0, 0, 0.05), velocity: (0.1, 0, 0), material: "m"),
           Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m")"#,
        9.81,
        0.0,
        "Critical(0.2)",
        0,
    );
    let mut sim = sim_from_text(&text, "out.ron").unwrap();
    sim.run_steps(10).unwrap();
    let dir = std::env::temp_dir().join(format!("dem-clump-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dem_core::files::output::write_particles(&dir, &sim).unwrap();
    let csv = std::fs::read_to_string(path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let kinds: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(kinds, ["Sphere", "Clump", "Wall"], "{csv}");
    let c = &sim.clumps[0];
    let num = |k: usize| rows[1][k].parse::<f64>().unwrap();
    assert_eq!([num(2), num(3), num(4)], [c.pos.x, c.pos.y, c.pos.z]);
    assert_eq!([num(5), num(6), num(7)], [c.vel.x, c.vel.y, c.vel.z]);
    assert_eq!(num(11), c.template.bounding_radius);
    // Free fall: the force on the clump is its weight.
    assert!((num(14) + c.mass * 9.81).abs() < 1e-12 * c.mass * 9.81);
    // VTK: the members carry the clump's index, the sphere -1.
    let grid = dem_core::files::vtk::particles(&sim);
    let clump = grid
        .point_data
        .iter()
        .find(|a| a.name == "clump")
        .expect("a clump array");
    let dem_core::files::vtk::Values::I64(ids) = &clump.values else {
        panic!("the clump array is not Int64")
    };
    assert_eq!(ids, &[-1, 0, 0, 0]);
}
