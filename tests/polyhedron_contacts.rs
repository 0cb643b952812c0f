//! Polyhedra against spheres and mesh facets, in scenes: static overlaps against the
//! closed form `m g / k_n` of the linear law.

use dem_core::model::particles::Shape;
use dem_core::Simulation;
use dem_verification::polyhedra::floor_mesh;
use dem_verification::sim_from_text;

/// The axis-aligned box `[lo, hi]` as a `Polyhedron` body of material "steel" (RON).
fn cuboid(lo: [f64; 3], hi: [f64; 3]) -> String {
    let mut corners = Vec::new();
    for k in 0..8 {
        let c = |b: usize| if k & (1 << b) != 0 { hi[b] } else { lo[b] };
        corners.push(format!("({:e}, {:e}, {:e})", c(0), c(1), c(2)));
    }
    format!(
        "Polyhedron(vertices: [{}], material: \"steel\")",
        corners.join(", ")
    )
}

/// A scene of "steel" bodies (density 1000) with the linear law (`law` RON fields),
/// `bodies`, gravity 9.81 along -z, Cundall damping `damping`, run for `time` s;
/// `extra` goes into the scene (e.g. `geometry: [...]`).
fn scene(bodies: &str, law: &str, damping: f64, time: f64, extra: &str) -> String {
    format!(
        r#"Scene(
    materials: {{ "steel": (density: 1000, young: 1e9, friction: 0.5) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: ({law}))],
    bodies: [{bodies}],
    gravity: (0, 0, -9.81),
    damping: {damping},
    timestep: Critical(0.1),
    duration: Time({time}),
    contacts: (l6geom: (no_ratch: false)),
    {extra}
)"#
    )
}

fn run(sim: &mut Simulation) {
    while sim.step < sim.end_step {
        sim.step().unwrap();
    }
}

fn first(sim: &Simulation, pick: impl Fn(&Shape) -> bool) -> usize {
    (0..sim.particles.len())
        .find(|&i| pick(&sim.particles.shape[i]))
        .expect("the body is in the scene")
}

#[test]
fn a_sphere_resting_on_a_cube_on_a_wall() {
    // A 0.1 m cube (1 kg) on the floor, a sphere of radius 0.02 m on the middle of its
    // top face. k_n = 1e5 N/m for both contacts: at rest the sphere sinks into the cube
    // by m_s g / k_n, the cube into the floor by (m_c + m_s) g / k_n.
    let (a, r) = (0.1, 0.02);
    let bodies = format!(
        "{},
         Sphere(center: (0, 0, {}), radius: {r}, material: \"steel\"),
         Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: \"steel\")",
        cuboid([-0.05, -0.05, 0.0], [0.05, 0.05, a]),
        a + r
    );
    let text = scene(
        &bodies,
        "kn: 1e5, restitution: 0.5, kt_kn: 0.5",
        0.2,
        1.0,
        "",
    );
    let mut sim = sim_from_text(&text, "sphere-on-cube.ron").unwrap();
    let cube = first(&sim, |s| matches!(s, Shape::Polyhedron(_)));
    let ball = first(&sim, |s| matches!(s, Shape::Sphere(_)));
    let (mc, ms) = (sim.particles.mass[cube], sim.particles.mass[ball]);
    run(&mut sim);
    let g = 9.81;
    let top = sim.particles.pos[cube].z + 0.5 * a;
    let sphere_overlap = top + r - sim.particles.pos[ball].z;
    let cube_overlap = 0.5 * a - sim.particles.pos[cube].z;
    let (es, ec) = (ms * g / 1e5, (mc + ms) * g / 1e5);
    println!(
        "sphere overlap {sphere_overlap:.9e} m (m_s g / k_n {es:.9e}, relative error {:.2e}); \
         cube overlap {cube_overlap:.9e} m ((m_c + m_s) g / k_n {ec:.9e}, relative error {:.2e})",
        sphere_overlap / es - 1.0,
        cube_overlap / ec - 1.0
    );
    assert!((sphere_overlap / es - 1.0).abs() < 1e-9);
    assert!((cube_overlap / ec - 1.0).abs() < 1e-9);
    // Still on the middle of the face.
    let p = sim.particles.pos[ball];
    assert!(p.x.hypot(p.y) < 1e-12, "the sphere moved sideways: {p:?}");
}

const FLOOR_WALL: &str = "Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: \"steel\")";

/// The cube `[-a/2, a/2]^2 x [0, a]` (a = 0.1 m, 1 kg) at rest on `floor` with the
/// linear law `law`; its overlap (m) after 1 s, with its tilt (rad).
fn rest_overlap(floor: &str, law: &str, origin: &str) -> (f64, f64) {
    let a = 0.1;
    let bodies = format!("{}, {floor}", cuboid([-0.05, -0.05, 0.0], [0.05, 0.05, a]));
    // A sphere far away: the scene needs one to size the broad phase's skin.
    let bodies = format!(
        "{bodies}, Sphere(center: (5, 5, 5), radius: 0.05, material: \"steel\", blocked: \"xyz\")"
    );
    let mut sim = sim_from_text(&scene(&bodies, law, 0.2, 1.0, ""), origin).unwrap();
    let cube = first(&sim, |s| matches!(s, Shape::Polyhedron(_)));
    let q0 = sim.particles.ori[cube];
    run(&mut sim);
    (
        0.5 * a - sim.particles.pos[cube].z,
        sim.particles.ori[cube].angle_to(&q0),
    )
}

#[test]
fn a_cube_on_a_triangulated_floor_rests_as_on_a_wall() {
    // Two triangles of the square [-1, 1]^2 (one square here: the strip of one square
    // is 1 m wide, so take two), the cube centred on the shared diagonal: two contacts of
    // area 0.005 m^2 each. With k_n = kn_per_area * area the two add up to the wall's
    // single contact: overlap m g / (kn_per_area a^2) = 9.81e-5 m on both.
    let per_area = "kn_per_area: 1e7, restitution: 0.5, kt_kn: 0.5";
    let expected = 9.81 / (1e7 * 0.01);
    let mesh = floor_mesh("poly-floor-2", 2);
    let (on_wall, tilt_w) = rest_overlap(FLOOR_WALL, per_area, "cube-wall.ron");
    let (on_mesh, tilt_m) = rest_overlap(&mesh, per_area, "cube-mesh.ron");
    println!(
        "kn_per_area: overlap on the wall {on_wall:.9e} m, on the mesh {on_mesh:.9e} m, \
         m g / (kn_per_area a^2) {expected:.9e} m; tilt {tilt_w:.1e}, {tilt_m:.1e} rad"
    );
    assert!((on_wall / expected - 1.0).abs() < 1e-9);
    assert!((on_mesh / expected - 1.0).abs() < 1e-9);
    assert!(tilt_w < 1e-9 && tilt_m < 1e-9);
    // A constant stiffness: one contact per facet under the cube, two terms of k_n each:
    // m g / (2 k_n) on the mesh, m g / k_n on the wall.
    let constant = "kn: 1e5, restitution: 0.5, kt_kn: 0.5";
    let (on_wall, _) = rest_overlap(FLOOR_WALL, constant, "cube-wall-kn.ron");
    let (on_mesh, _) = rest_overlap(&mesh, constant, "cube-mesh-kn.ron");
    println!("kn: overlap on the wall {on_wall:.9e} m, on the mesh {on_mesh:.9e} m");
    assert!((on_wall / (9.81 / 1e5) - 1.0).abs() < 1e-9);
    assert!((on_mesh / (9.81 / 2e5) - 1.0).abs() < 1e-9);
}

#[test]
fn a_cube_slides_across_facet_edges_without_snagging() {
    // Frictionless, resting at its static overlap, sliding along +x at 0.5 m/s over a
    // floor of four squares (eight triangles): it crosses two diagonals and the shared
    // edge x = 0. The facets push only along +z, so with k_n = kn_per_area * area the
    // total force stays m g (the immersed volumes add up to the wall's) and the
    // horizontal velocity stays 0.5 m/s.
    let (a, v) = (0.1, 0.5);
    let overlap = 9.81 / (1e7 * a * a);
    let cube = cuboid([-0.45, -0.05, -overlap], [-0.35, 0.05, a - overlap]).replace(
        "material: \"steel\")",
        &format!("material: \"steel\", velocity: ({v}, 0, 0))"),
    );
    let bodies = format!(
        "{cube}, {}, Sphere(center: (5, 5, 5), radius: 0.05, material: \"steel\", blocked: \"xyz\")",
        floor_mesh("poly-floor-4", 4)
    );
    let law = "kn_per_area: 1e7, restitution: 0.5, kt_kn: 0.5";
    let mut text = scene(&bodies, law, 0.0, 1.2, "");
    text = text.replace("friction: 0.5", "friction: 0");
    let mut sim = sim_from_text(&text, "cube-slide.ron").unwrap();
    let id = first(&sim, |s| matches!(s, Shape::Polyhedron(_)));
    let mg = sim.particles.mass[id] * 9.81;
    let (mut worst_fz, mut worst_jump, mut worst_fxy) = (0.0f64, 0.0f64, 0.0f64);
    let mut last = mg;
    let mut most = 0;
    while sim.step < sim.end_step {
        sim.step().unwrap();
        let f = sim.mesh_loads()[0].force;
        let fz = -f.z;
        worst_fz = worst_fz.max((fz / mg - 1.0).abs());
        worst_jump = worst_jump.max((fz - last).abs() / mg);
        worst_fxy = worst_fxy.max(f.x.hypot(f.y) / mg);
        last = fz;
        most = most.max(sim.live_contacts);
    }
    let p = sim.particles.pos[id];
    let u = sim.particles.vel[id];
    println!(
        "slid to x = {:.4} m; up to {most} contacts; |F_z / m g - 1| <= {worst_fz:.2e}, \
         largest step-to-step change of F_z {worst_jump:.2e} m g, horizontal force <= \
         {worst_fxy:.2e} m g; v_x {:.15} m/s, z {:.3e} m from rest",
        p.x + 0.4,
        u.x,
        p.z - (0.5 * a - overlap)
    );
    assert!(p.x > 0.1, "the cube crossed x = 0");
    assert!(most >= 2, "the cube straddled two facets");
    assert!(worst_fz < 1e-9 && worst_jump < 1e-9 && worst_fxy < 1e-12);
    assert!((u.x - v).abs() < 1e-12 && u.y.abs() < 1e-12);
}

/// A fixed cube `[-0.05, 0.05]^3` and a sphere of radius 0.02 whose centre is 1e-4 m
/// above its top face, with `contacts` settings (RON fields) and `extra` scene fields; the
/// simulation after one step.
fn near_touching(contacts: &str, extra: &str) -> Result<Simulation, dem_core::DemError> {
    let cube = cuboid([-0.05; 3], [0.05; 3]).replace(
        "material: \"steel\")",
        "material: \"steel\", blocked: \"xyzXYZ\")",
    );
    let bodies = format!(
        "{cube},\n        Sphere(center: (0, 0, 0.0501), radius: 0.02, material: \"steel\")"
    );
    let text = scene(&bodies, "kn: 1e5", 0.0, 1e-3, extra).replace(
        "contacts: (l6geom: (no_ratch: false)),",
        &format!("contacts: ({contacts}),"),
    );
    let mut sim = sim_from_text(&text, "epsilon.ron")?;
    sim.step()?;
    Ok(sim)
}

#[test]
fn the_scene_geometric_epsilon_reaches_the_polyhedron_functors() {
    // Default: 1e-6 times the model size. The cube's bounding sphere (radius
    // 0.05 sqrt 3) holds the sphere, so the box is [-0.05 sqrt 3, 0.05 sqrt 3]^3, whose
    // diagonal is 0.3 m: epsilon 3e-7 m.
    let sim = near_touching("l6geom: (no_ratch: false)", "").unwrap();
    let eps = sim.dispatch.geometric_epsilon;
    println!("default geometric epsilon {eps:e} m");
    assert!((eps - 3e-7).abs() < 1e-20);
    // The centre is 1e-4 m outside the cube, more than epsilon: gap 1e-4 - r.
    let gap = sim.contacts.find_geometry(0, 1).expect("in contact").u.x;
    assert!((gap - (1e-4 - 0.02)).abs() < 1e-15, "gap {gap}");
    // With epsilon 1e-3 m the centre is on the surface: gap -r.
    let sim = near_touching("l6geom: (no_ratch: false), geometric_epsilon: 1e-3", "").unwrap();
    assert_eq!(sim.dispatch.geometric_epsilon, 1e-3);
    let gap = sim.contacts.find_geometry(0, 1).expect("in contact").u.x;
    assert!((gap + 0.02).abs() < 1e-15, "gap {gap}");
    // A functor's own setting wins over the scene's.
    let own = "geometry: [(shapes: (\"Sphere\", \"Polyhedron\"),
                functor: \"Cg2_Sphere_Polyhedron_L6Geom\", params: (geometric_epsilon: 1e-9))],";
    let sim = near_touching("geometric_epsilon: 1e-3", own).unwrap();
    let gap = sim.contacts.find_geometry(0, 1).expect("in contact").u.x;
    assert!((gap - (1e-4 - 0.02)).abs() < 1e-15, "gap {gap}");
}

#[test]
fn a_bad_geometric_epsilon_names_file_line_and_field() {
    for bad in ["-1e-6", "0", "inf"] {
        let err = near_touching(&format!("geometric_epsilon: {bad}"), "")
            .err()
            .expect("refused")
            .to_string();
        println!("{bad}: {err}");
        assert!(err.contains("epsilon.ron:10:"), "{err}");
        assert!(err.contains("contacts.geometric_epsilon"), "{err}");
    }
    let err = near_touching(
        "",
        "geometry: [(shapes: (\"Sphere\", \"Polyhedron\"),
                functor: \"Cg2_Sphere_Polyhedron_L6Geom\", params: (geometric_epsilon: -2))],",
    )
    .err()
    .expect("refused")
    .to_string();
    println!("{err}");
    assert!(err.contains("epsilon.ron:12:") && err.contains("geometric_epsilon must be"));
}

/// Live contacts after each of 5 steps (before the cube moves noticeably) of a cube `[x0, x0 + 0.1] x [-0.05, 0.05]` sunk
/// 1e-4 m into the floor of two squares (the shared edge x = 0 under it), with the
/// contact settings `contacts` (RON fields).
fn contacts_on_floor(x0: f64, contacts: &str) -> Result<Vec<usize>, dem_core::DemError> {
    let bodies = format!(
        "{}, {}, Sphere(center: (5, 5, 5), radius: 0.05, material: \"steel\", blocked: \"xyz\")",
        cuboid([x0, -0.05, -1e-4], [x0 + 0.1, 0.05, 0.1 - 1e-4]),
        floor_mesh("poly-floor-2", 2)
    );
    let text = scene(&bodies, "kn: 1e5", 0.0, 1.0, "").replace(
        "contacts: (l6geom: (no_ratch: false)),",
        &format!("contacts: (l6geom: (no_ratch: false), {contacts}),"),
    );
    let mut sim = sim_from_text(&text, "sparsify.ron")?;
    let mut live = Vec::new();
    for _ in 0..5 {
        sim.step()?;
        live.push(sim.live_contacts);
    }
    Ok(live)
}

#[test]
fn sparsification_drops_redundant_mesh_contacts() {
    // Centred on the shared edge x = 0: two contacts of area 0.005 m^2, points 0.05 m
    // apart (the centroids of the two halves, at x = -0.025 and 0.025).
    let off = contacts_on_floor(-0.05, "").unwrap();
    assert!(off.iter().all(|&n| n == 2), "{off:?}");
    // mindist 0.06 m: the second is too close to the first.
    let close = contacts_on_floor(-0.05, "sparsify: (threshold: 0, minarea: 0, mindist: 0.06)");
    let close = close.unwrap();
    assert!(close.iter().all(|&n| n == 1), "{close:?}");
    // mindist 0.04 m: both stay.
    let apart = contacts_on_floor(-0.05, "sparsify: (threshold: 0, minarea: 0, mindist: 0.04)");
    assert!(apart.unwrap().iter().all(|&n| n == 2));
    // Shifted to x in [-0.09, 0.01]: areas 0.009 and 0.001 m^2 on facets sharing an edge.
    // threshold 0.2: 0.001 < 0.2 x 0.009 goes; threshold 0.1: it stays.
    let t = |threshold: f64| {
        contacts_on_floor(
            -0.09,
            &format!("sparsify: (threshold: {threshold}, minarea: 0, mindist: 0)"),
        )
        .unwrap()
    };
    let (dominated, kept) = (t(0.2), t(0.1));
    assert!(dominated.iter().all(|&n| n == 1), "{dominated:?}");
    assert!(kept.iter().all(|&n| n == 2), "{kept:?}");
    // minarea 0.002 m^2 drops the small one too.
    let small = contacts_on_floor(
        -0.09,
        "sparsify: (threshold: 0, minarea: 0.002, mindist: 0)",
    );
    assert!(small.unwrap().iter().all(|&n| n == 1));
}

#[test]
fn bad_sparsification_settings_name_file_line_and_field() {
    for (bad, field) in [
        ("threshold: 2, minarea: 0, mindist: 0", "threshold"),
        ("threshold: 0.1, minarea: -1, mindist: 0", "minarea"),
        ("threshold: 0.1, minarea: 0, mindist: inf", "mindist"),
    ] {
        let err = contacts_on_floor(0.0, &format!("sparsify: ({bad})"))
            .expect_err("refused")
            .to_string();
        println!("{err}");
        assert!(err.contains("sparsify.ron:9:"), "{err}");
        assert!(err.contains(&format!("contacts.sparsify.{field}")), "{err}");
    }
}
