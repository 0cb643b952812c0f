//! Inlet templates (`crates/dem-core/src/template.rs`): an inlet pours polyhedra of a
//! given shape, each scaled to a drawn volume-equivalent radius (mass, bounding radius and
//! inertia against the closed forms of a cube), placed clear of the walls and of each
//! other by their bounding spheres, with the energy they bring booked, and a run that
//! resumes bitwise from a checkpoint (the inserted shapes are saved whole). Refused with a
//! message: a template without volume, polyhedra inserted in a periodic cell.

use dem_core::model::particles::Shape;
use dem_verification::flow::{round_trip, state};
use dem_verification::sim_from_text;
use std::f64::consts::PI;

const RHO: f64 = 1000.0;

/// A box (walls 0..0.1 in x and y, 0..0.2 in z) fed with cubes from above.
fn scene(inlet_extra: &str, cell: &str, steps: u64) -> String {
    format!(
        r#"Scene(
    materials: {{ "rock": (density: {RHO}, young: 1e9, friction: 0.4) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn_per_area: 1e8, kt_kn: 0.5, restitution: 0.3))],
    bodies: [Box(min: (0, 0, 0), max: (0.1, 0.1, 0.2), material: "rock")],
    inlets: [Inlet(name: "cubes", region: Box(min: (0, 0, 0.02), max: (0.1, 0.1, 0.19)),
                   shape: Polyhedron(vertices: [(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1),
                                                (-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]),
                   radius: Uniform(0.004, 0.007), material: "rock", rate: Number(4000),
                   velocity: (0, 0, -0.5), velocity_spread: 0.1, seed: 3, every: 20, attempts: 200{inlet_extra})],
    {cell}
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps({steps}),
)"#
    )
}

#[test]
fn an_inlet_pours_cubes_scaled_to_the_drawn_radius() {
    let mut sim = sim_from_text(&scene("", "", 3000), "cubes.ron").unwrap();
    let walls = sim.particles.len();
    // Up to the step before the first event with something to insert, then that step:
    // the cubes appear in free space, and the ledger's total does not move.
    let mut before = sim.ledger.total();
    while sim.flow.inlets[0].state.count == 0 {
        before = sim.ledger.total();
        sim.step().unwrap();
    }
    let inflow = sim.ledger.inflow;
    assert!(inflow != 0.0);
    assert!(
        (sim.ledger.total() - before).abs() <= 1e-12 * inflow.abs(),
        "total moved by {:e} J at the insertion of {:e} J",
        sim.ledger.total() - before,
        inflow
    );
    // A large event placed by hand: every cube's bounding sphere clear of the walls, of
    // the cubes present and of the others placed.
    let p = &sim.particles;
    let mut inlet = sim.flow.inlets[0].clone();
    let made = inlet.insert(0, 0.05, p, None).unwrap();
    assert!(made.len() > 100, "only {} placed", made.len());
    let present: Vec<_> = (walls..p.len())
        .map(|i| (p.pos[i], p.shape[i].bounding_radius().unwrap()))
        .collect();
    for (k, c) in made.iter().enumerate() {
        let Shape::Polyhedron(b) = &c.made.shape else {
            panic!("a {:?} inserted", c.made.shape.kind())
        };
        let bound = b.data.bounding_radius;
        // Placed by a bounding radius a little wider than the cube's.
        assert!(c.bound >= bound && c.bound <= bound * (1.0 + 1e-11));
        for x in 0..3 {
            let top = if x == 2 { 0.2 } else { 0.1 };
            assert!(c.center[x] - c.bound >= 0.0 && c.center[x] + c.bound <= top);
        }
        let others = present
            .iter()
            .copied()
            .chain(made[..k].iter().map(|o| (o.center, o.bound)));
        for (x, r) in others {
            assert!((x - c.center).norm() >= r + c.bound, "cube {k} overlaps");
        }
    }
    // Run on with the cubes falling into the box and onto each other.
    sim.run_steps(2000).unwrap();
    // Each cube against the closed forms of a cube of the drawn volume-equivalent radius
    // r: side a = (4 pi / 3)^(1/3) r, bounding radius a sqrt(3) / 2, mass rho a^3, the
    // three principal moments m a^2 / 6.
    let p = &sim.particles;
    let n = p.len() - walls;
    assert!(n > 40, "only {n} cubes");
    for i in walls..p.len() {
        let Shape::Polyhedron(b) = &p.shape[i] else {
            panic!("particle {i} is a {:?}", p.shape[i].kind())
        };
        let m = p.mass[i];
        let r = (3.0 * m / (4.0 * PI * RHO)).cbrt();
        assert!(
            (0.004 * (1.0 - 1e-12)..=0.007 * (1.0 + 1e-12)).contains(&r),
            "radius {r}"
        );
        let a = (4.0 * PI / 3.0).cbrt() * r;
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * y;
        assert!(close(b.data.bounding_radius, a * 3f64.sqrt() / 2.0));
        assert!(close(b.data.volume, a.powi(3)));
        for k in 0..3 {
            assert!(
                close(p.inertia[i][k], m * a * a / 6.0),
                "{:?}",
                p.inertia[i]
            );
        }
    }
    let contacts = sim.contacts.live().count();
    assert!(contacts > 20, "{contacts} contacts");
}

#[test]
fn a_run_inserting_cubes_resumes_bitwise() {
    let text = scene("", "", 2400);
    let mut whole = sim_from_text(&text, "cubes.ron").unwrap();
    whole.run_steps(2400).unwrap();
    let mut parts = sim_from_text(&text, "cubes.ron").unwrap();
    parts.run_steps(1201).unwrap();
    let mut parts = round_trip(&parts);
    parts.run_steps(1199).unwrap();
    assert!(whole.flow.inlets[0].state.count > 40);
    assert!(whole.contacts.live().count() > 10);
    assert!(state(&parts) == state(&whole), "the resumed run differs");
}

#[test]
fn templates_the_solver_cannot_use_are_refused() {
    let flat = scene("", "", 10).replace(
        "(-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)",
        "(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1)",
    );
    let refused = |text: &str, name: &str| match sim_from_text(text, name) {
        Ok(_) => panic!("{name} accepted"),
        Err(e) => e.to_string(),
    };
    let e = refused(&flat, "flat.ron");
    assert!(
        e.contains("flat.ron") && e.contains("inlets[0]") && e.contains("shape.vertices"),
        "{e}"
    );
    let cell = r#"cell: (edges: ((0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.2)), periodic: "xy"),"#;
    let periodic = scene("", cell, 10).replace(
        r#"bodies: [Box(min: (0, 0, 0), max: (0.1, 0.1, 0.2), material: "rock")],"#,
        r#"bodies: [Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "rock")],"#,
    );
    let e = refused(&periodic, "cell.ron");
    assert!(
        e.contains("cell.ron") && e.contains("inlets[0].shape") && e.contains("periodic"),
        "{e}"
    );
}
