//! The run summary printed at the end: a table on a terminal, a `summary` JSON object in
//! JSON mode, nothing when quiet.

use crate::progress::{emit, Mode};
use crate::record::{RunRecord, Session};
use dem_core::Simulation;
use serde_json::json;
use std::path::Path;

/// Prints the summary of a finished run.
pub fn print(
    mode: Mode,
    sim: &Simulation,
    record: &RunRecord,
    s: &Session,
    dir: &Path,
    files: &[String],
) {
    let spheres = sim
        .particles
        .shape
        .iter()
        .filter(|s| s.bounding_radius().is_some())
        .count();
    let rate = spheres as f64 * s.steps as f64 / s.wall.max(1e-9);
    let (cmin, cmean, cmax) = record.contact_stats();
    let (drift, relative) = record.balance_error();
    let l = &sim.ledger;
    let fields: Vec<_> = (0..sim.exchanges.fields.len())
        .map(|f| sim.exchanges.balance(f, &sim.particles))
        .collect();
    match mode {
        Mode::Quiet => {}
        Mode::Json => emit(&json!({
            "event": "summary",
            "steps": sim.step,
            "session_steps": s.steps,
            "resumed_at": record.resumed_at,
            "simulated_time": sim.time,
            "wall_time": record.wall,
            "session_wall_time": s.wall,
            "particle_steps_per_second": rate,
            "contacts": { "min": cmin, "mean": cmean, "max": cmax, "final": sim.live_contacts },
            "broad_phase_rebuilds": sim.verlet.rebuilds,
            "ledger_balance_error": drift,
            "ledger_balance_error_relative": relative,
            "energy_total": l.total(),
            "checkpoints_written": s.checkpoints,
            "fields": fields.iter().map(|b| json!({
                "name": b.name,
                "stored": b.stored,
                "initial": b.ledger.initial,
                "from_fixed_bodies": b.ledger.boundary,
                "inflow": b.ledger.inflow,
                "outflow": b.ledger.outflow,
                "balance_error": b.error,
                "largest_step_ratio": b.ledger.stability,
            })).collect::<Vec<_>>(),
            "bonds": (!sim.bonds.is_empty()).then(|| json!({
                "made": sim.bonds.set.made,
                "intact": sim.bonds.set.list.len(),
                "broken": sim.bonds.set.broken,
                "removed": sim.bonds.set.removed,
                "released_energy": l.broken,
            })),
            "ranks": sim.ranks().map_or(1, |r| r.size()),
            "exchange_time": sim.timing.exchange,
            "output_dir": dir.display().to_string(),
            "files": files,
        })),
        Mode::Bar => {
            let resumed = if record.resumed_at.is_empty() {
                String::new()
            } else {
                let at: Vec<String> = record.resumed_at.iter().map(u64::to_string).collect();
                format!(" (resumed at step {})", at.join(", "))
            };
            let mut rows = vec![
                ("steps", format!("{}{resumed}", sim.step)),
                ("simulated time", format!("{:.6e} s", sim.time)),
                (
                    "wall time",
                    format!("{:.2} s (this session {:.2} s)", record.wall, s.wall),
                ),
                ("particle-steps/s", format!("{rate:.3e}")),
                (
                    "contacts min/mean/max",
                    format!(
                        "{cmin} / {cmean:.3} / {cmax} (now {}, {} broad-phase rebuilds)",
                        sim.live_contacts,
                        sim.verlet.rebuilds
                    ),
                ),
                (
                    "ledger balance error",
                    format!("{drift:.3e} J ({relative:.3e} of the largest energy change)"),
                ),
                (
                    "energy now",
                    format!(
                        "total {:.6e} J: kinetic {:.3e}, potential {:.3e}, elastic {:.3e}, dissipated {:.3e}",
                        l.total(),
                        l.kinetic + l.rotational,
                        l.potential,
                        l.elastic,
                        l.friction + l.damping + l.nonviscous + l.broken
                    ),
                ),
                ("checkpoints written", s.checkpoints.to_string()),
            ];
            if !sim.bonds.is_empty() {
                let set = &sim.bonds.set;
                rows.push((
                    "bonds",
                    format!(
                        "{} intact of {} made: {} broken ({:.3e} J released), {} removed \
                         with their spheres",
                        set.list.len(),
                        set.made,
                        set.broken,
                        l.broken,
                        set.removed
                    ),
                ));
            }
            for b in &fields {
                let u = &b.quantity_unit;
                rows.push((
                    "field",
                    format!(
                        "{}: stored {:.6e} {u} = {:.6e} at t = 0 + {:.6e} from walls and \
                         meshes{}, balance error {:.3e} {u}; largest dt H / (m c) {:.3e}",
                        b.name,
                        b.stored,
                        b.ledger.initial,
                        b.ledger.boundary,
                        match (b.ledger.inflow, b.ledger.outflow) {
                            (0.0, 0.0) => String::new(),
                            (i, o) => format!(" + {i:.6e} brought in - {o:.6e} carried out"),
                        },
                        b.error,
                        b.ledger.stability
                    ),
                ));
            }
            if let Some(r) = sim.ranks() {
                let share = sim.timing.exchange / sim.timing.total().max(1e-9);
                rows.push((
                    "ranks",
                    format!(
                        "{}; rank 0 spent {:.2} s exchanging ({:.1} % of its step time)",
                        r.size(),
                        sim.timing.exchange,
                        100.0 * share
                    ),
                ));
            }
            crate::progress::print(format_args!("run summary"));
            for (k, v) in rows {
                crate::progress::print(format_args!("  {k:<22} {v}"));
            }
            crate::progress::print(format_args!(
                "  {:<22} {}: {}",
                "files written",
                dir.display(),
                files.join(", ")
            ));
        }
    }
}
