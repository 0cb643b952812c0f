//! Progress reporting: a progress bar on a terminal (stderr), a progress line now and then
//! when stderr is not a terminal (a batch job's log, as LAMMPS' thermo output), one JSON
//! object per line on stdout for scripts, or nothing.

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::cell::Cell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Wall time between two progress lines in a log.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Progress bar and summary table.
    Bar,
    /// JSON lines on stdout: `progress` events, then `summary` (or `interrupted`).
    Json,
    /// Nothing but errors and warnings.
    Quiet,
}

/// A progress reporter for one run session.
pub struct Progress {
    mode: Mode,
    bar: Option<ProgressBar>,
    /// Without a terminal: when the last progress line was written (`None`: none yet).
    log: Option<Cell<Option<Instant>>>,
}

impl Progress {
    /// Starts reporting a run at `step` of `end_step`.
    pub fn start(mode: Mode, step: u64, end_step: u64) -> Progress {
        let bar = (mode == Mode::Bar).then(|| {
            let bar = ProgressBar::new(end_step);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} steps  {per_sec}  ETA {eta}  {msg}",
                )
                .expect("valid template"),
            );
            bar.set_position(step);
            bar.reset_eta();
            bar
        });
        let log = (mode == Mode::Bar && !std::io::stderr().is_terminal()).then(|| Cell::new(None));
        Progress { mode, bar, log }
    }

    /// One step done.
    pub fn step(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// An output step: state of the run now.
    /// `rate`: steps per second of wall time in this session.
    pub fn report(
        &self,
        step: u64,
        end_step: u64,
        time: f64,
        contacts: usize,
        total: f64,
        rate: f64,
    ) {
        match self.mode {
            Mode::Bar => {
                if let Some(b) = &self.bar {
                    b.set_message(format!("E = {total:.6e} J, {contacts} contacts"));
                }
                let Some(last) = &self.log else { return };
                let now = Instant::now();
                if last.get().is_some_and(|t| now - t < LOG_EVERY) && step < end_step {
                    return;
                }
                last.set(Some(now));
                let left = (end_step - step) as f64 / rate.max(1e-9);
                say(format_args!(
                    "step {step} of {end_step} ({:.1} %), t = {time:.6e} s, E = {total:.6e} J, \
                     {contacts} contacts, {rate:.0} steps/s, {left:.0} s left",
                    100.0 * step as f64 / end_step.max(1) as f64
                ));
            }
            Mode::Json => {
                emit(&json!({
                    "event": "progress",
                    "step": step,
                    "end_step": end_step,
                    "time": time,
                    "contacts": contacts,
                    "energy_total": total,
                    "steps_per_second": rate,
                }));
            }
            Mode::Quiet => {}
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Prints one JSON line on stdout.
pub fn emit(v: &Value) {
    print(format_args!("{v}"));
}

/// A line on stdout; a closed stdout (the reader went away) is ignored: the run goes on.
pub fn print(line: std::fmt::Arguments) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{line}");
}

/// A line on stderr; a closed stderr is ignored.
pub fn say(line: std::fmt::Arguments) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
