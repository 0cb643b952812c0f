//! The memory a scene will take, estimated before anything is built: a scene whose
//! generators ask for more than the machine can hold (a `Lattice` of 1000³ spheres) is
//! refused at once with the estimate, instead of running for a minute and then failing an
//! allocation.

use super::{BodySpec, Scene};
use crate::support::error::DemError;

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

/// The most the inlets of `scene` can insert when nothing removes particles (no outlet):
/// an inlet's `total`, or its rate by number over its time window when the scene's
/// duration is a time (a rate by mass, without a `total`, is not counted: the count
/// depends on the sizes drawn); an inserted clump counts its members; 0 with an outlet.
pub fn inserted_count(scene: &Scene) -> u64 {
    let end = match scene.duration {
        super::Duration::Time(t) => Some(t),
        super::Duration::Steps(_) => None,
    };
    let inserted = |inlet: &crate::engines::inlet::InletSpec| -> u64 {
        let by_rate = match (inlet.rate, end) {
            (crate::engines::inlet::Rate::Number(rate), Some(end)) => {
                let window = inlet.end.map_or(end, |e| e.min(end)) - inlet.start;
                // Saturating: a huge product counts as u64::MAX.
                Some((rate * window.max(0.0)).floor() as u64)
            }
            _ => None,
        };
        let bodies = match (inlet.total, by_rate) {
            (Some(t), Some(r)) => t.min(r),
            (Some(t), None) => t,
            (None, Some(r)) => r,
            (None, None) => 0,
        };
        match &inlet.shape {
            crate::engines::template::Template::Clump(name) => {
                bodies.saturating_mul(members(scene, name))
            }
            _ => bodies,
        }
    };
    match scene.outlets.is_empty() {
        true => scene
            .inlets
            .iter()
            .map(inserted)
            .fold(0, u64::saturating_add),
        false => 0,
    }
}

/// Member spheres of the scene's clump template `name` (1 for a template read from a file,
/// or unknown: its size is known only once read).
fn members(scene: &Scene, name: &str) -> u64 {
    scene
        .clump_templates
        .get(name)
        .and_then(|t| t.members.as_ref())
        .map_or(1, |m| m.len().max(1) as u64)
}

/// Particles the generators of `scene` will make (meshes and CSV files not counted: their
/// size is known only once read; a clump counts its members), plus [`inserted_count`].
pub fn particle_count(scene: &Scene) -> u64 {
    scene
        .bodies
        .iter()
        .map(|b| match b {
            BodySpec::Lattice { count, .. } => count
                .iter()
                .fold(1u64, |n, &c| n.saturating_mul(u64::from(c))),
            BodySpec::RandomFill { count, .. }
            | BodySpec::Rocks { count, .. }
            | BodySpec::ShapeFill { count, .. } => u64::from(*count),
            BodySpec::Box { .. } => 6,
            BodySpec::ClumpFill {
                count, template, ..
            } => u64::from(*count).saturating_mul(members(scene, template)),
            BodySpec::Clump { template, .. } => members(scene, template),
            _ => 1,
        })
        .fold(inserted_count(scene), u64::saturating_add)
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
            "{}: the scene makes {n} particles, which need about {:.1} GB (about {} \
             bytes each with their contacts and broad phase); this machine has {:.1} GB \
             available",
            match inserted_count(scene) {
                0 => "bodies",
                _ => "bodies, inlets",
            },
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

    #[test]
    fn inlets_count_with_what_they_can_insert() {
        let text = |inlet: &str, outlet: &str, duration: &str| {
            let t = format!(
                r#"Scene(materials: {{ "m": (density: 1, young: 1) }}, laws: [], bodies: [],
                   inlets: [Inlet(name: "in", region: Box(min: (0, 0, 0), max: (1, 1, 1)),
                                  radius: Const(0.01), material: "m", seed: 1, {inlet})],
                   outlets: [{outlet}], timestep: Fixed(1e-6), duration: {duration})"#
            );
            Scene::parse(&t, Path::new("feed.ron")).unwrap()
        };
        // 1e9 per second from t = 2 s to the end at 10 s.
        let flood = text("rate: Number(1e9), start: 2", "", "Time(10)");
        assert_eq!(particle_count(&flood), 8_000_000_000);
        let e = check(&flood, Some(8 << 30)).unwrap_err().to_string();
        assert!(
            e.contains("feed.ron: bodies, inlets: the scene makes 8000000000 particles"),
            "{e}"
        );
        // A window, a total, a duration in steps, an outlet.
        let window = text("rate: Number(1e9), start: 2, end: 3", "", "Time(10)");
        assert_eq!(particle_count(&window), 1_000_000_000);
        let total = text("rate: Number(1e9), total: 500", "", "Time(10)");
        assert_eq!(particle_count(&total), 500);
        assert_eq!(
            particle_count(&text("rate: Number(1e9)", "", "Steps(10)")),
            0
        );
        assert_eq!(particle_count(&text("rate: Mass(1e9)", "", "Time(10)")), 0);
        let drained = text(
            "rate: Number(1e9)",
            r#"Outlet(name: "out", region: Box(min: (0, 0, -1), max: (1, 1, 0)))"#,
            "Time(10)",
        );
        assert_eq!(particle_count(&drained), 0);
    }

    #[test]
    fn clumps_count_with_their_members() {
        let text = r#"Scene(materials: { "m": (density: 1, young: 1) }, laws: [],
            clump_templates: { "tri": (members: [((0, 0, 0), 1), ((1, 0, 0), 1), ((0, 1, 0), 1)]),
                               "rice": (file: "rice.csv") },
            bodies: [ClumpFill(template: "tri", min: (0, 0, 0), max: (1, 1, 1), count: 1000000000,
                               material: "m", seed: 1),
                     Clump(template: "tri", position: (0, 0, 0), material: "m"),
                     Clump(template: "rice", position: (0, 0, 0), material: "m")],
            inlets: [Inlet(name: "in", region: Box(min: (0, 0, 0), max: (1, 1, 1)),
                           shape: Clump("tri"), radius: Const(0.01), material: "m", seed: 1,
                           rate: Number(1e9), total: 7)],
            timestep: Fixed(1e-6), duration: Time(10))"#;
        let scene = Scene::parse(text, Path::new("clumps.ron")).unwrap();
        assert_eq!(inserted_count(&scene), 21);
        assert_eq!(particle_count(&scene), 3_000_000_000 + 3 + 1 + 21);
        let e = check(&scene, Some(8 << 30)).unwrap_err().to_string();
        assert!(e.contains("the scene makes 3000000025 particles"), "{e}");
    }

    #[test]
    fn plugin_shape_fills_count_their_bodies() {
        let big = scene(
            r#"ShapeFill(shape: "Superquadric", params: (half_axes: (1, 1, 1)), min: (0, 0, 0),
                         max: (1, 1, 1), count: 4000000000, material: "m", seed: 1),
               Shaped(shape: "Superquadric", params: (), position: (0, 0, 0), material: "m")"#,
        );
        assert_eq!(particle_count(&big), 4_000_000_001);
        let e = check(&big, Some(8 << 30)).unwrap_err().to_string();
        assert!(e.contains("the scene makes 4000000001 particles"), "{e}");
    }
}
