//! The memory a scene will take, estimated before anything is built: a scene whose
//! generators ask for more than the machine can hold (a `Lattice` of 1000³ spheres) is
//! refused at once with the estimate, instead of running for a minute and then failing an
//! allocation.

use super::{BodySpec, Scene};
use crate::error::DemError;

/// Bytes a particle takes in a run, with its share of the contacts and of the broad
/// phase: about 200 for its own arrays, 100 for the broad phase's anchors and candidate
/// pairs, 400 for each of about three contacts (a settled packing of spheres has about
/// six per sphere, each shared by two). An estimate, of the right order.
pub const BYTES_PER_PARTICLE: u64 = 1500;

/// Bytes of memory available to this process now, if the system says (Linux:
/// `MemAvailable` of `/proc/meminfo`).
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Particles the generators of `scene` will make (meshes and CSV files not counted: their
/// size is known only once read).
pub fn particle_count(scene: &Scene) -> u64 {
    scene
        .bodies
        .iter()
        .map(|b| match b {
            BodySpec::Lattice { count, .. } => count
                .iter()
                .fold(1u64, |n, &c| n.saturating_mul(u64::from(c))),
            BodySpec::RandomFill { count, .. } | BodySpec::Rocks { count, .. } => u64::from(*count),
            BodySpec::Box { .. } => 6,
            _ => 1,
        })
        .fold(0, u64::saturating_add)
}

/// Refuses a scene whose particles would take more than `available` bytes.
pub fn check(scene: &Scene, available: Option<u64>) -> Result<(), DemError> {
    let Some(available) = available else {
        return Ok(());
    };
    let n = particle_count(scene);
    let need = n.saturating_mul(BYTES_PER_PARTICLE);
    if need > available {
        let gb = |b: u64| b as f64 / 1e9;
        return Err(scene.error(format!(
            "bodies: the scene makes {n} particles, which need about {:.1} GB (about {} \
             bytes each with their contacts and broad phase); this machine has {:.1} GB \
             available",
            gb(need),
            BYTES_PER_PARTICLE,
            gb(available)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn scene(bodies: &str) -> Scene {
        let text = format!(
            r#"Scene(materials: {{ "m": (density: 1, young: 1) }}, laws: [], bodies: [{bodies}],
               timestep: Fixed(1), duration: Steps(1))"#
        );
        Scene::parse(&text, Path::new("big.ron")).unwrap()
    }

    #[test]
    fn a_scene_beyond_the_memory_is_refused_with_the_estimate() {
        let lattice = r#"Lattice(origin: (0, 0, 0), count: (1000, 1000, 1000), spacing: 1,
                          radius: 0.4, material: "m")"#;
        let big = scene(&format!(
            "{lattice}, Box(min: (-1, -1, -1), max: (2e3, 2e3, 2e3), material: \"m\")"
        ));
        assert_eq!(particle_count(&big), 1_000_000_006);
        let e = check(&big, Some(8 << 30)).unwrap_err().to_string();
        assert!(
            e.contains(
                "big.ron: bodies: the scene makes 1000000006 particles, which need about 1500.0 GB"
            ) && e.contains("this machine has 8.6 GB available"),
            "{e}"
        );
        // The settle scene's size passes.
        let small = scene(
            r#"RandomFill(min: (0, 0, 0), max: (1, 1, 1), count: 1000, radius: Const(0.01), material: "m", seed: 1)"#,
        );
        check(&small, Some(8 << 30)).unwrap();
        assert!(available_memory().is_some_and(|b| b > 0));
    }
}
