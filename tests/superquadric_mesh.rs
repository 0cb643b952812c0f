//! Superquadrics on triangle meshes: thrown onto a jittered floor of triangles, an
//! ellipsoid moves as on a wall (one contact, handed from facet to facet); resting on a
//! shared edge or vertex, it is held by one facet at the wall's height.

use dem_verification::mesh::{jittered_floor, write_obj};
use dem_verification::sim_from_text;
use dem_verification::superquadric::{ellipsoid, scene, FLOOR};

#[test]
fn an_ellipsoid_on_a_floor_of_triangles_moves_as_on_a_wall() {
    // Thrown tumbling and sliding onto the jittered floor (many triangles, vertices where
    // up to eight edges meet), it bounces, slides and rolls over dozens of facets: one
    // contact at each step, handed from facet to facet, and the trajectory of the same
    // throw onto an infinite wall.
    let mesh = jittered_floor();
    let throw = ellipsoid(
        [0.012, 0.008, 0.005],
        [0.0, 0.0, 0.02],
        [0.5, 0.3, 0.1],
        ", velocity: (0.25, 0.18, 0), angular_velocity: (3, -5, 8)",
    );
    let law = "kn: 1e4, kt_kn: 0.5, restitution: 0.5";
    let build = |floor: &str| {
        let text = scene(&format!("{throw}, {floor}"), law, 9.81, 0.0, 0.2, 0.4);
        sim_from_text(&text, "mesh_floor.ron").unwrap()
    };
    let mut wall = build(FLOOR);
    let mut meshed = build(&format!(
        r#"Mesh(file: "{}", material: "m")"#,
        mesh.display()
    ));
    let mut worst: f64 = 0.0;
    let mut facets = std::collections::BTreeSet::new();
    let mut touching = 0;
    for _ in 0..wall.end_step {
        wall.step().unwrap();
        meshed.step().unwrap();
        let (a, b) = (wall.particles.pos[0], meshed.particles.pos[0]);
        worst = worst.max((a - b).norm() / a.norm());
        let live: Vec<_> = meshed.contacts.live().collect();
        assert_eq!(
            live.len(),
            wall.contacts.active(),
            "at step {}",
            meshed.step
        );
        assert!(live.len() <= 1);
        if let Some(c) = live.first() {
            facets.insert(c.a.max(c.b));
            touching += 1;
        }
    }
    println!(
        "end x = {:?}; {touching} steps in contact over {} facets; worst relative position \
         difference {worst:e}",
        wall.particles.pos[0],
        facets.len()
    );
    assert!(touching > wall.end_step / 2, "mostly in contact");
    assert!(facets.len() > 10, "the path crosses many facets");
    assert!(worst <= 1e-9, "{worst:e}");
}

#[test]
fn an_ellipsoid_resting_on_a_shared_edge_and_vertex_is_held_by_one_facet() {
    // A square of two triangles sharing the diagonal, and a square of four sharing the
    // centre vertex: an upright ellipsoid whose lowest point is on the diagonal, or on
    // the centre, rests at the wall's height with one contact (the owner's).
    let (a, b, c, kn) = (0.01, 0.008, 0.005, 1e4);
    let two = write_obj(
        "sq_diagonal",
        &[
            [-0.1, -0.1, 0.0],
            [0.1, -0.1, 0.0],
            [0.1, 0.1, 0.0],
            [-0.1, 0.1, 0.0],
        ],
        &[[0, 1, 2], [0, 2, 3]],
    );
    let four = write_obj(
        "sq_centre",
        &[
            [-0.1, -0.1, 0.0],
            [0.1, -0.1, 0.0],
            [0.1, 0.1, 0.0],
            [-0.1, 0.1, 0.0],
            [0.0, 0.0, 0.0],
        ],
        &[[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]],
    );
    let m = 4.0 / 3.0 * std::f64::consts::PI * a * b * c * 1000.0;
    let height = c - m * 9.81 / kn;
    for (mesh, at) in [(two, 0.03), (four, 0.0)] {
        let body = ellipsoid([a, b, c], [at, at, height], [0.0, 0.0, 0.0], "");
        let floor = format!(r#"Mesh(file: "{}", material: "m")"#, mesh.display());
        let law = format!("kn: {kn}, kt_kn: 0.5, restitution: 0.5");
        let text = scene(&format!("{body}, {floor}"), &law, 9.81, 0.0, 0.2, 0.05);
        let mut sim = sim_from_text(&text, "edge.ron").unwrap();
        for _ in 0..sim.end_step {
            sim.step().unwrap();
            assert_eq!(sim.contacts.live().count(), 1, "at step {}", sim.step);
        }
        let z = sim.particles.pos[0].z;
        println!(
            "on {}: height {z:.12} m against {height:.12} m",
            mesh.display()
        );
        assert!((z - height).abs() < 1e-12, "{z} against {height}");
    }
}
