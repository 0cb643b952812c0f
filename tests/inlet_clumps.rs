//! Inlets of clumps (`shape: Clump("name")`, `crates/dem-core/src/template.rs`) and
//! outlets removing whole clumps (`crates/dem-core/src/population.rs`): inserted clumps
//! are scaled to the drawn volume-equivalent radius (their union volume recomputed here
//! is `4/3 pi r^3`), turned uniformly at random, and overlap nothing (brute force over
//! every member sphere, free sphere and wall); the delivered count and mass follow the
//! rate exactly as for spheres; the ledger books the energy a clump brings and carries out
//! (the step of an insertion and a removal ends with the same total as the same step
//! without them); a run inserting and removing clumps resumes bitwise from checkpoints.

use dem_core::engines::clump::{union_mass_properties, Member};
use dem_core::model::particles::Shape;
use dem_core::Simulation;
use dem_verification::flow::{state, whole_and_resumed};
use dem_verification::sim_from_text;
use nalgebra::Vector3;
use std::f64::consts::PI;

const RHO: f64 = 2500.0;

/// A square chute (four side walls and a floor, 3 x 3 cm) with a triangular clump
/// template `tri`, the `pile` bodies, an inlet and an outlet.
fn chute(pile: &str, inlet: &str, outlet: &str, timestep: &str, steps: u64) -> String {
    format!(
        r#"Scene(
    materials: {{ "glass": (density: {RHO}, young: 1e6, poisson: 0.25, friction: 0.3) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kt_kn: 0.25, restitution: 0.5))],
    clump_templates: {{
        "tri": (members: [((0, 0, 0), 0.002), ((0.0025, 0, 0), 0.002),
                          ((0.00125, 0.0022, 0), 0.0015)], scale: 1.5),
    }},
    bodies: [
        {pile}
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "glass"),
        Wall(point: (0, 0, 0), normal: (1, 0, 0), sense: 1, material: "glass"),
        Wall(point: (0.03, 0, 0), normal: (1, 0, 0), sense: -1, material: "glass"),
        Wall(point: (0, 0, 0), normal: (0, 1, 0), sense: 1, material: "glass"),
        Wall(point: (0, 0.03, 0), normal: (0, 1, 0), sense: -1, material: "glass"),
    ],
    inlets: [{inlet}],
    outlets: [{outlet}],
    gravity: (0, 0, -9.81),
    timestep: {timestep},
    duration: Steps({steps}),
)"#
    )
}

/// Clumps from above, into the chute.
const FEED: &str = r#"Inlet(name: "feed", region: Box(min: (0, 0, 0.04), max: (0.03, 0.03, 0.07)),
    shape: Clump("tri"), radius: Uniform(0.0015, 0.0025), material: "glass",
    rate: Number(3000), velocity: (0, 0, -0.5), velocity_spread: 0.05, seed: 3, every: 50,
    attempts: 100)"#;

/// A drain at one corner of the floor.
const DRAIN: &str =
    r#"Outlet(name: "drain", region: Box(min: (0, 0, -0.01), max: (0.014, 0.014, 0.004)))"#;

/// A pile at rest on the floor: spheres and clumps of the scene.
const PILE: &str = r#"Lattice(origin: (0.0025, 0.0025, 0.0025), count: (6, 6, 1), spacing: 0.005,
        radius: 0.0024, material: "glass", seed: 2),
    ClumpFill(template: "tri", min: (0, 0, 0.005), max: (0.03, 0.03, 0.04), count: 12,
        material: "glass", seed: 7),"#;

/// The members of a clump as spheres `(centre, radius)`, m.
fn members_of(
    center: Vector3<f64>,
    ori: nalgebra::UnitQuaternion<f64>,
    m: &[Member],
) -> Vec<(Vector3<f64>, f64)> {
    m.iter()
        .map(|m| (center + ori * m.center, m.radius))
        .collect()
}

#[test]
fn inserted_clumps_are_scaled_turned_and_overlap_nothing() {
    let text = chute(PILE, FEED, "", "Critical(0.15)", 0).replace("Steps(0)", "Steps(4000)");
    let mut sim = sim_from_text(&text, "clumps.ron").unwrap();
    sim.run_steps(1000).unwrap();
    let inserted = sim.flow.inlets[0].state.count;
    assert!(inserted > 20, "{inserted} inserted");
    // Every clump of the run is registered: consecutive members, flagged, of its clump.
    assert_eq!(sim.clumps.len() as u64, 12 + inserted);
    for (k, c) in sim.clumps.iter().enumerate() {
        for i in c.members.clone() {
            assert!(sim.particles.blocked[i].member());
            assert_eq!(sim.clump_of(i), Some(k));
        }
    }
    // A large event placed by hand among the clumps, spheres and walls present.
    let p = &sim.particles;
    let mut inlet = sim.flow.inlets[0].clone();
    let made = inlet.insert(0, 0.1, p, None).unwrap();
    assert!(made.len() > 40, "only {} placed", made.len());
    let present: Vec<(Vector3<f64>, f64)> = (0..p.len())
        .filter_map(|i| match &p.shape[i] {
            Shape::Sphere(s) => Some((p.pos[i], s.radius)),
            _ => None,
        })
        .collect();
    let mut placed: Vec<(Vector3<f64>, f64)> = Vec::new();
    let mut tilt = 0.0;
    for c in &made {
        let shape = c.made.clump.as_ref().expect("a clump");
        // Scaled to the drawn volume-equivalent radius: the union of its members has the
        // volume 4/3 pi r^3 (the quadrature's stated error is 1e-4), the mass rho times it.
        let body = union_mass_properties(&shape.members);
        let v = 4.0 / 3.0 * PI * c.radius.powi(3);
        assert!(
            (body.volume / v - 1.0).abs() < 1e-4,
            "{} of {v}",
            body.volume
        );
        assert!((c.made.mass / (RHO * v) - 1.0).abs() < 1e-12);
        assert!((0.0015..=0.0025).contains(&c.radius));
        let spheres = members_of(c.center, c.made.ori, &shape.members);
        for &(x, r) in &spheres {
            // Inside the chute, clear of the walls.
            for k in 0..2 {
                assert!(x[k] - r >= 0.0 && x[k] + r <= 0.03, "member through a wall");
            }
            assert!(x[2] - r >= 0.0);
            for &(y, s) in present.iter().chain(&placed) {
                assert!((x - y).norm() >= r + s, "a member overlaps a sphere");
            }
        }
        placed.extend(spheres);
        // The template's first principal axis turned: |z| uniform in [0, 1] for a
        // uniformly random orientation.
        tilt += (c.made.ori * Vector3::x()).z.abs();
    }
    // Each within the bounding sphere placement used.
    for c in &made {
        let shape = c.made.clump.as_ref().expect("a clump");
        for (x, r) in members_of(c.center, c.made.ori, &shape.members) {
            assert!(
                (x - c.center).norm() + r <= c.bound,
                "a member out of the bound"
            );
        }
    }
    let mean = tilt / made.len() as f64;
    // Mean 1/2, standard deviation of the mean 0.29 / sqrt(n).
    assert!(
        (mean - 0.5).abs() < 4.0 * 0.29 / (made.len() as f64).sqrt(),
        "mean |z| of the axis {mean}"
    );
}

#[test]
fn the_delivered_clumps_follow_the_rate_exactly() {
    let inlet = |rate: &str, radius: &str| {
        format!(
            r#"Inlet(name: "feed", region: Box(min: (0, 0, 0.5), max: (0.03, 0.03, 1.5)),
            shape: Clump("tri"), radius: {radius}, material: "glass",
            rate: {rate}, start: 2e-3, end: 6e-3, seed: 3, every: 7)"#
        )
    };
    let (start, end) = (2e-3, 6e-3);
    let run = |rate: &str, radius: &str| -> (Simulation, Vec<(f64, u64, f64)>) {
        let text = chute("", &inlet(rate, radius), "", "Fixed(1e-5)", 800);
        let mut sim = sim_from_text(&text, "rate.ron").unwrap();
        let mut out = Vec::new();
        while sim.step < sim.end_step {
            let t = sim.time;
            sim.step().unwrap();
            let s = &sim.flow.inlets[0].state;
            out.push((t, s.count, s.mass));
        }
        (sim, out)
    };
    let (sim, counts) = run("Number(23456.7)", "Uniform(0.0015, 0.0025)");
    for (step, &(t, count, _)) in counts.iter().enumerate() {
        if t >= start && t < end && step % 7 == 0 {
            assert_eq!(count, (23456.7 * (t - start)).floor() as u64, "step {step}");
        }
    }
    let all = (23456.7f64 * (end - start)).floor() as u64;
    assert_eq!(sim.flow.inlets[0].state.count, all);
    assert_eq!(sim.clumps.len() as u64, all);
    // By mass: within one clump's mass of the target, never above it; the inlet's count
    // of mass is the clumps' mass.
    let (sim, counts) = run("Mass(2.0)", "Uniform(0.0015, 0.0025)");
    let largest = RHO * 4.0 / 3.0 * PI * 0.0025f64.powi(3);
    for (step, &(t, _, mass)) in counts.iter().enumerate() {
        if t >= start && step % 7 == 0 {
            let target = 2.0 * (t.min(end) - start);
            assert!(
                mass <= target * (1.0 + 1e-12) && mass > target - largest,
                "step {step}: {mass} of {target}"
            );
        }
    }
    let held: f64 = sim.clumps.iter().map(|c| c.mass).sum();
    let counted = sim.flow.inlets[0].state.mass;
    assert!(
        (held - counted).abs() <= 1e-12 * counted,
        "{held} held, {counted} counted"
    );
    assert!(sim.clumps.len() > 50, "{} clumps", sim.clumps.len());
    // Of one size: each clump has the mass of the sphere of the drawn radius, and the
    // delivered mass is the whole number of them that fits under the target.
    let (sim, counts) = run("Mass(2.0)", "Const(0.002)");
    let m0 = RHO * 4.0 / 3.0 * PI * 0.002f64.powi(3);
    for c in &sim.clumps {
        assert!((c.mass / m0 - 1.0).abs() < 1e-12, "{} of {m0}", c.mass);
    }
    for (step, &(t, count, _)) in counts.iter().enumerate() {
        if t >= start && step % 7 == 0 {
            let target = 2.0 * (t.min(end) - start);
            assert_eq!(
                count,
                (target / m0 * (1.0 + 1e-12)).floor() as u64,
                "step {step}"
            );
        }
    }
}

/// Sum of the magnitudes of the ledger's entries, J.
fn magnitude(sim: &Simulation) -> f64 {
    sim.ledger.row().iter().map(|x| x.abs()).sum()
}

#[test]
fn the_ledger_books_the_energy_of_clumps_entering_and_leaving() {
    // A pile of clumps and spheres settling on the floor; at t1 the outlet opens under
    // part of it (removing clumps in contact) and the inlet puts 20 spinning-free clumps
    // in free space above.
    let (dt, k1) = (2e-5, 6000);
    let t1 = k1 as f64 * dt;
    let start = t1 - 0.5 * dt;
    let feed = format!(
        r#"Inlet(name: "feed", region: Box(min: (0, 0, 0.05), max: (0.03, 0.03, 0.09)),
        shape: Clump("tri"), radius: Const(0.002), material: "glass", rate: Number(1e12),
        start: {start}, total: 20, velocity: (0.1, 0, -0.3), velocity_spread: 0.2, seed: 4,
        every: 1, attempts: 200)"#
    );
    let drain = format!(
        r#"Outlet(name: "drain", region: Box(min: (0, 0, -0.01), max: (0.02, 0.02, 0.01)),
        start: {start})"#
    );
    let timestep = format!("Fixed({dt:e})");
    let plain = chute(PILE, "", "", &timestep, 20000);
    let flow = chute(PILE, &feed, &drain, &timestep, 20000);
    let mut a = sim_from_text(&plain, "a.ron").unwrap();
    let mut b = sim_from_text(&flow, "b.ron").unwrap();
    while b.step < k1 {
        a.step().unwrap();
        b.step().unwrap();
    }
    assert_eq!(a.ledger.row(), b.ledger.row(), "the same run until t1");
    a.step().unwrap();
    b.step().unwrap();
    let removed = b.flow.outlets[0].state.count;
    let clumps_removed = a.clumps.len() + 20 - b.clumps.len();
    assert!(clumps_removed >= 2, "{clumps_removed} clumps removed");
    assert!(removed as usize > clumps_removed, "{removed} removed");
    assert_eq!(b.flow.inlets[0].state.count, 20);
    // The removed bodies carried out the elastic energy of their contacts.
    assert!(b.ledger.elastic < a.ledger.elastic);
    assert!(b.ledger.outflow > 0.0 && b.ledger.inflow > 0.0);
    let (ta, tb) = (a.ledger.total(), b.ledger.total());
    assert!(
        (ta - tb).abs() <= 1e-13 * magnitude(&b),
        "total {ta:e} without the flow, {tb:e} with it (entries {:e} J)",
        magnitude(&b)
    );
    // And on, with the clumps falling onto the pile and into the drain: the ledger drifts
    // no more than the same pile's without the flow (the drift of the clumps' rotation
    // integrator, not of the flow), relative to the energy turned over.
    let turnover = |s: &mut Simulation| {
        let (t0, row0) = (s.ledger.total(), s.ledger.row());
        let mut most = 0.0f64;
        for _ in 0..3000 {
            s.step().unwrap();
            let row = s.ledger.row();
            let k = row.len() - 1;
            most = (0..k).fold(most, |m, i| m.max((row[i] - row0[i]).abs()));
        }
        ((s.ledger.total() - t0).abs(), most)
    };
    let (drift_b, over_b) = turnover(&mut b);
    let (drift_a, over_a) = turnover(&mut a);
    eprintln!(
        "drift {drift_b:e} J of {over_b:e} J with the flow, {drift_a:e} of {over_a:e} without"
    );
    assert!(b.flow.outlets[0].state.count > removed, "no more removed");
    assert!(
        drift_b / over_b <= (2.0 * drift_a / over_a).max(1e-6),
        "drift {drift_b:e} J of {over_b:e} J with the flow, {drift_a:e} J of {over_a:e} J without"
    );
}

#[test]
fn a_run_inserting_and_removing_clumps_resumes_bitwise() {
    let text = chute(PILE, FEED, DRAIN, "Critical(0.15)", 5000);
    let (whole, parts) = whole_and_resumed(&text, 5000);
    let (fed, drained) = (
        whole.flow.inlets[0].state.count,
        whole.flow.outlets[0].state.count,
    );
    assert!(fed > 80 && drained > 5, "{fed} inserted, {drained} removed");
    // Scene clumps were removed too, so that clumps moved down in storage.
    assert!(whole
        .clumps
        .iter()
        .any(|c| c.template.members[0].radius != whole.clumps[0].template.members[0].radius));
    assert!(state(&parts) == state(&whole), "the resumed run differs");
}

#[test]
fn clump_inlets_the_solver_cannot_serve_are_refused() {
    let refused = |text: &str, name: &str| match sim_from_text(text, name) {
        Ok(_) => panic!("{name} accepted"),
        Err(e) => e.to_string(),
    };
    let unknown = chute(
        "",
        &FEED.replace("Clump(\"tri\")", "Clump(\"rice\")"),
        "",
        "Critical(0.15)",
        10,
    );
    let e = refused(&unknown, "unknown.ron");
    assert!(
        e.contains("unknown.ron") && e.contains("inlets[0].shape") && e.contains("`rice`"),
        "{e}"
    );
    let stress = chute("", FEED, "", "Critical(0.15)", 10).replace(
        "duration:",
        "output: (stress: (min: (0, 0, 0), max: (0.03, 0.03, 0.03))),\n    duration:",
    );
    let e = refused(&stress, "stress.ron");
    assert!(
        e.contains("stress.ron") && e.contains("output.stress"),
        "{e}"
    );
}
