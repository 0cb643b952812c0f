//! A sphere sliding, then rolling, across a floor made of many irregular triangles follows
//! the trajectory it follows on an infinite wall: one contact at every step, handed over
//! from facet to facet with its state, so no force jumps at edges and vertices.

use dem_verification::mesh::{one_sphere_scene, write_obj, Boundary};
use dem_verification::sim_from_text;

/// A floor over [-0.05, 0.15]^2 at z = 0: a grid of jittered nodes, each cell split along
/// one diagonal or the other, and some cells split into four around their centre (vertices
/// where eight edges meet).
fn floor() -> std::path::PathBuf {
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

#[test]
fn floor_of_triangles_equals_infinite_wall() {
    let r = 0.005;
    // Start at the static overlap m g / kn.
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let z0 = r - m * 9.81 / 1e4;
    let build = |b: &Boundary| {
        let text = one_sphere_scene(
            b,
            "(density: 2500, young: 1e9, friction: 0.3)",
            "kn: 1e4, kt_kn: 0.5, restitution: 0.5",
            [0.0, 0.0, z0],
            r,
            [0.31, 0.23, 0.0],
            [0.0, 0.0, -9.81],
            0.0,
            2e-5,
        );
        sim_from_text(&text, "mesh_floor.ron").unwrap()
    };
    let mut wall = build(&Boundary::Floor);
    let mut mesh = build(&Boundary::Mesh(floor()));
    let mut worst: f64 = 0.0;
    let mut facets = std::collections::BTreeSet::new();
    for _ in 0..15_000 {
        wall.step().unwrap();
        mesh.step().unwrap();
        let (a, b) = (wall.particles.pos[0], mesh.particles.pos[0]);
        worst = worst.max((a - b).norm() / a.norm());
        let live: Vec<_> = mesh.contacts.live().collect();
        assert_eq!(live.len(), 1, "one contact at step {}", mesh.step);
        assert_eq!(wall.contacts.active(), 1);
        facets.insert(live[0].a.max(live[0].b));
    }
    let w = wall.particles.angvel[0];
    println!(
        "end x = {:?}, v = {:?}, w = {w:?}; facets visited {}, worst relative position difference {worst:e}",
        wall.particles.pos[0],
        wall.particles.vel[0],
        facets.len()
    );
    assert!(facets.len() > 15, "the path crosses many facets");
    assert!(worst <= 1e-9, "{worst:e}");
    // It slid, then rolled: v = w r at the end.
    let v = wall.particles.vel[0];
    assert!(
        (v.x - w.y * r).abs() < 0.02 * v.norm(),
        "rolling at the end: {v:?} {w:?}"
    );
}
