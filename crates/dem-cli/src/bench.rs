//! `dem bench`: two sections, each at several sizes and thread counts, one child process
//! per run so that each peak memory is its own; each prints particle-steps/s, steps/s,
//! ns per contact, memory and the time per phase.
//! - settle: the settle benchmark scene (the team's `bench/README.md`: monodisperse
//!   spheres on a simple-cubic lattice with seeded random velocities, six walls, LAMMPS'
//!   `gran/hooke/history` law);
//! - dense: the settle scene's bed after 30,000 steps (`scenes/data/bed_N10000.csv`, about
//!   1.6 contacts per sphere with the walls), tiled along x for 100,000 spheres: the
//!   contact pass at work, and the same bed as `bench/lammps/in.dense` gives LAMMPS;
//! - rocks: a pour of convex polyhedra in its dense phase ([`crate::bench_rocks`]).

use dem_core::scene::Scene;
use dem_core::{DemError, PluginSet, Simulation};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Lattice spacing, m (1.05 d).
const SPACING: f64 = 1.05e-3;

/// Lattice counts of the benchmark's sizes.
fn lattice(n: u64) -> Result<[u64; 3], DemError> {
    match n {
        1_000 => Ok([10, 10, 10]),
        10_000 => Ok([25, 40, 10]),
        100_000 => Ok([100, 100, 10]),
        _ => Err(DemError::Scene(format!(
            "bench size {n}: the settle scene is defined for 1000, 10000 and 100000 spheres"
        ))),
    }
}

/// The contact law of the settle and dense sections: LAMMPS' `gran/hooke/history` or
/// `gran/hertz/history` with the constants of the team's decks.
#[derive(clap::ValueEnum, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Law {
    /// kn = 1000 N/m, gamma_n = 1e4 1/s (`in.settle_hooke`).
    Hooke,
    /// kn = 5e7 Pa, gamma_n = 7.5e8 1/(m s), times sqrt(overlap R*) (`in.settle_hertz`).
    Hertz,
}

impl Law {
    /// The scene's `laws` entry.
    fn ron(self) -> &'static str {
        match self {
            Law::Hooke => {
                r#"(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn: 1000, kt_kn: 0.2857142857142857, gamma_n: 1e4, gamma_t: 5e3,
                     friction: 0.5, attraction: true))"#
            }
            Law::Hertz => {
                r#"(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn: 5e7, kt_kn: 0.2857142857142857, gamma_n: 7.5e8, gamma_t: 3.75e8,
                     friction: 0.5, attraction: true, hertz_factor: true))"#
            }
        }
    }

    /// Its name on the command line.
    fn name(self) -> &'static str {
        match self {
            Law::Hooke => "hooke",
            Law::Hertz => "hertz",
        }
    }
}

/// A scene of the settle family: `bodies`, the box up to `max`, the law, `steps` steps.
fn settle_family(bodies: &str, max: [f64; 3], law: Law, steps: u64) -> String {
    let [lx, ly, lz] = max;
    format!(
        r#"Scene(
    materials: {{ "glass": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.5) }},
    laws: [{law}],
    bodies: [
        {bodies},
        Box(min: (0, 0, 0), max: ({lx:?}, {ly:?}, {lz:?}), material: "glass"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Fixed(1.6e-6),
    duration: Steps({steps}),
    contacts: (skin: 0.2),
)"#,
        law = law.ron()
    )
}

/// The settle scene with `n` spheres and `law`, as RON text.
pub fn settle_text(n: u64, steps: u64, law: Law) -> Result<String, DemError> {
    let [nx, ny, nz] = lattice(n)?;
    let a = SPACING;
    let h = a / 2.0;
    let bodies = format!(
        r#"Lattice(origin: ({h:?}, {h:?}, {h:?}), count: ({nx}, {ny}, {nz}), spacing: {a:?},
                radius: 5e-4, material: "glass", velocity_spread: 0.02, seed: 12345)"#
    );
    let max = [nx as f64 * a, ny as f64 * a, (nz + 2) as f64 * a];
    Ok(settle_family(&bodies, max, law, steps))
}

/// The dense bed: 10,000 spheres of the settle scene after 30,000 steps.
const BED: &str = include_str!("../../../scenes/data/bed_N10000.csv");
/// Its box, m (that of the settle scene at N = 10,000).
const BED_BOX: [f64; 3] = [0.02625, 0.041999999999999996, 0.0126];

/// Copies of the bed along x for `n` spheres.
fn copies(n: u64) -> Result<u64, DemError> {
    match n {
        n if n > 0 && n % 10_000 == 0 && n <= 1_000_000 => Ok(n / 10_000),
        _ => Err(DemError::Scene(format!(
            "bench dense {n}: the dense bed is 10,000 spheres, tiled along x: give a multiple \
             of 10000 up to 1000000"
        ))),
    }
}

/// The bed tiled `copies` times along x (copy `k` moved by `k` box lengths, as LAMMPS'
/// `replicate` does), as the CSV text dem reads.
fn tiled_bed(copies: u64) -> String {
    let rows: Vec<&str> = BED
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .collect();
    let mut out = String::from("x,y,z,vx,vy,vz,wx,wy,wz\n");
    for k in 0..copies {
        let dx = k as f64 * BED_BOX[0];
        for row in &rows {
            let mut cells = row.split(',').skip(1);
            let x: f64 = cells
                .next()
                .and_then(|x| x.parse().ok())
                .unwrap_or(f64::NAN);
            out.push_str(&format!("{:e}", x + dx));
            for c in cells {
                out.push(',');
                out.push_str(c);
            }
            out.push('\n');
        }
    }
    out
}

/// The dense section's scene with `n` spheres and `law`, reading the tiled bed from
/// `bed` (a file the caller writes with [`tiled_bed`]).
fn dense_text(n: u64, steps: u64, law: Law, bed: &Path) -> Result<String, DemError> {
    let copies = copies(n)?;
    let bodies = format!(
        r#"Csv(file: {:?}, radius: 5e-4, material: "glass")"#,
        bed.display().to_string()
    );
    let [lx, ly, lz] = BED_BOX;
    Ok(settle_family(
        &bodies,
        [copies as f64 * lx, ly, lz],
        law,
        steps,
    ))
}

/// The scene of a section.
#[derive(clap::ValueEnum, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// Spheres settling from a lattice (1000, 10000, 100000).
    Settle,
    /// A pour of rocks (convex polyhedra) in its dense phase.
    Rocks,
    /// The settle scene's bed after 30,000 steps (10,000 spheres, tiled along x).
    Dense,
}

impl Section {
    /// Its name on the command line.
    fn name(self) -> &'static str {
        match self {
            Section::Settle => "settle",
            Section::Rocks => "rocks",
            Section::Dense => "dense",
        }
    }
}

/// What one run measured.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Measured {
    /// Bodies (spheres or rocks).
    pub n: u64,
    /// Worker threads.
    pub threads: usize,
    /// Steps run.
    pub steps: u64,
    /// Wall time of the steps, s.
    pub seconds: f64,
    /// Live contacts summed over the steps.
    pub contact_steps: u64,
    /// Broad phase, geometry, law, gather, integration, s.
    pub phases: [f64; 5],
    /// Peak resident memory of the process, bytes (0 where unknown).
    pub peak_rss: u64,
    /// Contact slots (candidate pairs) at the end.
    pub slots: usize,
    /// Bytes of particle storage per particle.
    pub bytes_per_particle: f64,
    /// Bytes of storage per candidate slot.
    pub bytes_per_slot: f64,
    /// Bytes of storage per contact.
    pub bytes_per_contact: f64,
}

/// Peak resident set size of this process, bytes (Linux `VmHWM`; 0 elsewhere).
fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Bytes of particle storage per particle (every per-particle array, one element each,
/// and the scene id and storage index of each once storage was reordered).
fn bytes_per_particle(sim: &Simulation) -> f64 {
    use std::mem::size_of_val;
    let p = &sim.particles;
    if p.is_empty() {
        return 0.0;
    }
    (size_of_val(&p.pos[0])
        + size_of_val(&p.vel[0])
        + size_of_val(&p.ori[0])
        + size_of_val(&p.angvel[0])
        + size_of_val(&p.mass[0])
        + size_of_val(&p.inertia[0])
        + size_of_val(&p.force[0])
        + size_of_val(&p.torque[0])
        + size_of_val(&p.blocked[0])
        + size_of_val(&p.material[0])
        + size_of_val(&p.shape[0])
        + sim.order.bytes_per_particle()) as f64
}

/// Runs one size of `section` in this process (inside the caller's thread pool) and
/// measures it.
pub fn run_one(
    section: Section,
    n: u64,
    (steps, law): (u64, Law),
    plugins: &PluginSet,
) -> Result<Measured, DemError> {
    let bed = std::env::temp_dir().join(format!("dem-bench-bed-{}.csv", std::process::id()));
    let (text, file) = match section {
        Section::Settle => (settle_text(n, steps, law)?, "bench-settle.ron"),
        Section::Rocks => (crate::bench_rocks::scene_text(n, steps)?, "bench-rocks.ron"),
        Section::Dense => {
            let text = dense_text(n, steps, law, &bed)?;
            std::fs::write(&bed, tiled_bed(copies(n)?)).map_err(|e| DemError::Io {
                path: bed.clone(),
                source: e,
            })?;
            (text, "bench-dense.ron")
        }
    };
    let scene = Scene::parse(&text, Path::new(file));
    let sim = scene.and_then(|scene| Simulation::new(scene, plugins));
    if section == Section::Dense {
        let _ = std::fs::remove_file(&bed);
    }
    let mut sim = sim?;
    if section == Section::Rocks {
        crate::bench_rocks::stir(&mut sim);
    }
    let start = Instant::now();
    sim.run_steps(steps)?;
    let seconds = start.elapsed().as_secs_f64();
    let t = sim.timing;
    Ok(Measured {
        n,
        threads: rayon::current_num_threads(),
        steps,
        seconds,
        contact_steps: sim.contact_steps,
        phases: [t.broad_phase, t.geometry, t.law, t.gather, t.integration],
        peak_rss: peak_rss(),
        slots: sim.contacts.slots.len(),
        bytes_per_particle: bytes_per_particle(&sim),
        bytes_per_slot: sim.contacts.bytes_per_slot() as f64,
        bytes_per_contact: sim.contacts.bytes_per_contact() as f64,
    })
}

/// What `dem bench` runs: per section, the sizes and the steps per run.
pub struct Plan {
    /// The sections, in order.
    pub sections: Vec<Section>,
    /// Spheres of the settle section's runs.
    pub sizes: Vec<u64>,
    /// Steps of each settle run.
    pub steps: u64,
    /// Rocks of the rocks section's runs.
    pub rocks: Vec<u64>,
    /// Steps of each rocks run.
    pub rock_steps: u64,
    /// Thread counts.
    pub threads: Vec<usize>,
    /// Spheres of the dense section's runs.
    pub dense: Vec<u64>,
    /// The law of the settle and dense sections.
    pub law: Law,
}

/// Runs every (section, size, threads) of `plan` in a child process of this executable
/// and prints one table per section.
pub fn run_all(plan: &Plan) -> Result<(), DemError> {
    for &n in &plan.sizes {
        lattice(n)?;
    }
    for &n in &plan.rocks {
        crate::bench_rocks::scene_text(n, 1)?;
    }
    for &n in &plan.dense {
        copies(n)?;
    }
    for (k, &section) in plan.sections.iter().enumerate() {
        if k > 0 {
            println!();
        }
        let (sizes, steps) = match section {
            Section::Settle => {
                println!(
                    "settle benchmark ({}), {} steps (dt 1.6e-6 s) from the lattice; LAMMPS \
                     on this machine kind: ~1.4e7 particle-steps/s at N = 10,000 (1 core, \
                     Hooke)",
                    plan.law.name(),
                    plan.steps
                );
                (&plan.sizes, plan.steps)
            }
            Section::Dense => {
                println!(
                    "dense benchmark ({}), {} steps from the settled bed (about 1.6 contacts \
                     per sphere; LAMMPS: bench/lammps/in.dense)",
                    plan.law.name(),
                    plan.steps
                );
                (&plan.dense, plan.steps)
            }
            Section::Rocks => {
                println!(
                    "rocks benchmark (polyhedra), {} steps: rocks of scenes/rocks.ron at a \
                     bounding-sphere fraction of 0.35, random velocities up to 2 m/s, \
                     gravity; N = rocks, contacts = mean live contacts per step",
                    plan.rock_steps
                );
                (&plan.rocks, plan.rock_steps)
            }
        };
        table(section, sizes, &plan.threads, (steps, plan.law))?;
    }
    Ok(())
}

/// One section's table: a child process per (size, threads).
fn table(
    section: Section,
    sizes: &[u64],
    threads: &[usize],
    (steps, law): (u64, Law),
) -> Result<(), DemError> {
    let exe = std::env::current_exe()
        .map_err(|e| DemError::Scene(format!("cannot find the dem executable: {e}")))?;
    println!(
        "{:>7} {:>3} | {:>11} {:>8} {:>10} {:>8} | {:>8} {:>6} {:>6} {:>6} | phases %: broad geom law gather integ",
        "N", "thr", "p-steps/s", "steps/s", "ns/contact", "contacts", "peak MB", "B/part", "B/slot", "B/cont"
    );
    let name = section.name();
    for &n in sizes {
        for &t in threads {
            let out = Command::new(&exe)
                .args([
                    "bench",
                    "--one",
                    &n.to_string(),
                    "--sections",
                    name,
                    "--steps",
                    &steps.to_string(),
                    "--threads",
                    &t.to_string(),
                    "--law",
                    law.name(),
                ])
                .output()
                .map_err(|e| DemError::Scene(format!("cannot run {}: {e}", exe.display())))?;
            if !out.status.success() {
                return Err(DemError::Scene(format!(
                    "bench run {name} N = {n}, {t} threads failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
            let m: Measured = serde_json::from_slice(&out.stdout).map_err(|e| {
                DemError::Scene(format!(
                    "bench run {name} N = {n}, {t} threads: bad report: {e}"
                ))
            })?;
            let total: f64 = m.phases.iter().sum::<f64>().max(f64::MIN_POSITIVE);
            let pct = m.phases.map(|x| 100.0 * x / total);
            println!(
                "{:>7} {:>3} | {:>11.3e} {:>8.1} {:>10.1} {:>8.0} | {:>8.1} {:>6.0} {:>6.0} {:>6.0} | {:5.1} {:4.1} {:4.1} {:5.1} {:5.1}",
                m.n,
                m.threads,
                m.n as f64 * m.steps as f64 / m.seconds,
                m.steps as f64 / m.seconds,
                1e9 * m.seconds / (m.contact_steps.max(1) as f64),
                m.contact_steps as f64 / m.steps.max(1) as f64,
                m.peak_rss as f64 / 1e6,
                m.bytes_per_particle,
                m.bytes_per_slot,
                m.bytes_per_contact,
                pct[0],
                pct[1],
                pct[2],
                pct[3],
                pct[4]
            );
        }
    }
    Ok(())
}
