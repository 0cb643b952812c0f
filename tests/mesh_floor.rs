//! A sphere sliding, then rolling, across a floor made of many irregular triangles follows
//! the trajectory it follows on an infinite wall: one contact at every step, handed over
//! from facet to facet with its state, so no force jumps at edges and vertices.

use dem_verification::mesh::{jittered_floor as floor, one_sphere_scene, Boundary};
use dem_verification::sim_from_text;

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
