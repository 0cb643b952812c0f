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
    // Written whole and renamed into place: tests running at once may write the same
    // mesh, and a reader must never see a file another test has just truncated.
    static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("{name}.obj"));
    let part = dir.join(format!("{name}.obj.{}.{k}.part", std::process::id()));
    std::fs::write(&part, text).expect("mesh file is writable");
    std::fs::rename(&part, &path).expect("mesh file can be renamed into place");
    path
}

/// A floor over [-0.05, 0.15]^2 at z = 0: a grid of jittered nodes, each cell split along
/// one diagonal or the other, and some cells split into four around their centre (vertices
/// where eight edges meet).
pub fn jittered_floor() -> PathBuf {
    let n = 20;
    let h = 0.01;
    let jitter = |i: usize, j: usize, k: usize| -> f64 {
        // Deterministic pseudo-random offset in (-0.2 h, 0.2 h) of inner nodes.
        if i == 0 || j == 0 || i == n || j == n {
            return 0.0;
        }
        let x = ((i * 7919 + j * 104_729 + k * 1299) % 1000) as f64 / 1000.0;
        (x - 0.5) * 0.4 * h
    };
    let mut v = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let x = -0.05 + i as f64 * h + jitter(i, j, 1);
            let y = -0.05 + j as f64 * h + jitter(i, j, 2);
            v.push([x, y, 0.0]);
        }
    }
    let id = |i: usize, j: usize| j * (n + 1) + i;
    let mut f = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            match (i * 3 + j * 5) % 3 {
                0 => f.extend([[a, b, c], [a, c, d]]),
                1 => f.extend([[a, b, d], [b, c, d]]),
                _ => {
                    let m = v.len();
                    let (p, q) = (v[a], v[c]);
                    v.push([(p[0] + q[0]) / 2.0, (p[1] + q[1]) / 2.0, 0.0]);
                    f.extend([[a, b, m], [b, c, m], [c, d, m], [d, a, m]]);
                }
            }
        }
    }
    write_obj("floor", &v, &f)
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
