//! `dem`: run a scene, check it, list the loaded plugins, or test a law.

mod catalogue;
mod law_test;
mod output;

use clap::{Parser, Subcommand};
use dem_core::{DemError, PluginSet, Scene, Simulation};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "dem",
    version,
    about = "Discrete Element Method solver with plugin contact models"
)]
struct Cli {
    /// Extra plugin library or directory (repeatable); searched before the defaults
    /// (the executable's directory and DEM_PLUGIN_PATH).
    #[arg(long = "plugin", global = true)]
    plugin: Vec<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene.
    Run {
        /// Scene file (RON).
        scene: PathBuf,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Output directory (default: out/<scene name>).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Load and validate a scene without running it.
    Check {
        /// Scene file (RON).
        scene: PathBuf,
    },
    /// List every loaded functor with its parameters.
    Plugins {
        /// Print the catalogue as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Drive one contact through a prescribed motion (a law test file, RON) and write
    /// the law's forces as CSV.
    LawTest {
        /// Law test file (RON).
        file: PathBuf,
        /// CSV output file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn load_plugins(extra: &[PathBuf], scene: Option<&Scene>) -> Result<PluginSet, DemError> {
    let mut set = PluginSet::default();
    if let Some(s) = scene {
        let base = s.origin.parent().unwrap_or(Path::new("."));
        for p in &s.plugins {
            set.load(&base.join(p))?;
        }
    }
    for p in extra {
        if p.is_dir() {
            set.scan(p);
        } else {
            set.load(p)?;
        }
    }
    for d in PluginSet::default_dirs() {
        set.scan(&d);
    }
    Ok(set)
}

fn prepare(scene: &Path, extra: &[PathBuf]) -> Result<Simulation, DemError> {
    let scene = Scene::load(scene)?;
    let plugins = load_plugins(extra, Some(&scene))?;
    Simulation::new(scene, &plugins)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DemError + '_ {
    move |source| DemError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn run(
    scene_path: &Path,
    threads: Option<usize>,
    out: Option<PathBuf>,
    extra: &[PathBuf],
) -> Result<(), DemError> {
    // The whole run executes inside the pool, so the solver's parallel loops start from a
    // worker thread instead of being handed over from the main thread at every step.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| DemError::Scene(format!("cannot start worker threads: {e}")))?;
    pool.install(|| run_in_pool(scene_path, out, extra))
}

fn run_in_pool(scene_path: &Path, out: Option<PathBuf>, extra: &[PathBuf]) -> Result<(), DemError> {
    let mut sim = prepare(scene_path, extra)?;
    let name = scene_path
        .file_stem()
        .map_or("scene".into(), |s| s.to_string_lossy().to_string());
    let dir = out.unwrap_or_else(|| PathBuf::from("out").join(name));
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let spheres = sim
        .particles
        .shape
        .iter()
        .filter(|s| s.bounding_radius().is_some())
        .count();
    tracing::info!(
        "{}: {} particles ({spheres} spheres), dt = {:.3e} s (critical estimate {:.3e} s), {} steps, {} threads",
        scene_path.display(), sim.particles.len(), sim.dt(), sim.critical_dt, sim.end_step, rayon::current_num_threads()
    );
    let mut energy = output::EnergyCsv::new(&dir);
    let bar = ProgressBar::new(sim.end_step);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps  {per_sec}  ETA {eta}  {msg}")
            .expect("valid template"),
    );
    let every = sim.scene.output.every.max(1);
    let start = Instant::now();
    let csv = dir.join("energy.csv");
    while sim.step < sim.end_step {
        let t = sim.time;
        sim.step()?;
        if (sim.step - 1) % every == 0 || sim.step == sim.end_step {
            energy
                .record(sim.step - 1, t, &sim.ledger)
                .map_err(io(&csv))?;
            bar.set_message(format!(
                "E = {:.6e} J, {} contacts",
                sim.ledger.total(),
                sim.contacts.active()
            ));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    output::write_particles(&dir, &sim).map_err(io(&dir))?;
    let wall = start.elapsed().as_secs_f64();
    let l = &sim.ledger;
    println!(
        "done: {} steps, simulated {:.6e} s, wall {:.2} s",
        sim.step, sim.time, wall
    );
    println!(
        "  particle-steps/s {:.3e}",
        spheres as f64 * sim.step as f64 / wall
    );
    println!(
        "  contacts {}, broad-phase rebuilds {}",
        sim.contacts.active(),
        sim.verlet.rebuilds
    );
    println!(
        "  energy: total {:.6e} J (kinetic {:.3e}, potential {:.3e}, elastic {:.3e}, dissipated {:.3e})",
        l.total(), l.kinetic + l.rotational, l.potential, l.elastic, l.friction + l.damping + l.nonviscous
    );
    println!("  output: {}", dir.display());
    Ok(())
}

fn check(scene_path: &Path, extra: &[PathBuf]) -> Result<(), DemError> {
    let sim = prepare(scene_path, extra)?;
    println!(
        "{}: ok: {} particles, {} materials, dt = {:.3e} s (critical {:.3e} s), {} steps",
        scene_path.display(),
        sim.particles.len(),
        sim.materials.len(),
        sim.dt(),
        sim.critical_dt,
        sim.end_step
    );
    for g in &sim.dispatch.geoms {
        println!("  geometry {} ({})", g.name, g.plugin);
    }
    for l in &sim.dispatch.laws {
        println!(
            "  law {} ({}), {} state slots",
            l.name, l.plugin, l.state_len
        );
    }
    Ok(())
}

fn plugins(extra: &[PathBuf], json: bool) -> Result<(), DemError> {
    let set = load_plugins(extra, None)?;
    if json {
        println!("{:#}", catalogue::to_json(&set));
    } else {
        print!("{}", catalogue::to_text(&set));
    }
    Ok(())
}

fn main() -> ExitCode {
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Run {
            scene,
            threads,
            out,
        } => run(scene, *threads, out.clone(), &cli.plugin),
        Command::Check { scene } => check(scene, &cli.plugin),
        Command::Plugins { json } => plugins(&cli.plugin, *json),
        Command::LawTest { file, out } => {
            load_plugins(&cli.plugin, None).and_then(|set| law_test::run(file, out.as_deref(), set))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
