//! Polyhedra against spheres and mesh facets, in scenes: static overlaps against the
//! closed form `m g / k_n` of the linear law.

use dem_core::particles::Shape;
use dem_core::Simulation;
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
