//! Head-on impacts on a facet's face, on an edge where two facets meet in a ridge, and on
//! the apex of a pyramid of four facets, and on the boundary edge and vertex of a lone
//! vertical facet, give the rebound and contact duration of the same
//! impact on an infinite wall: edges and vertices are rounded (the normal points to the
//! sphere centre) and the facets sharing them report one contact between them.

use dem_verification::impact::{Collision, Impact};
use dem_verification::mesh::{one_sphere_scene, write_obj, Boundary};
use dem_verification::sim_from_text;
use std::f64::consts::PI;

const R: f64 = 0.01;
const KN: f64 = 1e5;

/// Sphere 0 falling at 1 m/s (no gravity) onto `boundary` below it at z = 0, on the axis
/// through (x, y); returns the impact and the largest number of contacts seen at once.
fn impact(boundary: &Boundary, x: f64, y: f64) -> (Impact, usize) {
    let m = 2500.0 * 4.0 / 3.0 * PI * R.powi(3);
    let dt = PI / (KN / m).sqrt() / 1000.0;
    let text = one_sphere_scene(
        boundary,
        "(density: 2500, young: 1e9, friction: 0.5)",
        &format!("kn: {KN:e}, restitution: 0.5"),
        [x, y, R + 20.0 * dt],
        R,
        [0.0, 0.0, -1.0],
        [0.0; 3],
        0.0,
        dt,
    );
    let mut sim = sim_from_text(&text, "mesh_impact.ron").unwrap();
    let mut most = 0;
    let mut probe = sim_from_text(&text, "mesh_impact.ron").unwrap();
    for _ in 0..1100 {
        probe.step().unwrap();
        most = most.max(probe.contacts.active());
    }
    (Collision::Floor { radius: R }.run(&mut sim, 100_000), most)
}

#[test]
fn face_edge_and_vertex_impacts_match_the_wall() {
    let (wall, _) = impact(&Boundary::Floor, 0.0, 0.0);
    let face = write_obj(
        "impact_face",
        &[[-0.1, -0.1, 0.0], [0.1, -0.1, 0.0], [0.0, 0.1, 0.0]],
        &[[0, 1, 2]],
    );
    // A ridge along y at z = 0, sloping down at about 22 degrees on either side.
    let ridge = write_obj(
        "impact_ridge",
        &[
            [0.0, -0.1, 0.0],
            [0.0, 0.1, 0.0],
            [-0.05, 0.0, -0.02],
            [0.05, 0.0, -0.02],
        ],
        &[[0, 1, 2], [1, 0, 3]],
    );
    // A pyramid with its apex at the origin.
    let pyramid = write_obj(
        "impact_apex",
        &[
            [0.0, 0.0, 0.0],
            [0.05, 0.05, -0.03],
            [-0.05, 0.05, -0.03],
            [-0.05, -0.05, -0.03],
            [0.05, -0.05, -0.03],
        ],
        &[[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1]],
    );
    // A vertical plate (plane x = 0) whose top boundary edge lies along y at z = 0, and
    // one pointing up with its top vertex at the origin: a lone facet's rounded features.
    let plate = write_obj(
        "impact_plate_edge",
        &[[0.0, -0.1, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, -0.1]],
        &[[0, 1, 2]],
    );
    let spike = write_obj(
        "impact_plate_vertex",
        &[[0.0, 0.0, 0.0], [0.0, 0.05, -0.1], [0.0, -0.05, -0.1]],
        &[[0, 1, 2]],
    );
    println!(
        "wall:   rebound {:.9}, duration {:.9e} s",
        wall.rebound, wall.duration
    );
    for (name, path, x, y) in [
        ("face", face, 0.01, 0.02),
        ("edge", ridge, 0.0, 0.03),
        ("vertex", pyramid, 0.0, 0.0),
        ("plate edge", plate, 0.0, 0.02),
        ("plate vertex", spike, 0.0, 0.0),
    ] {
        let (i, most) = impact(&Boundary::Mesh(path), x, y);
        let (dr, dd) = (
            i.rebound / wall.rebound - 1.0,
            i.duration / wall.duration - 1.0,
        );
        println!(
            "{name:12}: rebound {:.9}, duration {:.9e} s, relative differences {dr:.2e} {dd:.2e}, contacts at once {most}",
            i.rebound, i.duration
        );
        assert_eq!(most, 1, "{name}: one contact");
        assert!(dr.abs() < 0.01 && dd.abs() < 0.01, "{name}");
    }
}
