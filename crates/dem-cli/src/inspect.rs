//! `dem inspect`: what a checkpoint holds and the size of each part.

use dem_core::{Checkpoint, DemError};
use std::path::Path;

/// Prints the step, particles, contacts, plugins and part sizes of the checkpoint `path`.
pub fn print(path: &Path) -> Result<(), DemError> {
    let ck = Checkpoint::read(path)?;
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let (n, c) = (ck.particle_count(), ck.contact_count());
    println!(
        "{}: step {} of {}, t = {:.6e} s, dt = {:.6e} s, {n} particles, {c} contacts, {total} bytes",
        path.display(),
        ck.step,
        ck.end_step,
        ck.time,
        ck.dt
    );
    println!("  scene {}", ck.scene_origin.display());
    for p in &ck.plugins {
        println!(
            "  plugin {} {}: {}",
            p.name,
            p.version,
            p.functors.join(", ")
        );
    }
    let per = |bytes: usize, count: usize| {
        if count > 0 {
            format!(" ({:.1} bytes each)", bytes as f64 / count as f64)
        } else {
            String::new()
        }
    };
    for (part, bytes) in ck.breakdown() {
        let each = match part {
            "particles" | "verlet" => per(bytes, n),
            "contacts" => per(bytes, c),
            _ => String::new(),
        };
        println!("  {part:<10} {bytes:>10} bytes{each}");
    }
    Ok(())
}
