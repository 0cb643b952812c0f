//! Meshes for tests: written as OBJ files under `target/test-meshes/`, and a scene with one
//! sphere and one mesh (or one wall, for reference).

use std::path::PathBuf;

/// Writes vertices (m) and triangles (0-based vertex indices) to `target/test-meshes/NAME.obj`
/// with every coordinate written exactly; returns the absolute path.
pub fn write_obj(name: &str, vertices: &[[f64; 3]], faces: &[[usize; 3]]) -> PathBuf {
    let dir = crate::root().join("target").join("test-meshes");
    std::fs::create_dir_all(&dir).expect("target directory is writable");
    let mut text = String::new();
    for v in vertices {
        text.push_str(&format!("v {:?} {:?} {:?}\n", v[0], v[1], v[2]));
    }
    for f in faces {
        text.push_str(&format!("f {} {} {}\n", f[0] + 1, f[1] + 1, f[2] + 1));
    }
    let path = dir.join(format!("{name}.obj"));
    std::fs::write(&path, text).expect("mesh file is writable");
    path
}

/// The boundary of a one-sphere test scene.
#[derive(Clone, Debug)]
pub enum Boundary {
    /// The infinite floor `z = 0`, normal +z.
    Floor,
    /// A mesh file, placed as it is, fixed.
    Mesh(PathBuf),
}

/// A scene with sphere 0 and one boundary, both of material `material`, with the linear
/// law (RON fields `law_params`), no output.
#[allow(clippy::too_many_arguments)]
pub fn one_sphere_scene(
    boundary: &Boundary,
    material: &str,
    law_params: &str,
    center: [f64; 3],
    radius: f64,
    velocity: [f64; 3],
    gravity: [f64; 3],
    damping: f64,
    dt: f64,
) -> String {
    let v = |a: [f64; 3]| format!("({:e}, {:e}, {:e})", a[0], a[1], a[2]);
    let body = match boundary {
        Boundary::Floor => {
            r#"Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m")"#.to_string()
        }
        Boundary::Mesh(path) => format!(r#"Mesh(file: "{}", material: "m")"#, path.display()),
    };
    format!(
        r#"Scene(
        materials: {{ "m": {material} }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: ({law_params}))],
        bodies: [
            Sphere(center: {c}, radius: {radius:e}, material: "m", velocity: {vel}),
            {body},
        ],
        gravity: {g},
        damping: {damping:e},
        timestep: Fixed({dt:e}),
        duration: Steps(1),
    )"#,
        c = v(center),
        vel = v(velocity),
        g = v(gravity),
    )
}
