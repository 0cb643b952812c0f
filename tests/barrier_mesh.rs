//! IPC's convergent formulation on triangle meshes (reference 004): a sphere near a mesh
//! under the barrier law feels the gradient of
//! `Psi = sum_faces b(d_t) - sum_interior_edges b(d_e) + sum_interior_vertices b(d_v)`.
//!
//! The expected forces are computed here from the mesh alone, by brute force over every
//! triangle, edge and vertex with this file's own distance functions, and the barrier in
//! closed form: on a flat or convex mesh, one surface (the force of a plane at the same
//! distance, wherever the sphere is over faces, shared edges or vertices); in a concave
//! crease, both faces minus the crease's edge term.

use dem_core::Simulation;
use dem_verification::mesh::write_obj;
use dem_verification::sim_from_text;
use nalgebra::Vector3;
use std::f64::consts::PI;

const R: f64 = 0.01;
const KAPPA: f64 = 1e7;
const DHAT: f64 = 1e-3;

type V = Vector3<f64>;

/// Magnitude of the barrier force at gap `d`: `-dE/dd` with `E = kappa A dhat beta(d/dhat)`,
/// `A = 2 pi R dhat`, `beta(x) = -(x - 1)^2 ln x`.
fn barrier_force(d: f64) -> f64 {
    barrier_force_with(KAPPA, d)
}

/// [`barrier_force`] with barrier stiffness `kappa`, Pa.
fn barrier_force_with(kappa: f64, d: f64) -> f64 {
    if d >= DHAT {
        return 0.0;
    }
    let x = d / DHAT;
    let beta1 = -2.0 * (x - 1.0) * x.ln() - (x - 1.0).powi(2) / x;
    -kappa * 2.0 * PI * R * DHAT * beta1
}

/// Closest point of segment `a`-`b` to `p`.
fn on_segment(p: &V, a: &V, b: &V) -> V {
    let t = ((p - a).dot(&(b - a)) / (b - a).norm_squared()).clamp(0.0, 1.0);
    a + (b - a) * t
}

/// Closest point of triangle `t` to `p`: the projection when it falls inside (by
/// barycentric coordinates), else the closest of the three edges' points.
fn on_triangle(p: &V, t: &[V; 3]) -> V {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let q = p - n * (n.dot(&(p - t[0])) / n.norm_squared());
    let inside = (0..3).all(|k| {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        (b - a).cross(&(q - a)).dot(&n) >= 0.0
    });
    if inside {
        return q;
    }
    (0..3)
        .map(|k| on_segment(p, &t[k], &t[(k + 1) % 3]))
        .min_by(|x, y| (p - x).norm().total_cmp(&(p - y).norm()))
        .unwrap()
}

/// A triangle mesh as vertex list and faces.
struct Mesh {
    v: Vec<V>,
    f: Vec<[usize; 3]>,
}

impl Mesh {
    /// Nodes `x[i], y[j]` at height `z(x)`; each cell split along a diagonal that alternates
    /// from cell to cell, so that vertices have four to eight edges.
    fn grid(xs: &[f64], ys: &[f64], z: impl Fn(f64) -> f64) -> Mesh {
        let mut v = Vec::new();
        for &y in ys {
            for &x in xs {
                v.push(V::new(x, y, z(x)));
            }
        }
        let id = |i: usize, j: usize| j * xs.len() + i;
        let mut f = Vec::new();
        for j in 0..ys.len() - 1 {
            for i in 0..xs.len() - 1 {
                let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
                if (i + j) % 2 == 0 {
                    f.extend([[a, b, c], [a, c, d]]);
                } else {
                    f.extend([[a, b, d], [b, c, d]]);
                }
            }
        }
        Mesh { v, f }
    }

    /// Force on a sphere centred at `p` from `Psi`, by brute force over the primitives.
    fn psi_force(&self, p: &V) -> V {
        let push = |closest: V| -> V {
            let d = p - closest;
            d / d.norm() * barrier_force(d.norm() - R)
        };
        let mut edges: std::collections::BTreeMap<(usize, usize), usize> = Default::default();
        let mut force = V::zeros();
        for f in &self.f {
            force += push(on_triangle(p, &f.map(|i| self.v[i])));
            for k in 0..3 {
                let (a, b) = (f[k], f[(k + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
        let mut interior = vec![true; self.v.len()];
        for (&(a, b), &users) in &edges {
            if users == 2 {
                force -= push(on_segment(p, &self.v[a], &self.v[b]));
            } else {
                interior[a] = false;
                interior[b] = false;
            }
        }
        for (i, x) in self.v.iter().enumerate() {
            if interior[i] {
                force += push(*x);
            }
        }
        force
    }

    fn write(&self, name: &str) -> std::path::PathBuf {
        let v: Vec<[f64; 3]> = self.v.iter().map(|x| [x.x, x.y, x.z]).collect();
        write_obj(name, &v, &self.f)
    }
}

/// One sphere at `centre` with velocity `vel`, the mesh, the barrier law of stiffness `kappa`.
fn scene(
    mesh: &std::path::Path,
    convergent: bool,
    kappa: f64,
    centre: V,
    vel: V,
    g: f64,
) -> Simulation {
    let text = format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e9, poisson: 0.25, friction: 0.0) }},
        geometry: [(shapes: ("Facet", "Sphere"), functor: "Cg2_Facet_Sphere_L6Geom",
                    params: (convergent: {convergent}))],
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_Barrier",
                params: (kappa: {kappa:e}, dhat: {DHAT:e}, mu_s: 0, mu_k: 0))],
        bodies: [
            Sphere(center: ({:e}, {:e}, {:e}), radius: {R:e}, material: "m",
                   velocity: ({:e}, {:e}, {:e})),
            Mesh(file: "{}", material: "m"),
        ],
        gravity: (0, 0, {g:e}),
        timestep: Fixed(2e-6),
        duration: Steps(1),
    )"#,
        centre.x,
        centre.y,
        centre.z,
        vel.x,
        vel.y,
        vel.z,
        mesh.display()
    );
    sim_from_text(&text, "barrier_mesh.ron").expect("scene builds")
}

/// Contact force on the sphere after one step, at rest at `centre`.
fn force_at(mesh: &std::path::Path, convergent: bool, centre: V) -> V {
    let mut sim = scene(mesh, convergent, KAPPA, centre, V::zeros(), 0.0);
    sim.step().unwrap();
    sim.particles.force[0]
}

/// Deterministic points in [0, 1): a Weyl sequence.
fn weyl(i: usize, a: f64) -> f64 {
    (i as f64 * a).fract()
}

#[test]
fn flat_mesh_feels_one_surface_over_faces_edges_and_vertices() {
    let nodes: Vec<f64> = (0..=6).map(|i| -0.03 + 0.01 * i as f64).collect();
    let mesh = Mesh::grid(&nodes, &nodes, |_| 0.0);
    let path = mesh.write("barrier_flat");
    // Over face interiors (random), exactly over edges and interior vertices, and over
    // boundary vertices and edges of the mesh.
    let mut points: Vec<(f64, f64)> = (0..40)
        .map(|i| {
            (
                -0.02 + 0.04 * weyl(i, 0.618_034),
                -0.02 + 0.04 * weyl(i, 0.754_878),
            )
        })
        .collect();
    points.extend([
        (0.0, 0.0),
        (0.01, 0.0),
        (0.005, 0.0),
        (0.005, 0.005),
        (0.013, 0.007),
        (-0.03, -0.03),
        (0.0, -0.03),
        (0.03, 0.012),
    ]);
    let mut worst = [0.0f64; 2];
    for (i, &(x, y)) in points.iter().enumerate() {
        let gap = DHAT * (0.05 + 0.9 * weyl(i, 0.414_214));
        let centre = V::new(x, y, R + gap);
        let expected = V::new(0.0, 0.0, barrier_force(gap));
        assert!(
            (mesh.psi_force(&centre) - expected).norm() < 1e-9 * expected.norm(),
            "the brute-force Psi is one plane at ({x}, {y})"
        );
        for (k, convergent) in [false, true].into_iter().enumerate() {
            let f = force_at(&path, convergent, centre);
            let err = (f - expected).norm() / expected.norm();
            worst[k] = worst[k].max(err);
            assert!(
                err < 1e-9,
                "convergent {convergent}, sphere over ({x}, {y}), gap {gap:e}: force {f:?}, \
                 expected {expected:?}"
            );
        }
    }
    println!(
        "flat mesh, {} positions: largest relative force error: closest feature {:.1e}, \
         convergent {:.1e}",
        points.len(),
        worst[0],
        worst[1]
    );
}

#[test]
fn concave_crease_adds_faces_and_subtracts_the_crease_edge() {
    // A valley along y: z = |x| tan(20 deg), nodes 1 cm apart.
    let slope = 20f64.to_radians().tan();
    let xs = [-0.02, -0.01, 0.0, 0.01, 0.02];
    let ys: Vec<f64> = (0..=6).map(|j| -0.03 + 0.01 * j as f64).collect();
    let mesh = Mesh::grid(&xs, &ys, |x| x.abs() * slope);
    let path = mesh.write("barrier_valley");
    println!("position | Psi force (brute force) | dem | faces only (no edge term)");
    for (x, y, h) in [
        (0.0, 0.003, 0.2),
        (0.0002, 0.0, 0.3),
        (-0.0001, 0.005, 0.25),
        (0.0003, 0.01, 0.2),
    ] {
        // Height above the crease such that each face is at gap h dhat.
        let centre = V::new(x, y, (R + h * DHAT) / 20f64.to_radians().cos());
        let expected = mesh.psi_force(&centre);
        let f = force_at(&path, true, centre);
        // What the faces alone would give: the sum the edge term corrects.
        let faces: V = mesh
            .f
            .iter()
            .map(|t| {
                let d = centre - on_triangle(&centre, &t.map(|i| mesh.v[i]));
                d / d.norm() * barrier_force(d.norm() - R)
            })
            .sum();
        let show = |v: V| format!("({:.6e}, {:.6e}, {:.6e})", v.x, v.y, v.z);
        println!(
            "({x}, {y}) | {} | {} | {}",
            show(expected),
            show(f),
            show(faces)
        );
        assert!(
            (f - expected).norm() < 1e-9 * expected.norm(),
            "crease at ({x}, {y}): {f:?} vs {expected:?}"
        );
        assert!(
            (faces - expected).norm() > 1e-3 * expected.norm(),
            "the edge term matters here"
        );
    }
}

#[test]
fn convex_ridge_feels_one_rounded_surface() {
    // A ridge along y: z = -|x| tan(30 deg).
    let slope = 30f64.to_radians().tan();
    let xs = [-0.02, -0.01, 0.0, 0.01, 0.02];
    let ys: Vec<f64> = (0..=6).map(|j| -0.03 + 0.01 * j as f64).collect();
    let mesh = Mesh::grid(&xs, &ys, |x| -x.abs() * slope);
    let path = mesh.write("barrier_ridge");
    for (x, y, gap) in [(0.0, 0.0, 0.3), (0.0001, 0.004, 0.5), (-0.004, 0.002, 0.4)] {
        // Above the ridge: the nearest point of the mesh is on the ridge line, or on a face.
        let mut centre = V::new(x, y, R + gap * DHAT);
        if x.abs() > 0.001 {
            let n = V::new(x.signum() * slope, 0.0, 1.0).normalize();
            centre = V::new(x, y, -x.abs() * slope) + n * (R + gap * DHAT);
        }
        let expected = mesh.psi_force(&centre);
        // One surface: the force of the single nearest point of the mesh.
        let nearest = mesh
            .f
            .iter()
            .map(|t| on_triangle(&centre, &t.map(|i| mesh.v[i])))
            .min_by(|a, b| (centre - a).norm().total_cmp(&(centre - b).norm()))
            .unwrap();
        let d = centre - nearest;
        let one = d / d.norm() * barrier_force(d.norm() - R);
        assert!(
            (expected - one).norm() < 1e-9 * one.norm(),
            "Psi is one surface"
        );
        for convergent in [false, true] {
            let f = force_at(&path, convergent, centre);
            assert!(
                (f - one).norm() < 1e-9 * one.norm(),
                "convergent {convergent} at ({x}, {y}): {f:?} vs {one:?}"
            );
        }
    }
}

#[test]
fn sphere_sliding_across_a_mesh_keeps_its_height_and_energy() {
    // Frictionless sliding at 0.2 m/s over 6 cm of a flat triangulated floor, resting on the
    // barrier at its equilibrium gap: the height must not feel the edges and vertices
    // (with faces only, the force doubles over every edge).
    let nodes: Vec<f64> = (0..=10).map(|i| -0.05 + 0.01 * i as f64).collect();
    let mesh = Mesh::grid(&nodes, &nodes, |_| 0.0);
    let path = mesh.write("barrier_slide");
    // Barrier stiffness chosen so that the sphere rests at 0.3 dhat under gravity.
    let m = 2500.0 * 4.0 / 3.0 * PI * R.powi(3);
    let g_eq = 0.3 * DHAT;
    let kappa = KAPPA * m * 9.81 / barrier_force(g_eq);
    let mut sim = scene(
        &path,
        true,
        kappa,
        V::new(-0.03, -0.013, R + g_eq),
        V::new(0.2, 0.07, 0.0),
        -9.81,
    );
    sim.step().unwrap();
    let e0 = sim.ledger.total();
    assert!(
        (barrier_force_with(kappa, g_eq) - m * 9.81).abs() < 1e-12 * m * 9.81,
        "at rest"
    );
    let mut worst = 0.0f64;
    for _ in 0..150_000 {
        sim.step().unwrap();
        worst = worst.max((sim.particles.pos[0].z - R - g_eq).abs());
    }
    let ledger = ((sim.ledger.total() - e0) / e0).abs();
    println!(
        "sliding 6 cm over the mesh (kappa {kappa:.3e} Pa): largest height change {worst:.3e} m (equilibrium gap \
         {g_eq:.4e} m), ledger error {ledger:.2e}"
    );
    assert!(sim.particles.pos[0].x > 0.025, "it crossed the mesh");
    assert!(worst < 1e-9 * DHAT, "height changed by {worst:e} m");
    assert!(ledger < 1e-9, "ledger error {ledger:e}");
}
