//! Polyhedra for the verification suite: cube vertices as scene text, and the tilt of a
//! body's faces.

use dem_api::nalgebra::{UnitQuaternion, Vector3};
use dem_core::model::particles::Shape;
use dem_core::Simulation;

/// The eight corners of a cube of side `a` (m) centred on `c`, rotated by `rot`, as a RON
/// list of points.
pub fn cube(c: [f64; 3], a: f64, rot: UnitQuaternion<f64>) -> String {
    let mut out = Vec::new();
    for k in 0..8 {
        let v = Vector3::from(c) + rot * corner(k) * a;
        out.push(format!("({:.17e}, {:.17e}, {:.17e})", v.x, v.y, v.z));
    }
    format!("[{}]", out.join(", "))
}

/// Corner `k` (0..8) of the unit cube centred on the origin.
pub fn corner(k: usize) -> Vector3<f64> {
    let s = |b: usize| if k & (1 << b) != 0 { 0.5 } else { -0.5 };
    Vector3::new(s(0), s(1), s(2))
}

/// Height of the lowest corner of a cube of side `a` rotated by `rot` below its centre, m.
pub fn half_height(a: f64, rot: UnitQuaternion<f64>) -> f64 {
    (0..8).map(|k| (rot * corner(k) * a).z).fold(0.0, f64::max)
}

/// Polyhedral particle ids.
pub fn ids(sim: &Simulation) -> Vec<usize> {
    (0..sim.particles.len())
        .filter(|&i| matches!(sim.particles.shape[i], Shape::Polyhedron(_)))
        .collect()
}

/// The largest `-n_f . z` over the faces of body `i`: 1 when a face lies flat, facing down.
pub fn flatness(sim: &Simulation, i: usize) -> f64 {
    let Shape::Polyhedron(b) = &sim.particles.shape[i] else {
        panic!("not a polyhedron")
    };
    b.data
        .planes
        .iter()
        .map(|f| -(sim.particles.ori[i] * f.normal.na()).z)
        .fold(f64::NEG_INFINITY, f64::max)
}

/// A flat floor mesh `z = 0` of `squares` unit-wide squares side by side along x (from
/// `x = -squares / 2`), `-1 <= y <= 1`, each split into two triangles along a diagonal;
/// written to `target/test-meshes/NAME.obj`, as a `Mesh` body (RON).
pub fn floor_mesh(name: &str, squares: usize) -> String {
    let x0 = -(squares as f64) / 2.0;
    let mut vertices = Vec::new();
    for i in 0..=squares {
        let x = x0 + i as f64;
        vertices.push([x, -1.0, 0.0]);
        vertices.push([x, 1.0, 0.0]);
    }
    let mut faces = Vec::new();
    for i in 0..squares {
        let (a, b, c, d) = (2 * i, 2 * i + 2, 2 * i + 3, 2 * i + 1);
        faces.push([a, b, c]);
        faces.push([a, c, d]);
    }
    let path = crate::mesh::write_obj(name, &vertices, &faces);
    format!("Mesh(file: \"{}\", material: \"steel\")", path.display())
}
