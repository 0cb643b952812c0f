//! Inlets and outlets (`crates/dem-core/src/{inlet,outlet,population}.rs`): inserted
//! spheres overlap nothing (checked by brute force against spheres, walls and mesh
//! facets); the delivered count follows the rate exactly (by number) or within one
//! particle (by mass); the ledger books the energy brought in and carried out exactly (the
//! step of an insertion and a removal ends with the same total as the same step without
//! them); a run with a changing population resumes bitwise; outputs (`particles.csv`,
//! `flow.csv`, the VTK frames) follow the population. In a periodic cell: inserted spheres
//! keep clear of the images across the faces (brute force over lattice shifts), and
//! removing spheres whose contacts cross a face keeps the ledger and resumes bitwise.

use dem_core::engines::inlet::Rate;
use dem_core::model::particles::Shape;
use dem_core::Simulation;
use dem_verification::flow::{round_trip, state, whole_and_resumed};
use dem_verification::{dem_run, read_vtk, root, sim_from_text};
use nalgebra::Vector3;

const MATERIALS: &str = r#"materials: {
        "glass": (density: 2500, young: 1e6, poisson: 0.25, friction: 0.3),
    },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kt_kn: 0.25, restitution: 0.5))],"#;

/// A square chute (four side walls, a floor) fed from above, drained at one corner of
/// the floor.
fn chute(inlet: &str, outlet: &str, steps: u64) -> String {
    format!(
        r#"Scene(
    {MATERIALS}
    bodies: [
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "glass"),
        Wall(point: (0, 0, 0), normal: (1, 0, 0), sense: 1, material: "glass"),
        Wall(point: (0.03, 0, 0), normal: (1, 0, 0), sense: -1, material: "glass"),
        Wall(point: (0, 0, 0), normal: (0, 1, 0), sense: 1, material: "glass"),
        Wall(point: (0, 0.03, 0), normal: (0, 1, 0), sense: -1, material: "glass"),
    ],
    inlets: [{inlet}],
    outlets: [{outlet}],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.25),
    duration: Steps({steps}),
)"#
    )
}

const FEED: &str = r#"Inlet(name: "feed", region: Box(min: (0, 0, 0.04), max: (0.03, 0.03, 0.06)),
    radius: Uniform(0.0015, 0.0025), material: "glass", rate: Number(4000),
    velocity: (0, 0, -0.5), velocity_spread: 0.05, seed: 3, every: 50)"#;

const DRAIN: &str =
    r#"Outlet(name: "drain", region: Box(min: (0, 0, -0.01), max: (0.012, 0.012, 0.003)))"#;

/// Distance from `x` to the triangle `v`, m (written here, apart from the solver's).
fn to_triangle(x: &Vector3<f64>, v: &[Vector3<f64>; 3]) -> f64 {
    // Minimise over a fine barycentric grid, then refine: slow, obviously right.
    let point = |a: f64, b: f64| v[0] + (v[1] - v[0]) * a + (v[2] - v[0]) * b;
    let mut best = (f64::INFINITY, 0.0, 0.0);
    let n = 60;
    for i in 0..=n {
        for j in 0..=(n - i) {
            let (a, b) = (i as f64 / n as f64, j as f64 / n as f64);
            let d = (point(a, b) - x).norm();
            if d < best.0 {
                best = (d, a, b);
            }
        }
    }
    let (mut d, mut a, mut b) = best;
    let mut h = 1.0 / n as f64;
    for _ in 0..40 {
        for (da, db) in [(h, 0.0), (-h, 0.0), (0.0, h), (0.0, -h), (h, -h), (-h, h)] {
            let (na, nb) = (a + da, b + db);
            if na >= 0.0 && nb >= 0.0 && na + nb <= 1.0 {
                let nd = (point(na, nb) - x).norm();
                if nd < d {
                    (d, a, b) = (nd, na, nb);
                }
            }
        }
        h *= 0.7;
    }
    d
}

#[test]
fn inserted_spheres_overlap_nothing_present_nor_each_other() {
    // Spheres poured into the hopper mesh (672 facets) on top of spheres already there:
    // the inlet's cylinder cuts through the cone, so many tries land on a facet.
    let text = format!(
        r#"Scene(
    {MATERIALS}
    bodies: [
        RandomFill(min: (-0.04, -0.04, 0.1), max: (0.04, 0.04, 0.14), count: 150,
                   radius: Uniform(0.0025, 0.0035), material: "glass", seed: 1),
        Mesh(file: "meshes/hopper.stl", material: "glass", name: "hopper"),
        Wall(point: (0, 0, 0.2), normal: (1, 1, 0), sense: 0, material: "glass"),
    ],
    inlets: [Inlet(name: "in", region: Cylinder(base: (0, 0, 0.05), axis: (0, 0, 1),
                   radius: 0.09, height: 0.12),
                   radius: Uniform(0.002, 0.004), material: "glass", rate: Number(1e7),
                   seed: 8, every: 1, attempts: 30)],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.25),
    duration: Steps(10),
)"#
    );
    let origin = root().join("scenes").join("inlet-test.ron");
    let mut sim = sim_from_text(&text, origin.to_str().unwrap()).unwrap();
    let p = &sim.particles;
    // One event at t = 1e-3 s: 1e4 due, far more than fit.
    let made = sim.flow.inlets[0].insert(0, 1e-3, p, None).unwrap();
    assert!(made.len() > 300, "only {} inserted", made.len());
    let mut facets_near = 0;
    for (k, s) in made.iter().enumerate() {
        for i in 0..p.len() {
            let gap = match &p.shape[i] {
                Shape::Sphere(b) => (p.pos[i] - s.center).norm() - b.radius - s.radius,
                Shape::Wall(w) => {
                    let n = p.ori[i] * Vector3::new(w.normal.x, w.normal.y, w.normal.z);
                    (s.center - p.pos[i]).dot(&n).abs() - s.radius
                }
                Shape::Facet(f) => {
                    let d = to_triangle(&s.center, &f.vertices(&p.pos[i], &p.ori[i]));
                    facets_near += (d < 2.0 * s.radius) as usize;
                    d - s.radius - f.shape.halfthick
                }
                Shape::Polyhedron(_) | Shape::Plugin(_) => unreachable!(),
            };
            assert!(
                gap >= -1e-12,
                "new sphere {k} overlaps particle {i} by {gap:e} m"
            );
        }
        for t in &made[..k] {
            let gap = (t.center - s.center).norm() - t.radius - s.radius;
            assert!(
                gap >= -1e-12,
                "new sphere {k} overlaps another new one by {gap:e} m"
            );
        }
    }
    assert!(
        facets_near > 50,
        "only {facets_near} new spheres near a facet"
    );
    // And the run goes on with them.
    sim.run_steps(10).unwrap();
}

/// The inlet's count after each step, stepping `sim` to its end.
fn counts(sim: &mut Simulation) -> Vec<(f64, u64, f64)> {
    let mut out = Vec::new();
    while sim.step < sim.end_step {
        let t = sim.time;
        sim.step().unwrap();
        let s = &sim.flow.inlets[0].state;
        out.push((t, s.count, s.mass));
    }
    out
}

#[test]
fn the_delivered_count_follows_the_rate_exactly() {
    // 123,456.7 particles/s from t = 2e-3 s to 6e-3 s, events every 7 steps, into the
    // chute high above its floor.
    let inlet = |rate: &str| {
        format!(
            r#"Inlet(name: "feed", region: Box(min: (0, 0, 0.5), max: (0.03, 0.03, 1.5)),
            radius: Uniform(0.0015, 0.0025), material: "glass", rate: {rate},
            start: 2e-3, end: 6e-3, seed: 3, every: 7)"#
        )
    };
    let text = chute(&inlet("Number(123456.7)"), "", 0)
        .replace("Critical(0.25)", "Fixed(1e-5)")
        .replace("Steps(0)", "Steps(800)");
    let mut sim = sim_from_text(&text, "rate.ron").unwrap();
    let (start, end) = (2e-3, 6e-3);
    for (step, (t, count, _)) in counts(&mut sim).into_iter().enumerate() {
        if t >= start && t < end && step % 7 == 0 {
            let expect = (123456.7 * (t - start)).floor() as u64;
            assert_eq!(count, expect, "step {step}, t = {t:e} s");
        }
    }
    // The event at the end delivers the rest of the window.
    let all = (123456.7f64 * (end - start)).floor() as u64;
    assert_eq!(sim.flow.inlets[0].state.count, all);
    assert_eq!(sim.particles.len() as u64, 5 + all);

    // By mass: within one particle's mass of the target, never above it.
    let text = chute(&inlet("Mass(0.5)"), "", 0)
        .replace("Critical(0.25)", "Fixed(1e-5)")
        .replace("Steps(0)", "Steps(800)");
    let mut sim = sim_from_text(&text, "rate.ron").unwrap();
    let largest = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.0025f64.powi(3);
    for (step, (t, _, mass)) in counts(&mut sim).into_iter().enumerate() {
        if t >= start && step % 7 == 0 {
            let target = 0.5 * (t.min(end) - start);
            assert!(
                mass <= target && mass > target - largest,
                "step {step}: {mass} of {target}"
            );
        }
    }
    assert!(matches!(sim.flow.inlets[0].spec.rate, Rate::Mass(_)));
}

/// Sum of the magnitudes of the ledger's entries, J.
fn magnitude(sim: &Simulation) -> f64 {
    sim.ledger.row().iter().map(|x| x.abs()).sum()
}

/// An inlet putting 20 spheres at once in free space above the chute at `start` (s).
fn twenty_at(start: f64) -> String {
    format!(
        r#"Inlet(name: "feed", region: Box(min: (0, 0, 0.05), max: (0.03, 0.03, 0.07)),
        radius: Const(0.002), material: "glass", rate: Number(1e12), start: {start},
        total: 20, seed: 4, every: 1)"#
    )
}

#[test]
fn the_step_of_an_insertion_and_a_removal_keeps_the_ledger_total() {
    // A settled pile on the floor; at t1 the outlet opens under part of it (removing
    // spheres in contact) and the inlet puts spheres in free space above.
    let pile = r#"Lattice(origin: (0.0025, 0.0025, 0.0025), count: (6, 6, 3), spacing: 0.005,
                          radius: 0.0024, material: "glass", velocity_spread: 0.01, seed: 2)"#;
    // t1 on the step grid; inlet and outlet start half a step before it.
    let (dt, k1) = (2e-5, 2500);
    let t1 = k1 as f64 * dt;
    let start = t1 - 0.5 * dt;
    let feed = twenty_at(start);
    let drain = format!(
        r#"Outlet(name: "drain", region: Box(min: (0, 0, 0), max: (0.011, 0.011, 0.004)),
        start: {start})"#
    );
    let with_pile = |s: String| {
        s.replace("bodies: [", &format!("bodies: [{pile},"))
            .replace("Critical(0.25)", &format!("Fixed({dt:e})"))
    };
    let plain = with_pile(chute("", "", 3000));
    let flow = with_pile(chute(&feed, &drain, 3000));
    let mut a = sim_from_text(&plain, "a.ron").unwrap();
    let mut b = sim_from_text(&flow, "b.ron").unwrap();
    while b.step < k1 {
        a.step().unwrap();
        b.step().unwrap();
    }
    assert_eq!(a.ledger.row(), b.ledger.row(), "the same run until t1");
    let elastic_before = b.ledger.elastic;
    a.step().unwrap();
    b.step().unwrap();
    let removed = b.flow.outlets[0].state.count;
    assert!(removed >= 4, "{removed} removed");
    assert_eq!(b.flow.inlets[0].state.count, 20);
    assert_eq!(b.particles.len(), a.particles.len() + 20 - removed as usize);
    // The removed spheres carried out the elastic energy of their contacts.
    assert!(b.ledger.elastic < a.ledger.elastic && elastic_before > 0.0);
    assert!(b.ledger.outflow > 0.0 && b.ledger.inflow > 0.0);
    let (ta, tb) = (a.ledger.total(), b.ledger.total());
    assert!(
        (ta - tb).abs() <= 1e-13 * magnitude(&b),
        "total {ta:e} without the flow, {tb:e} with it (entries {:e} J)",
        magnitude(&b)
    );
    // And on, with the spheres above the hole falling in: the ledger stays closed.
    let b0 = b.ledger.total();
    let (mut turnover, start_row) = (0.0f64, b.ledger.row());
    for _ in 0..1500 {
        b.step().unwrap();
        let row = b.ledger.row();
        let k = row.len() - 1;
        turnover = (0..k).fold(turnover, |m, i| m.max((row[i] - start_row[i]).abs()));
    }
    let drift = b.ledger.total() - b0;
    eprintln!("drift {drift:e} J of {turnover:e} J turned over");
    assert!(
        drift.abs() <= 1e-4 * turnover,
        "drift {drift:e} J of {turnover:e} J"
    );
}

#[test]
fn a_run_with_inlets_and_outlets_resumes_bitwise() {
    let text = chute(FEED, DRAIN, 5000);
    let (whole, parts) = whole_and_resumed(&text, 5000);
    let (fed, drained) = (
        whole.flow.inlets[0].state.count,
        whole.flow.outlets[0].state.count,
    );
    assert!(
        fed > 300 && drained > 10,
        "{fed} inserted, {drained} removed"
    );
    assert!(state(&parts) == state(&whole), "the resumed run differs");
}

#[test]
fn outputs_follow_the_population() {
    let dir = std::env::temp_dir().join(format!("dem-flow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("pour.ron");
    std::fs::write(&scene, chute(FEED, DRAIN, 5000)).unwrap();
    let out = dir.join("out");
    dem_run(&scene, &out);
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap();
    let flow = read("flow.csv");
    let last: Vec<Vec<String>> = flow
        .lines()
        .rev()
        .take(2)
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    let (drain, feed) = (&last[0], &last[1]);
    assert_eq!((feed[2].as_str(), feed[3].as_str()), ("feed", "inlet"));
    assert_eq!((drain[2].as_str(), drain[3].as_str()), ("drain", "outlet"));
    let (fed, drained): (usize, usize) = (feed[4].parse().unwrap(), drain[4].parse().unwrap());
    assert!(fed > 300 && drained > 10);
    // particles.csv: the walls (ids 0-4), then inserted spheres by id, none twice, the
    // removed ones missing.
    let ids: Vec<usize> = read("particles.csv")
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 5 + fed - drained);
    assert!(ids.windows(2).all(|w| w[0] < w[1]) && ids[..5] == [0, 1, 2, 3, 4]);
    assert!(*ids.last().unwrap() < 5 + fed);
    // The last VTK frame (as VTK reads it): a point per sphere, with the same ids.
    let frame = out.join("particles_000005000.vtu");
    let vtk = &read_vtk(&[&frame])[frame.to_str().unwrap()];
    let vtk_ids: Vec<usize> = vtk["point_data"]["id"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(vtk_ids, ids[5..], "the spheres of the last frame");
    // energy.csv has the two new columns.
    let energy = read("energy.csv");
    assert!(energy
        .lines()
        .next()
        .unwrap()
        .contains(",inflow,outflow,total"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A cell periodic along x and y, sheared (edge b leans over x), closed by a floor.
fn periodic_scene(bodies: &str, inlet: &str, outlet: &str, dt: f64, steps: u64) -> String {
    format!(
        r#"Scene(
    {MATERIALS}
    bodies: [
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "glass"),
        {bodies}
    ],
    inlets: [{inlet}],
    outlets: [{outlet}],
    cell: (edges: ((0.03, 0, 0), (0.008, 0.03, 0), (0, 0, 0.1)), periodic: "xy",
           velocity_gradient: ((0, 2, 0), (0, 0, 0), (0, 0, 0))),
    gravity: (0, 0, -9.81),
    timestep: Fixed({dt:e}),
    duration: Steps({steps}),
)"#
    )
}

#[test]
fn inserted_spheres_keep_clear_of_the_images_across_periodic_faces() {
    // The region reaches beyond the cell on both periodic edges, and the cell is sheared:
    // a sphere placed near one face must keep clear of the images of the spheres near the
    // opposite one.
    let feed = r#"Inlet(name: "in", region: Box(min: (-0.01, -0.005, 0.003), max: (0.045, 0.035, 0.02)),
        radius: Uniform(0.001, 0.0015), material: "glass", rate: Number(3e6), seed: 6,
        every: 1, attempts: 30)"#;
    let text = periodic_scene("", feed, "", 2e-5, 10);
    let mut sim = sim_from_text(&text, "periodic-inlet.ron").unwrap();
    // The first events fill part of the region (the rebuild after each wraps the spheres
    // into the cell).
    sim.run_steps(3).unwrap();
    let present = sim.particles.len() - 1;
    assert!(
        present > 80,
        "only {present} spheres after the first events"
    );
    let cell = sim.periodic.as_ref().unwrap().cell.clone();
    let h = cell.h;
    let p = &sim.particles;
    let spheres: Vec<(Vector3<f64>, f64)> = (0..p.len())
        .filter_map(|i| match &p.shape[i] {
            Shape::Sphere(s) => Some((p.pos[i], s.radius)),
            _ => None,
        })
        .collect();
    // The smallest gap between a new sphere and every image of `others`, over lattice
    // shifts -2..=2 along x and y (written here, apart from the solver's images).
    let gap = |c: &Vector3<f64>, r: f64, others: &[(Vector3<f64>, f64)]| {
        let mut g = f64::INFINITY;
        for (x, rb) in others {
            for kx in -2..=2 {
                for ky in -2..=2 {
                    let image = x + h * Vector3::new(kx as f64, ky as f64, 0.0);
                    g = g.min((image - c).norm() - r - rb);
                }
            }
        }
        g
    };
    let worst = |made: &[dem_core::engines::inlet::NewParticle]| {
        let mut w = f64::INFINITY;
        for (k, s) in made.iter().enumerate() {
            w = w.min(gap(&s.center, s.radius, &spheres));
            let before: Vec<_> = made[..k].iter().map(|t| (t.center, t.radius)).collect();
            w = w.min(gap(&s.center, s.radius, &before));
            w = w.min(s.center.z - s.radius); // the floor
        }
        w
    };
    let mut inlet = sim.flow.inlets[0].clone();
    let made = inlet.insert(10, 1e-3, p, Some(&cell)).unwrap();
    assert!(made.len() > 150, "only {} inserted", made.len());
    let w = worst(&made);
    assert!(w >= -1e-12, "a new sphere overlaps an image by {:e} m", -w);
    // The same event blind to the images overlaps them: the check above can fail.
    let mut blind = sim.flow.inlets[0].clone();
    let made = blind.insert(10, 1e-3, p, None).unwrap();
    assert!(
        worst(&made) < -1e-4,
        "no overlap across the faces without the cell"
    );
    // And the run goes on with the inserted spheres.
    sim.run_steps(7).unwrap();
}

#[test]
fn removing_spheres_whose_contacts_cross_a_periodic_face_keeps_the_ledger_and_resumes() {
    // Rows of spheres slightly wider than their spacing fill the cell edge to edge, so
    // that every sphere presses on its neighbours, across the faces too. At t1 the outlet
    // takes the first row of the bottom layer (along the y face); the inlet adds spheres
    // above.
    let pile = r#"Lattice(origin: (0.0025, 0.0025, 0.0026), count: (6, 6, 3), spacing: 0.005,
                          radius: 0.00251, material: "glass", seed: 2)"#;
    let (dt, k1) = (1e-5, 300);
    let t1 = k1 as f64 * dt;
    let start = t1 - 0.5 * dt;
    let feed = twenty_at(start);
    let drain = format!(
        r#"Outlet(name: "drain", region: Box(min: (-0.01, -0.001, 0), max: (0.04, 0.0035, 0.004)),
        start: {start})"#
    );
    let plain = periodic_scene(pile, "", "", dt, 1000);
    let flow = periodic_scene(pile, &feed, &drain, dt, 1000);
    let mut a = sim_from_text(&plain, "a.ron").unwrap();
    let mut b = sim_from_text(&flow, "b.ron").unwrap();
    while b.step < k1 {
        a.step().unwrap();
        b.step().unwrap();
    }
    assert_eq!(a.ledger.row(), b.ledger.row(), "the same run until t1");
    // Contacts across the x face: with image rows.
    let per = b.periodic.as_ref().unwrap();
    let n = per.particles();
    let across = b.contacts.live().filter(|c| c.bodies().1 >= n).count();
    assert!(across > 10, "{across} contacts across the faces");
    a.step().unwrap();
    b.step().unwrap();
    let removed = b.flow.outlets[0].state.count;
    assert!(removed >= 4, "{removed} removed");
    assert_eq!(b.flow.inlets[0].state.count, 20);
    assert!(b.ledger.elastic < a.ledger.elastic && b.ledger.outflow > 0.0);
    let (ta, tb) = (a.ledger.total(), b.ledger.total());
    assert!(
        (ta - tb).abs() <= 1e-13 * magnitude(&b),
        "total {ta:e} without the flow, {tb:e} with it (entries {:e} J)",
        magnitude(&b)
    );
    // On, with a checkpoint round trip halfway: the same bits as straight on; and the
    // ledger drifts no more than in the same run without the flow (the drift of this
    // packing, pressed and sheared, comes from the time step, not from the flow).
    let mut whole = sim_from_text(&flow, "b.ron").unwrap();
    whole.run_steps(k1 + 1 + 400).unwrap();
    b.run_steps(200).unwrap();
    let mut b = round_trip(&b);
    b.run_steps(200).unwrap();
    assert!(state(&b) == state(&whole), "the resumed run differs");
    let drift = b.ledger.total() - tb;
    a.run_steps(400).unwrap();
    let plain = a.ledger.total() - ta;
    eprintln!("drift over 400 steps: {drift:e} J with the flow, {plain:e} J without");
    assert!(
        drift.abs() <= 2.0 * plain.abs(),
        "drift {drift:e} J with the flow, {plain:e} J without"
    );
}

/// A square `w` wide at height `z` facing down (-z), written as an OBJ file.
fn square_facing_down(name: &str, w: f64, z: f64) -> String {
    let path = dem_verification::mesh::write_obj(
        name,
        &[[0.0, 0.0, z], [0.0, w, z], [w, w, z], [w, 0.0, z]],
        &[[0, 1, 2], [0, 2, 3]],
    );
    path.to_str().unwrap().replace('\\', "/")
}

#[test]
fn surface_regions_insert_in_front_of_a_mesh_and_remove_like_the_same_box() {
    // The drain as the layer under a square: the same region as the box DRAIN, so the
    // run is bitwise the run with the box.
    let drain = square_facing_down("drain-square", 0.012, 0.003);
    let surface_drain =
        format!(r#"Outlet(name: "drain", region: Surface(file: "{drain}", depth: 0.013))"#);
    let mut boxed = sim_from_text(&chute(FEED, DRAIN, 3000), "box.ron").unwrap();
    let mut layered = sim_from_text(&chute(FEED, &surface_drain, 3000), "surface.ron").unwrap();
    boxed.run_steps(3000).unwrap();
    layered.run_steps(3000).unwrap();
    assert!(boxed.flow.outlets[0].state.count > 5);
    assert!(
        state(&boxed) == state(&layered),
        "the surface drain differs from the box"
    );
    // The feed as the 20 mm layer under a square at z = 60 mm: every sphere inserted
    // over the square, at least its radius from both sheets.
    let top = square_facing_down("feed-square", 0.03, 0.06);
    let feed = FEED.replace(
        "region: Box(min: (0, 0, 0.04), max: (0.03, 0.03, 0.06))",
        &format!(r#"region: Surface(file: "{top}", depth: 0.02)"#),
    );
    let mut sim = sim_from_text(&chute(&feed, "", 10), "feed.ron").unwrap();
    let made = sim.flow.inlets[0]
        .insert(0, 0.05, &sim.particles, None)
        .unwrap();
    assert!(made.len() > 50, "only {} inserted", made.len());
    for s in &made {
        let (c, r) = (s.center, s.radius);
        assert!(
            (0.0..=0.03).contains(&c.x) && (0.0..=0.03).contains(&c.y),
            "{c}"
        );
        assert!(
            c.z >= 0.04 + r - 1e-12 && c.z <= 0.06 - r + 1e-12,
            "{c} r {r}"
        );
    }
    sim.run_steps(10).unwrap();
}
