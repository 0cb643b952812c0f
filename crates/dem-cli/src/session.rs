//! One session of a run, new or resumed: steps the simulation to its end, writing the
//! outputs at every output step and checkpoints when asked; Ctrl-C (SIGINT), SIGTERM and
//! SIGHUP (what batch schedulers send at a wall-clock limit) write a checkpoint and stop the
//! session cleanly.

use crate::progress::{emit, Mode, Progress};
use crate::record::{RunRecord, Session};
use dem_core::files::output::{
    bond_row, bonds_csv, energy_csv, flow_csv, flow_rows, has_plugin_shapes, has_polyhedra,
    mesh_rows, meshes_csv, stress_csv, stress_row, write_atomic, write_durable, write_particles,
    write_vtk, BONDS_STREAM, FIELDS_STREAM, POLYHEDRA_STREAM, SHAPES_STREAM, STREAMS,
};
use dem_core::files::py_record::PyRecord;
use dem_core::{Checkpoint, DemError, PluginSet, Simulation};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Name of the checkpoint file in the output directory.
pub const CHECKPOINT: &str = "checkpoint.ckpt";

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Is a session stepping (so that a signal can be answered with a checkpoint)?
static STEPPING: AtomicBool = AtomicBool::new(false);

/// Installs the signal handler: the first SIGINT, SIGTERM or SIGHUP asks the running
/// session to checkpoint and stop; a second one exits at once (the last complete
/// checkpoint stays intact). Before the session steps (reading the scene or checkpoint,
/// building the simulation) and after, there is no new state to save: a signal exits at
/// once, with status 130 as well.
pub fn handle_interrupts() {
    let handler = || {
        if INTERRUPTED.swap(true, Ordering::SeqCst) || !STEPPING.load(Ordering::SeqCst) {
            std::process::exit(130);
        }
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        tracing::warn!("cannot handle Ctrl-C: {e}");
    }
}

/// How a session writes and reports.
pub struct Options {
    /// Output directory.
    pub dir: PathBuf,
    /// Steps between checkpoints.
    pub checkpoint_every: Option<u64>,
    /// Progress mode.
    pub mode: Mode,
}

/// How a session ended.
pub enum Outcome {
    /// The run reached its last step.
    Done,
    /// Ctrl-C: a checkpoint was written.
    Interrupted,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DemError + '_ {
    move |source| DemError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Decodes the front end's record from a checkpoint. A checkpoint of the Python module
/// holds the module's record: its energy rows are taken (so that `energy.csv` goes on
/// from them), the rest starts anew (no run id: the caller gives one); what the module
/// changed in the state (positions, velocities, gravity, motions) is in the checkpoint.
pub fn record_of(ck: &Checkpoint, path: &Path) -> Result<RunRecord, DemError> {
    let failure = |reason: String| DemError::Checkpoint {
        path: path.to_path_buf(),
        reason,
    };
    if let Some(py) = PyRecord::from_bytes(&ck.extra).map_err(failure)? {
        tracing::info!(
            "{}: written by the Python module: energy.csv goes on from its rows; the other \
             outputs (VTK collections, meshes.csv, stress.csv, flow.csv) start at step {}",
            path.display(),
            ck.step
        );
        return Ok(RunRecord {
            energy: py.energy,
            ..RunRecord::default()
        });
    }
    RunRecord::from_bytes(&ck.extra).map_err(|e| {
        failure(format!(
            "corrupted checkpoint: cannot decode the run record: {e}"
        ))
    })
}

/// Writes the checkpoint (among ranks: every rank calls it, rank 0 writes).
fn save(
    sim: &mut Simulation,
    plugins: &PluginSet,
    record: &RunRecord,
    path: &Path,
) -> Result<(), DemError> {
    let extra = record.to_bytes();
    let bytes = sim.as_one_process(|sim| Checkpoint::capture(sim, plugins, extra).to_bytes())?;
    if !sim.writes() {
        return Ok(());
    }
    write_durable(path, &bytes).map_err(|e| {
        // The previous checkpoint is replaced only by a complete one: it is still there.
        let previous = match Checkpoint::read(path) {
            Ok(ck) => format!("the previous checkpoint (step {}) is kept whole", ck.step),
            Err(_) => "there is no previous checkpoint".to_string(),
        };
        DemError::Checkpoint {
            path: path.to_path_buf(),
            reason: format!(
                "cannot write the checkpoint of step {}: {e}; {previous}: the steps since \
                 are lost",
                sim.step
            ),
        }
    })?;
    tracing::debug!(
        "checkpoint at step {}: {} ({} bytes)",
        sim.step,
        path.display(),
        bytes.len()
    );
    Ok(())
}

/// Runs `sim` to its end (or to Ctrl-C) and writes the outputs into `opts.dir`.
pub fn drive(
    mut sim: Simulation,
    plugins: &PluginSet,
    mut record: RunRecord,
    opts: &Options,
) -> Result<Outcome, DemError> {
    let dir = &opts.dir;
    // Among ranks, rank 0 writes and reports; the others step with it.
    let writes = sim.writes();
    let checkpoint = dir.join(CHECKPOINT);
    if writes {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        crate::ownership::write_id(dir, &record.id)?;
        remove_stale_temporary(&checkpoint);
    }
    let every = sim.scene.output.every.max(1);
    let frames_every = sim.scene.output.frames_every();
    let mode = if writes { opts.mode } else { Mode::Quiet };
    let progress = Progress::start(mode, sim.step, sim.end_step);
    let (start, first_step, wall_before) = (Instant::now(), sim.step, record.wall);
    let mut checkpoints = 0;
    // From here a signal is answered with a checkpoint at the end of the step.
    STEPPING.store(true, Ordering::SeqCst);
    if sim.step == 0 && record.frames.is_empty() {
        record.frames.push((0, sim.time));
        frame(dir, &mut sim, &record.frames)?;
        write_tracked(dir, &mut sim, &mut record)?;
    }
    while sim.step < sim.end_step {
        let t = sim.time;
        if opts.checkpoint_every.is_some() {
            // A failing step (a plugin error, a non-finite state) leaves the state as it
            // was: checkpoint it, then stop with the error.
            if let Err(e) = sim.step_or_restore() {
                progress.finish();
                record.wall = wall_before + start.elapsed().as_secs_f64();
                save(&mut sim, plugins, &record, &checkpoint)?;
                tracing::error!(
                    "checkpoint of step {} (the last good state) written to {}",
                    sim.step,
                    checkpoint.display()
                );
                return Err(e);
            }
        } else {
            sim.step()?;
        }
        record.count_contacts(sim.live_contacts);
        progress.step();
        if (sim.step - 1).is_multiple_of(every) || sim.step == sim.end_step {
            record.energy.push((sim.step - 1, t, sim.ledger));
            // A periodic cell always measures its stress; other scenes where
            // `output.stress` asks.
            let stress = match sim.periodic.is_some() || sim.scene.output.stress.is_some() {
                true => sim.as_one_process(|sim| stress_row(sim.step - 1, t, sim))?,
                false => None,
            };
            if writes {
                write_rows(dir, &sim, &mut record, t, stress)?;
                let rate = (sim.step - first_step) as f64 / start.elapsed().as_secs_f64();
                let (contacts, total) = (sim.live_contacts, sim.ledger.total());
                progress.report(sim.step, sim.end_step, sim.time, contacts, total, rate);
            }
        }
        // Frames every `output.frames` steps (positions at that step), and the last; the
        // tracked particles' rows at the same moments every `output.every` steps.
        if sim.step.is_multiple_of(frames_every) || sim.step == sim.end_step {
            record.frames.push((sim.step, sim.time));
            frame(dir, &mut sim, &record.frames)?;
        }
        if sim.step.is_multiple_of(every) || sim.step == sim.end_step {
            write_tracked(dir, &mut sim, &mut record)?;
        }
        let due = opts
            .checkpoint_every
            .is_some_and(|n| sim.step.is_multiple_of(n.max(1)) && sim.step < sim.end_step);
        // Ranks see a signal at different steps: they ask each other every 100 steps (an
        // exchange each step would cost more than the check), and stop together.
        let interrupted = INTERRUPTED.load(Ordering::SeqCst);
        let interrupted = match sim.ranks() {
            Some(r) if sim.step.is_multiple_of(100) || sim.step == sim.end_step => {
                r.any(interrupted)
            }
            Some(_) => false,
            None => interrupted,
        };
        if due || interrupted {
            record.wall = wall_before + start.elapsed().as_secs_f64();
            save(&mut sim, plugins, &record, &checkpoint)?;
            checkpoints += 1;
        }
        if interrupted {
            progress.finish();
            if writes {
                report_interrupt(opts.mode, sim.step, &checkpoint);
            }
            return Ok(Outcome::Interrupted);
        }
    }
    STEPPING.store(false, Ordering::SeqCst);
    progress.finish();
    let particles = sim.as_one_process(|sim| match sim.writes() {
        true => write_particles(dir, sim).map(Some),
        false => Ok(None),
    })??;
    let Some(particles) = particles else {
        return Ok(Outcome::Done);
    };
    let png = dir.join("energy.png");
    if let Err(e) = crate::plot::energy_png(&png, &record.energy) {
        tracing::warn!("cannot draw the energy plot: {e}");
    }
    record.wall = wall_before + start.elapsed().as_secs_f64();
    let session = Session {
        steps: sim.step - first_step,
        wall: start.elapsed().as_secs_f64(),
        checkpoints,
    };
    let mut streams = STREAMS.to_vec();
    if has_polyhedra(&sim) {
        streams.push(POLYHEDRA_STREAM);
    }
    if has_plugin_shapes(&sim) {
        streams.push(SHAPES_STREAM);
    }
    if !sim.bonds.is_empty() {
        streams.push(BONDS_STREAM);
    }
    let fields = sim.scene.output.fields.is_some();
    let files = files_written(
        dir,
        &record,
        &particles,
        &png,
        &streams,
        fields,
        checkpoints > 0,
    );
    crate::summary::print(opts.mode, &sim, &record, &session, dir, &files);
    Ok(Outcome::Done)
}

/// Writes the VTK frames of this step (`frames`: every frame's step and time, this one
/// last). The contacts' frame reads every contact: among ranks, they are put together and
/// rank 0 writes.
fn frame(dir: &Path, sim: &mut Simulation, frames: &[(u64, f64)]) -> Result<(), DemError> {
    sim.as_one_process(|sim| match sim.writes() {
        true => write_vtk(dir, sim, frames),
        false => Ok(()),
    })?
}

/// Writes the rows of an output step (`t`: its time): energy, stress, flow and meshes.
fn write_rows(
    dir: &Path,
    sim: &Simulation,
    record: &mut RunRecord,
    t: f64,
    stress: Option<dem_core::files::output::StressRow>,
) -> Result<(), DemError> {
    let csv = dir.join("energy.csv");
    write_atomic(&csv, energy_csv(&record.energy).as_bytes()).map_err(io(&csv))?;
    if let Some(row) = stress {
        record.stress.push(row);
        let path = dir.join("stress.csv");
        write_atomic(&path, stress_csv(&record.stress).as_bytes()).map_err(io(&path))?;
    }
    if sim.flow.any() {
        record.flow.extend(flow_rows(sim.step - 1, t, sim));
        let path = dir.join("flow.csv");
        write_atomic(&path, flow_csv(&record.flow).as_bytes()).map_err(io(&path))?;
    }
    if !sim.bonds.is_empty() {
        record.bonds.push(bond_row(sim.step - 1, t, sim));
        let path = dir.join("bonds.csv");
        write_atomic(&path, bonds_csv(&record.bonds).as_bytes()).map_err(io(&path))?;
    }
    if !sim.meshes.is_empty() {
        record.meshes.extend(mesh_rows(sim.step - 1, t, sim));
        let path = dir.join("meshes.csv");
        write_atomic(&path, meshes_csv(&record.meshes).as_bytes()).map_err(io(&path))?;
    }
    Ok(())
}

/// Books the rows of the tracked particles and their contacts now (`output.track`, at the
/// steps of the frames' schedule of `output.every`) and rewrites `tracked.csv` and
/// `tracked_contacts.csv`. Among ranks, every rank calls it (rank 0 writes).
fn write_tracked(dir: &Path, sim: &mut Simulation, record: &mut RunRecord) -> Result<(), DemError> {
    let track = sim.scene.output.track.clone();
    if track.is_empty() {
        return Ok(());
    }
    let (step, time) = (sim.step, sim.time);
    let (particles, contacts) =
        sim.as_one_process(|sim| dem_core::files::tracked::rows(step, time, sim, &track))?;
    record.tracked.0.extend(particles);
    record.tracked.1.extend(contacts);
    if !sim.writes() {
        return Ok(());
    }
    let path = dir.join("tracked.csv");
    let text = dem_core::files::tracked::particles_csv(&record.tracked.0);
    write_atomic(&path, text.as_bytes()).map_err(io(&path))?;
    let path = dir.join("tracked_contacts.csv");
    let text = dem_core::files::tracked::contacts_csv(&record.tracked.1);
    write_atomic(&path, text.as_bytes()).map_err(io(&path))
}

/// Removes the temporary file a checkpoint write killed midway left beside `checkpoint`
/// (the checkpoint itself is whole: it is replaced only once its successor is complete).
fn remove_stale_temporary(checkpoint: &Path) {
    let name = checkpoint
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().to_string());
    let tmp = checkpoint.with_file_name(format!(".{name}.tmp"));
    if tmp.is_file() {
        match std::fs::remove_file(&tmp) {
            Ok(()) => tracing::info!(
                "{}: removed, left by a checkpoint write that was killed",
                tmp.display()
            ),
            Err(e) => tracing::warn!("{}: cannot remove: {e}", tmp.display()),
        }
    }
}

fn report_interrupt(mode: Mode, step: u64, checkpoint: &Path) {
    match mode {
        Mode::Json => emit(&json!({
            "event": "interrupted",
            "step": step,
            "checkpoint": checkpoint.display().to_string(),
        })),
        _ => crate::progress::say(format_args!(
            "interrupted at step {step}: checkpoint written to {}\nresume with: dem resume {}",
            checkpoint.display(),
            checkpoint.display()
        )),
    }
}

fn files_written(
    dir: &Path,
    record: &RunRecord,
    particles: &Path,
    png: &Path,
    streams: &[&str],
    fields: bool,
    checkpoint: bool,
) -> Vec<String> {
    let name = |p: &Path| p.strip_prefix(dir).unwrap_or(p).display().to_string();
    let mut files = vec!["energy.csv".to_string(), name(particles)];
    if !record.meshes.is_empty() {
        files.push("meshes.csv".to_string());
    }
    if !record.stress.is_empty() {
        files.push("stress.csv".to_string());
    }
    if !record.flow.is_empty() {
        files.push("flow.csv".to_string());
    }
    if !record.bonds.is_empty() {
        files.push("bonds.csv".to_string());
    }
    if !record.tracked.0.is_empty() || !record.tracked.1.is_empty() {
        files.push("tracked.csv and tracked_contacts.csv".to_string());
    }
    if png.exists() {
        files.push(name(png));
    }
    files.push(format!(
        "{} x {{{}}}_<step>.vtu and their .pvd",
        record.frames.len(),
        streams.join(",")
    ));
    if fields {
        files.push(format!(
            "{} x {FIELDS_STREAM}_<step>.vti and {FIELDS_STREAM}.pvd",
            record.frames.len()
        ));
    }
    if checkpoint {
        files.push(CHECKPOINT.to_string());
    }
    files
}
