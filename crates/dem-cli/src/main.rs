//! `dem`: run a scene (or resume it from a checkpoint), check it, list the loaded
//! plugins, or test a law. Floors, bottom first: `progress`, `record`, `ownership`, `plot`,
//! `world`, `memory`, the small commands; `bench`, `summary`; `session`; `main` on top.

mod bench;
mod bench_rocks;
mod check;
mod inspect;
mod law_test;
mod memory;
mod ownership;
mod plot;
mod progress;
mod record;
mod session;
mod summary;
mod world;

use clap::{Args, Parser, Subcommand};
// The run's output files and the plugin catalogue are dem-core's (shared with the Python
// module).
use dem_core::model::particles::Shape;
use dem_core::setup::catalogue;
use dem_core::setup::plugin_probe::Prober;
use dem_core::support::threads::{self, Threads};
use dem_core::{Checkpoint, DemError, PluginSet, Scene, Simulation};
use progress::Mode;
use record::RunRecord;
use session::Outcome;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use world::World;

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
        #[command(flatten)]
        opts: RunArgs,
    },
    /// Resume a run from its checkpoint.
    Resume {
        /// Checkpoint file (`checkpoint.ckpt` in a run's output directory).
        checkpoint: PathBuf,
        #[command(flatten)]
        opts: RunArgs,
        /// Write into an output directory that holds another run's outputs, removing them
        /// first (without it such a directory is refused).
        #[arg(long)]
        force: bool,
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
    /// Describe a checkpoint: step, particles, contacts, plugins, size of each part.
    Inspect {
        /// Checkpoint file.
        checkpoint: PathBuf,
    },
    /// Run the benchmark scenes (spheres settling from a lattice; a pour of rocks) and
    /// print particle-steps/s, ns per contact, memory and the time per phase, for each
    /// size and thread count.
    Bench {
        /// Sections to run: settle (spheres from a lattice), dense (a settled bed of
        /// spheres), rocks (polyhedra).
        #[arg(long, value_delimiter = ',', default_value = "settle,dense,rocks")]
        sections: Vec<bench::Section>,
        /// Numbers of spheres of the settle section (1000, 10000, 100000).
        #[arg(long, value_delimiter = ',', default_value = "1000,10000")]
        sizes: Vec<u64>,
        /// Steps per settle run (from the lattice; the full scene runs 20000).
        #[arg(long, default_value_t = 2000)]
        steps: u64,
        /// Numbers of rocks of the rocks section.
        #[arg(long, value_delimiter = ',', default_value = "10000")]
        rocks: Vec<u64>,
        /// Steps per rocks run.
        #[arg(long, default_value_t = 300)]
        rock_steps: u64,
        /// Thread counts.
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        threads: Vec<usize>,
        /// Spheres of the dense section (multiples of 10000: the bed tiled along x).
        #[arg(long, value_delimiter = ',', default_value = "10000")]
        dense: Vec<u64>,
        /// Contact law of the settle and dense sections.
        #[arg(long, value_enum, default_value = "hooke")]
        law: bench::Law,
        /// Run one size of the first of `sections` in this process and print its
        /// measurement as JSON (used by the tables' child processes).
        #[arg(long, hide = true)]
        one: Option<u64>,
    },
    /// Open plugin libraries one after the other, printing `done <i>` after each: the
    /// child process that tries libraries before `dem` loads them (see
    /// dem_core::setup::plugin_probe).
    #[command(hide = true)]
    ProbePlugins {
        /// Library files.
        libraries: Vec<PathBuf>,
    },
}

/// Options of `run` and `resume`.
#[derive(Args)]
struct RunArgs {
    /// Worker threads (default: as many as the scene's work pays for, at most the cores
    /// this process may use, shared among the MPI ranks on this machine).
    #[arg(long)]
    threads: Option<usize>,
    /// Output directory (default: out/<scene name> for run, the checkpoint's directory for
    /// resume).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write a checkpoint (<out>/checkpoint.ckpt) every N steps.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    checkpoint_every: Option<u64>,
    /// No progress bar, no summary: only warnings and errors (on stderr).
    #[arg(long, conflicts_with = "json")]
    quiet: bool,
    /// Progress and summary as JSON lines on stdout.
    #[arg(long)]
    json: bool,
}

impl RunArgs {
    fn mode(&self) -> Mode {
        if self.quiet {
            Mode::Quiet
        } else if self.json {
            Mode::Json
        } else {
            Mode::Bar
        }
    }

    /// All the pool's threads when `--threads` is given, else as many as the work pays for.
    fn thread_choice(&self) -> Threads {
        match self.threads {
            Some(_) => Threads::Pool,
            None => Threads::Auto,
        }
    }

    fn options(&self, dir: PathBuf) -> session::Options {
        session::Options {
            dir,
            checkpoint_every: self.checkpoint_every,
            mode: self.mode(),
        }
    }
}

fn load_plugins(extra: &[PathBuf], scene: Option<&Scene>) -> Result<PluginSet, DemError> {
    // Each library is opened by a child process first: one that crashes it is refused
    // with the signal instead of killing this process. Not under an MPI launcher (a
    // process that forks after MPI_Init may upset the MPI library).
    let mpi = World::launched_by_mpi();
    let prober = (!mpi)
        .then(std::env::current_exe)
        .and_then(Result::ok)
        .map(|exe| Prober {
            exe,
            args: vec!["probe-plugins".into()],
            patience: std::time::Duration::from_secs(20),
        });
    PluginSet::for_run(scene, extra, &PluginSet::default_dirs(), prober)
}

/// `dem probe-plugins`: opens each library, then says so (see [`Prober`]).
fn probe_plugins(libraries: &[PathBuf]) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for (i, path) in libraries.iter().enumerate() {
        // Refusals are found again, with their messages, by the load that follows.
        let _ = PluginSet::default().load(path);
        if writeln!(out, "{}", dem_core::setup::plugin_probe::done_line(i))
            .and_then(|()| out.flush())
            .is_err()
        {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Runs `f` inside a pool of `threads` workers (default: the cores this process may use,
/// shared among the MPI ranks on this machine, see `dem_core::support::threads`): its size is the
/// number of members of the solver's worker team (`dem_core::support::team`), which runs the phases
/// of a step, and the pool runs the broad phase's rebuilds. Results do not depend on the
/// number of threads.
fn in_pool<T>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T, DemError>
where
    T: Send,
{
    check_threads(threads)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or_else(|| threads::available(World::local_ranks())))
        .build()
        .map_err(|e| DemError::Scene(format!("cannot start worker threads: {e}")))?;
    Ok(pool.install(f))
}

/// Refuses a thread count of 0, or beyond 4 threads per core (at least 64): more threads
/// than cores only slow a run, and each costs a stack.
fn check_threads(threads: Option<usize>) -> Result<(), DemError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = (4 * cores).max(64);
    match threads {
        Some(0) => Err(DemError::Scene(
            "--threads 0: a run needs at least 1 thread (leave it out to let dem choose)".into(),
        )),
        Some(n) if n > most => Err(DemError::Scene(format!(
            "--threads {n}: more than {most} (4 per core, at least 64; this machine has \
             {cores} cores): more threads than cores only slow a run"
        ))),
        _ => Ok(()),
    }
}

fn finish(outcome: Outcome) -> ExitCode {
    match outcome {
        Outcome::Done => ExitCode::SUCCESS,
        // 128 + SIGINT, as shells report an interrupted command (also after SIGTERM, SIGHUP).
        Outcome::Interrupted => ExitCode::from(130),
    }
}

fn run(
    scene_path: &Path,
    opts: &RunArgs,
    extra: &[PathBuf],
    world: &World,
) -> Result<ExitCode, DemError> {
    let scene = Scene::load(scene_path)?;
    let plugins = load_plugins(extra, Some(&scene))?;
    let name = scene_path
        .file_stem()
        .map_or("scene".into(), |s| s.to_string_lossy().to_string());
    let dir = opts
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(name));
    let options = opts.options(dir);
    let outcome = in_pool(opts.threads, || {
        let mut sim = Simulation::new(scene, &plugins)?;
        sim.set_threads(opts.thread_choice());
        if let Some(exchange) = world.exchange() {
            sim.distribute(exchange)?;
        }
        if world.rank() == 0 {
            announce(&sim, scene_path);
        }
        let record = RunRecord {
            id: ownership::new_id(),
            ..RunRecord::default()
        };
        session::drive(sim, &plugins, record, &options)
    })??;
    Ok(finish(outcome))
}

fn resume(
    file: &Path,
    opts: &RunArgs,
    force: bool,
    extra: &[PathBuf],
    world: &World,
) -> Result<ExitCode, DemError> {
    let ck = Checkpoint::read(file)?;
    note_scene_file(&ck);
    let scene = ck.scene()?;
    let plugins = load_plugins(extra, Some(&scene))?;
    let mut record = session::record_of(&ck, file)?;
    if record.id.is_empty() {
        // A checkpoint of the Python module: a run of its own from here.
        record.id = ownership::new_id();
    }
    let dir = opts.out.clone().unwrap_or_else(|| {
        file.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf()
    });
    if world.rank() == 0 {
        ownership::claim_for_resume(&dir, &record.id, file, force)?;
    }
    let options = opts.options(dir);
    let outcome = in_pool(opts.threads, || {
        let mut sim = ck.restore(scene, &plugins, file)?;
        sim.set_threads(opts.thread_choice());
        if let Some(exchange) = world.exchange() {
            sim.distribute(exchange)?;
        }
        tracing::info!(
            "{}: resuming at step {} of {} (t = {:.6e} s)",
            file.display(),
            sim.step,
            sim.end_step,
            sim.time
        );
        record.resumed_at.push(sim.step);
        session::drive(sim, &plugins, record, &options)
    })??;
    Ok(finish(outcome))
}

/// A resumed run goes on with the scene saved in its checkpoint: says so when the scene
/// file was edited or removed since.
fn note_scene_file(ck: &Checkpoint) {
    let origin = &ck.scene_origin;
    match std::fs::read_to_string(origin) {
        Ok(text) if text == ck.scene_text => {}
        Ok(_) => tracing::warn!(
            "{}: edited since the run started; the run goes on with the scene saved in its \
             checkpoint (start a new run to use the edited scene)",
            origin.display()
        ),
        Err(_) => tracing::info!(
            "{}: gone; the run goes on with the scene saved in its checkpoint",
            origin.display()
        ),
    }
}

fn announce(sim: &Simulation, scene_path: &Path) {
    // Bodies by shape (walls and mesh facets left out): spheres, polyhedra, then each
    // plugin shape by name.
    let mut counts: std::collections::BTreeMap<(u8, String), usize> = Default::default();
    for s in &sim.particles.shape {
        let key = match s {
            Shape::Sphere(_) => (0, "spheres".to_string()),
            Shape::Polyhedron(_) => (1, "polyhedra".to_string()),
            Shape::Plugin(b) => (2, format!("{} bodies", b.name)),
            _ => continue,
        };
        *counts.entry(key).or_default() += 1;
    }
    let bodies = match counts.is_empty() {
        true => "0 spheres".to_string(),
        false => counts
            .iter()
            .map(|((_, what), n)| format!("{n} {what}"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    tracing::info!(
        "{}: {} particles ({bodies}), dt = {:.3e} s (critical estimate {:.3e} s), {} steps, {}",
        scene_path.display(),
        sim.particles.len(),
        sim.dt(),
        sim.critical_dt,
        sim.end_step,
        thread_line(sim)
    );
    for line in check::flow_lines(sim) {
        tracing::info!("{line}");
    }
}

/// The threads a run uses: the pool's, or up to them as the work pays for.
fn thread_line(sim: &Simulation) -> String {
    let most = rayon::current_num_threads();
    match sim.thread_choice() {
        Threads::Pool => format!("{most} threads"),
        Threads::Auto if most == 1 => "1 thread".into(),
        Threads::Auto => format!("1 to {most} threads as the work pays for"),
    }
}

fn check(scene_path: &Path, extra: &[PathBuf]) -> Result<(), DemError> {
    let scene = Scene::load(scene_path)?;
    let plugins = load_plugins(extra, Some(&scene))?;
    let sim = Simulation::new(scene, &plugins)?;
    check::report(&sim, scene_path, &plugins);
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
    memory::keep_large_buffers_mapped();
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Run { .. } | Command::Resume { .. }) {
        // A reader that went away (`dem check scene.ron | head -1`) ends the command
        // quietly, as it ends Unix tools, instead of a panic in `println!`. A run goes on
        // (its results are files): its progress and summary ignore a closed stdout.
        // SAFETY: setting a signal's disposition to its default, before any thread starts.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    let quiet = matches!(&cli.command, Command::Run { opts, .. } | Command::Resume { opts, .. } if opts.mode() != Mode::Bar);
    let default = if quiet { "warn" } else { "info" };
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| default.into());
    // Colours only on a terminal: a log written to a file (`2> run.log`, a batch job's)
    // keeps plain text.
    use std::io::IsTerminal;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let world = match &cli.command {
        Command::Run { .. } | Command::Resume { .. } => World::start(),
        _ => Ok(World::alone()),
    };
    let world = match world {
        Ok(w) => w,
        Err(e) => {
            progress::say(format_args!("error: {e}"));
            return ExitCode::FAILURE;
        }
    };
    let result = match &cli.command {
        Command::Run { scene, opts } => {
            session::handle_interrupts();
            run(scene, opts, &cli.plugin, &world)
        }
        Command::Resume {
            checkpoint,
            opts,
            force,
        } => {
            session::handle_interrupts();
            resume(checkpoint, opts, *force, &cli.plugin, &world)
        }
        Command::Check { scene } => check(scene, &cli.plugin).map(|()| ExitCode::SUCCESS),
        Command::Plugins { json } => plugins(&cli.plugin, *json).map(|()| ExitCode::SUCCESS),
        Command::LawTest { file, out } => load_plugins(&cli.plugin, None)
            .and_then(|set| law_test::run(file, out.as_deref(), set))
            .map(|()| ExitCode::SUCCESS),
        Command::Inspect { checkpoint } => inspect::print(checkpoint).map(|()| ExitCode::SUCCESS),
        Command::ProbePlugins { libraries } => Ok(probe_plugins(libraries)),
        Command::Bench {
            sections,
            sizes,
            steps,
            rocks,
            rock_steps,
            threads,
            dense,
            law,
            one,
        } => match one {
            Some(n) => load_plugins(&cli.plugin, None)
                .and_then(|set| {
                    let section = sections.first().copied().unwrap_or(bench::Section::Settle);
                    in_pool(threads.first().copied(), || {
                        bench::run_one(section, *n, (*steps, *law), &set)
                    })?
                })
                .map(|m| {
                    println!("{}", serde_json::to_string(&m).unwrap_or_default());
                    ExitCode::SUCCESS
                }),
            None => bench::run_all(&bench::Plan {
                sections: sections.clone(),
                sizes: sizes.clone(),
                steps: *steps,
                rocks: rocks.clone(),
                rock_steps: *rock_steps,
                threads: threads.clone(),
                dense: dense.clone(),
                law: *law,
            })
            .map(|()| ExitCode::SUCCESS),
        },
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Among ranks, an error passed on by another rank: that rank tells it (rank 0
            // too), and every rank has stopped.
            let told = matches!(&e, DemError::Rank { rank, .. } if *rank != world.rank());
            if world.size() == 1 {
                progress::say(format_args!("error: {e}"));
            } else if !told || world.rank() == 0 {
                progress::say(format_args!("error (rank {}): {e}", world.rank()));
            }
            if !told {
                // The other ranks may not know of it (a file this rank could not write):
                // stop them all.
                world.abort(1);
            }
            ExitCode::FAILURE
        }
    }
}
