//! The bodies of dem's fuzz targets: each takes arbitrary bytes and must return without a
//! panic, its result finite or a typed error. The cargo-fuzz targets in `fuzz/` call them
//! under libFuzzer; `tests/fuzz_seeded.rs` runs each on seeded mutations of real inputs in
//! the test suite.
//!
//! What they leave out, on purpose: the size of a scene (a `Lattice` of 1000³ spheres is
//! valid and takes its time and memory), so [`scene`] expands only scenes of at most
//! [`MAX_PARTICLES`] particles by a cheap count of their generators.

use dem_convex::{contact, ContactOptions, Polyhedron};
use dem_core::scene::{expand_bodies, BodySpec};
use dem_core::{Checkpoint, Scene};
use nalgebra::Point3;
use std::path::Path;

/// Largest scene [`scene`] expands into particles.
pub const MAX_PARTICLES: u64 = 2_000;

/// A scene's text: parsed, and expanded into particles (generators, walls, meshes read
/// relative to the current directory) when small.
pub fn scene(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(scene) = Scene::parse(&text, Path::new("fuzz.ron")) else {
        return;
    };
    let count: u64 = scene
        .bodies
        .iter()
        .map(|b| match b {
            BodySpec::Lattice { count, .. } => count.iter().map(|&c| c as u64).product(),
            BodySpec::RandomFill { count, .. } => *count as u64,
            BodySpec::Rocks { count, points, .. } => *count as u64 * (*points as u64).max(1),
            BodySpec::Csv { .. } | BodySpec::Mesh { .. } => MAX_PARTICLES + 1,
            _ => 1,
        })
        .fold(0u64, u64::saturating_add);
    if count > MAX_PARTICLES {
        return;
    }
    let index = scene
        .materials
        .keys()
        .enumerate()
        .map(|(i, n)| (n.clone(), i as u32))
        .collect();
    let mut p = Default::default();
    let _ = expand_bodies(
        &scene,
        &index,
        &dem_core::model::plugin_body::NoShapes,
        &mut p,
    );
}

/// A mesh file's content, as STL (`obj` false) or OBJ: its triangles are finite.
pub fn mesh(data: &[u8], obj: bool) {
    let path = Path::new(if obj { "fuzz.obj" } else { "fuzz.stl" });
    if let Ok(tris) = dem_core::model::mesh::read::parse_triangles(data, path) {
        assert!(tris.iter().flatten().flatten().all(|x| x.is_finite()));
    }
}

/// A CSV file's content: its spheres are finite.
pub fn csv(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(spheres) = dem_core::scene::csv::parse(&text, Path::new("fuzz.csv")) {
        for s in spheres {
            assert!(s.center.iter().chain(&s.velocity).all(|x| x.is_finite()));
        }
    }
}

/// A checkpoint file's content: decoded or refused, and its scene parsed again.
pub fn checkpoint(data: &[u8]) {
    if let Ok(ck) = Checkpoint::from_bytes(data, Path::new("fuzz.ckpt")) {
        let _ = ck.scene();
        let _ = ck.particle_count() + ck.contact_count();
    }
}

/// Two convex hulls of points read from the bytes (little-endian i16 coordinates in
/// thousandths, at most 24 points each): their contact is finite, or a typed error.
pub fn convex(data: &[u8]) {
    let Some((&split, rest)) = data.split_first() else {
        return;
    };
    let coords: Vec<f64> = rest
        .chunks_exact(2)
        .map(|c| f64::from(i16::from_le_bytes([c[0], c[1]])) * 1e-3)
        .collect();
    let points: Vec<Point3<f64>> = coords
        .chunks_exact(3)
        .map(|c| Point3::new(c[0], c[1], c[2]))
        .take(48)
        .collect();
    let k = (split as usize % 21 + 4).min(points.len());
    let (a, b) = points.split_at(k);
    let (Ok(a), Ok(b)) = (Polyhedron::from_points(a), Polyhedron::from_points(b)) else {
        return;
    };
    let size = a.diameter().max(b.diameter());
    if let Ok(c) = contact(&a, &b, &ContactOptions::for_size(size)) {
        let values = [c.area, c.volume, c.gap, c.conditioning];
        assert!(
            c.point
                .iter()
                .chain(c.normal.iter())
                .chain(&values)
                .all(|x| x.is_finite()),
            "{c:?}"
        );
    }
}
