//! The periodic cell (`crates/dem-core/src/cell.rs`, `images.rs`): a collision across each
//! periodic face, across an edge and across the face of a sheared, shearing cell equals
//! the same collision in open space between the particle and the image (positions,
//! velocities and spins to rounding, 1e-14 relative), also when a sphere is wrapped
//! through a shearing face mid-collision (Lees-Edwards: it loses the face's velocity);
//! momentum is conserved with images;
//! the energy ledger closes under shear (the cell's deformation work booked as boundary
//! work); a shear runs through many flips of the cell; a checkpoint resumes bitwise.

use dem_core::{Checkpoint, Simulation};
use dem_verification::{plugins, sim_from_text};
use nalgebra::{Matrix3, Vector3};
use std::path::Path;

const R: f64 = 0.01;
/// Cell edge, m.
const L: f64 = 0.1;
const MATERIAL: &str = "(density: 2500, young: 1e8, poisson: 0.25, friction: 0.3)";
const LAW: &str = r#"(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kt_kn: 0.3, restitution: 0.6))"#;

fn v3(v: Vector3<f64>) -> String {
    format!("({:e}, {:e}, {:e})", v.x, v.y, v.z)
}

/// Two spheres, A at `a` moving along `d`, and B at `b`; in the cell `cell` (RON text of
/// the `cell` block) or in open space (`None`).
fn scene(
    (a, d): (Vector3<f64>, Vector3<f64>),
    (b, vb): (Vector3<f64>, Vector3<f64>),
    cell: Option<&str>,
    steps: u64,
) -> String {
    let va = d * 0.5 + Vector3::new(0.1, -0.2, 0.15);
    format!(
        r#"Scene(
        materials: {{ "m": {MATERIAL} }},
        laws: [{LAW}],
        bodies: [
            Sphere(center: {a}, radius: {R}, material: "m", velocity: {va},
                   angular_velocity: (20, -30, 40)),
            Sphere(center: {b}, radius: {R}, material: "m", velocity: {vb},
                   angular_velocity: (-10, 15, 25)),
        ],
        {cell}
        gravity: (0, 0, 0),
        timestep: Fixed(2e-6),
        duration: Steps({steps}),
    )"#,
        a = v3(a),
        b = v3(b),
        va = v3(va),
        vb = v3(vb),
        cell = cell.map_or(String::new(), |c| format!("cell: {c},")),
    )
}

fn one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(f)
}

fn run(text: &str, steps: u64) -> Simulation {
    let mut sim = sim_from_text(text, "periodic.ron").unwrap();
    sim.run_steps(steps).unwrap();
    sim
}

/// The largest differences of positions (relative to the cell edge), velocities (to
/// 1 m/s) and spins (to 50 rad/s) between two runs of the pair, the first one's particles
/// (by scene id) moved by `unwrap` and their velocities by `dv`.
fn differences(
    x: &Simulation,
    y: &Simulation,
    unwrap: [Vector3<f64>; 2],
    dv: [Vector3<f64>; 2],
) -> [f64; 3] {
    let (p, o) = (&x.particles, &y.particles);
    let mut d = [0.0f64; 3];
    for id in 0..2 {
        // Storage may be reordered (in open space): by scene id.
        let (i, j) = (x.order.index(id), y.order.index(id));
        d[0] = d[0].max((p.pos[i] + unwrap[id] - o.pos[j]).norm() / L);
        d[1] = d[1].max((p.vel[i] + dv[id] - o.vel[j]).norm());
        d[2] = d[2].max((p.angvel[i] - o.angvel[j]).norm() / 50.0);
    }
    d
}

/// Collides A (inside the cell, near the faces `shift` points through) with B's image by
/// `shift`, and the same pair in open space with B put at its image; compares.
fn across(shift: [i32; 3], gamma: f64, rate: f64) {
    let cell_text = cell_text(gamma, rate);
    let cell = &cell_text[..];
    let h = Matrix3::new(L, gamma * L, 0.0, 0.0, L, 0.0, 0.0, 0.0, L);
    let hdot = Matrix3::new(0.0, rate * L, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let s = Vector3::new(shift[0] as f64, shift[1] as f64, shift[2] as f64);
    // A inside the cell, near the faces the shift crosses; B's image 2R + 1 mm from A,
    // approaching along a slanted line.
    let frac = Vector3::new(0.5, 0.45, 0.55) + s * 0.42;
    let a = h * frac;
    let dir = (s + Vector3::new(0.1, -0.05, 0.08)).normalize();
    let image = a + dir * (2.0 * R + 0.001);
    let b = image - h * s;
    let vb = -dir * 0.4 + Vector3::new(-0.05, 0.1, 0.0);
    let steps = 1500;
    let (per, open, floor) = one_thread(|| {
        let mut per = sim_from_text(&scene((a, dir), (b, vb), Some(cell), steps), "p.ron").unwrap();
        let momentum = |sim: &Simulation| {
            let p = &sim.particles;
            p.vel[0] * p.mass[0] + p.vel[1] * p.mass[1]
        };
        let before = momentum(&per);
        // Mid-collision the contact forces on A and on B (through its image) are opposite
        // to the bit.
        while per.live_contacts == 0 && per.step < steps {
            per.step().unwrap();
        }
        per.run_steps(10).unwrap();
        assert_eq!(per.live_contacts, 1, "mid-collision");
        let f = &per.particles.force;
        assert_eq!(f[0], -f[1], "forces on A and B");
        let left = steps - per.step;
        per.run_steps(left).unwrap();
        let dm = momentum(&per) - before;
        // What remains is the rounding of the velocity increments.
        assert!(
            dm.norm() <= 1e-14 * before.norm(),
            "momentum changed by {dm:?} of {before:?}"
        );
        // In open space B's image moves with the cell: its velocity has Hdot s.
        let open = |t: Vector3<f64>| {
            run(
                &scene((a + t, dir), (image + t, vb + hdot * s), None, steps),
                steps,
            )
        };
        let reference = open(Vector3::zeros());
        // The rounding of the collision itself: the same collision in open space,
        // translated (by the lattice vector and by an odd vector) differs by this much.
        let mut floor = [0.0f64; 3];
        for t in [-(h * s), h * s, Vector3::new(0.0123, -0.0456, 0.0789)] {
            let d = differences(&open(t), &reference, [-t; 2], [Vector3::zeros(); 2]);
            (0..3).for_each(|k| floor[k] = floor[k].max(d[k]));
        }
        (per, reference, floor)
    });
    assert!(
        per.contact_steps > 100,
        "the spheres collided ({} contact steps)",
        per.contact_steps
    );
    assert_eq!(per.contact_steps, open.contact_steps, "contact steps");
    // Where the periodic run's particles are now, unwrapped: each by the lattice shift
    // that brings it nearest to its open-space twin.
    let pc = &per.periodic.as_ref().unwrap().cell;
    let unwrap = |id: usize| {
        let (x, y) = (
            per.particles.pos[per.order.index(id)],
            open.particles.pos[open.order.index(id)],
        );
        let f = pc.h.try_inverse().unwrap() * (y - x);
        pc.h * f.map(|x| x.round())
    };
    let d = differences(
        &per,
        &open,
        [unwrap(0), unwrap(1)],
        [Vector3::zeros(), hdot * s],
    );
    eprintln!("shift {shift:?}: periodic vs open {d:?}, open vs translated open {floor:?}");
    for k in 0..3 {
        // Never more than twice the collision's own rounding in open space (about 1e-13
        // of the positions, 1e-11 of the velocities, 1e-10 of the spins: the overlap is
        // found from coordinates 1000 times as large over some 100 steps in contact).
        assert!(
            floor[k] < 1e-9,
            "{shift:?}: rounding of the collision {floor:?}"
        );
        assert!(
            d[k] <= 2.0 * floor[k].max(1e-15),
            "{shift:?}: {d:?} against {floor:?}"
        );
    }
    // The cell moved as imposed.
    let t = per.time;
    // (H advanced by Hdot dt at every step: the rounding of some 1500 additions.)
    assert!((pc.h * s - (h + hdot * t) * s).norm() <= 1e-13 * L, "cell");
}

fn cell_text(gamma: f64, rate: f64) -> String {
    format!(
        "(edges: ((0.1, 0, 0), ({g:e}, 0.1, 0), (0, 0, 0.1)), periodic: \"xyz\",
          velocity_gradient: ((0, {rate:e}, 0), (0, 0, 0), (0, 0, 0)))",
        g = gamma * L
    )
}

#[test]
fn a_collision_across_each_face_equals_the_one_in_open_space() {
    for s in [
        [1, 0, 0],
        [-1, 0, 0],
        [0, 1, 0],
        [0, -1, 0],
        [0, 0, 1],
        [0, 0, -1],
    ] {
        across(s, 0.0, 0.0);
    }
}

#[test]
fn a_collision_across_an_edge_and_a_corner_equals_the_one_in_open_space() {
    across([1, -1, 0], 0.0, 0.0);
    across([1, 1, -1], 0.0, 0.0);
}

#[test]
fn a_collision_across_a_shearing_cell_equals_the_one_with_the_moving_image() {
    // Tilted 0.3, shearing at 5/s: B's image moves at 0.5 m/s along x.
    across([0, 1, 0], 0.3, 5.0);
    across([0, -1, 0], 0.3, -5.0);
    across([1, 1, 0], -0.2, 5.0);
}

/// 100 spheres with random velocities in a fully periodic cube of 1 cm sheared in x
/// along y at `rate`, `steps` of `dt`; elastic-frictional contacts with viscous damping.
fn sheared_gas(rate: f64, dt: f64, steps: u64) -> String {
    format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e7, poisson: 0.25, friction: 0.4) }},
        laws: [{LAW}],
        bodies: [
            Lattice(origin: (0.001, 0.001, 0.001), count: (5, 5, 4), spacing: 0.002,
                    radius: 0.0009, material: "m", velocity_spread: 0.5, seed: 3),
        ],
        cell: (edges: ((0.01, 0, 0), (0, 0.01, 0), (0, 0, 0.01)), periodic: "xyz",
               velocity_gradient: ((0, {rate:e}, 0), (0, 0, 0), (0, 0, 0))),
        gravity: (0, 0, 0),
        timestep: Fixed({dt:e}),
        duration: Steps({steps}),
    )"#
    )
}

/// Ledger error (total at the end less at the start) relative to the boundary work, and
/// the simulation.
fn shear_ledger(dt: f64, strain: f64) -> (f64, Simulation) {
    let rate = 250.0;
    let steps = (strain / rate / dt).round() as u64;
    let mut sim = sim_from_text(&sheared_gas(rate, dt, steps), "shear.ron").unwrap();
    sim.step().unwrap();
    let start = sim.ledger.total();
    let w0 = sim.ledger.boundary_work;
    sim.run_steps(steps - 1).unwrap();
    let work = sim.ledger.boundary_work - w0;
    ((sim.ledger.total() - start) / work, sim)
}

#[test]
fn the_ledger_closes_under_shear_through_flips() {
    let (coarse, sim) = shear_ledger(4e-6, 2.0);
    let per = sim.periodic.as_ref().unwrap();
    // Strain 2 from an upright cell: flips at tilt 0.6 and 1.6 (then 0.6 again).
    assert_eq!(per.cell.flips, 2, "flips");
    assert!(per.cell.h[(0, 1)].abs() <= 0.6 * 0.01 + 1e-12);
    assert!(sim.ledger.boundary_work > 0.0, "shearing does work");
    assert!(
        sim.contact_steps > 1000,
        "{} contact steps",
        sim.contact_steps
    );
    let (fine, _) = shear_ledger(2e-6, 2.0);
    eprintln!("ledger error / boundary work: dt 4e-6 {coarse:e}, dt 2e-6 {fine:e}");
    // Second order: a quarter at half the step (a loose factor 3 for the chaos of 100
    // spheres), and small.
    assert!(fine.abs() < 1e-3, "{fine:e}");
    assert!(fine.abs() < coarse.abs() / 3.0, "{coarse:e} -> {fine:e}");
}

/// Every bit of the particles, the ledger and the cell.
fn bits(sim: &Simulation) -> Vec<u64> {
    let p = &sim.particles;
    let mut out = Vec::new();
    for i in 0..p.len() {
        for v in [p.pos[i], p.vel[i], p.angvel[i], p.force[i], p.torque[i]] {
            out.extend(v.iter().map(|x| x.to_bits()));
        }
    }
    out.extend(sim.ledger.row().iter().map(|x| x.to_bits()));
    let cell = &sim.periodic.as_ref().unwrap().cell;
    out.extend(cell.h.iter().chain(cell.hdot.iter()).map(|x| x.to_bits()));
    out.push(cell.flips);
    out
}

#[test]
fn a_sheared_run_resumes_bitwise_from_a_checkpoint() {
    let text = sheared_gas(250.0, 4e-6, 2000);
    let mut whole = sim_from_text(&text, "shear.ron").unwrap();
    whole.run_steps(2000).unwrap();
    let mut parts = sim_from_text(&text, "shear.ron").unwrap();
    parts.run_steps(777).unwrap();
    assert!(parts.live_contacts > 0, "contacts at the checkpoint");
    let across = parts
        .contacts
        .live()
        .filter(|c| c.b as usize >= 100)
        .count();
    assert!(
        across > 0,
        "a contact across the cell's faces at the checkpoint"
    );
    let path = Path::new("shear.ckpt");
    let bytes = Checkpoint::capture(&parts, plugins(), Vec::new()).to_bytes();
    let ck = Checkpoint::from_bytes(&bytes, path).unwrap();
    let scene = ck.scene().unwrap();
    let mut parts = ck.restore(scene, plugins(), path).unwrap();
    parts.run_steps(2000 - 777).unwrap();
    // One flip before the checkpoint (strain 0.78 there), one after.
    assert_eq!(whole.periodic.as_ref().unwrap().cell.flips, 2);
    assert_eq!(
        parts.contacts.save(),
        whole.contacts.save(),
        "contact state"
    );
    assert!(bits(&parts) == bits(&whole), "trajectories differ");
}

#[test]
fn unfit_cells_are_refused_with_the_reason() {
    let with = |cell: &str, extra: &str| {
        let text = sheared_gas(1.0, 1e-6, 10)
            .replace(
                "cell: (edges: ((0.01, 0, 0), (0, 0.01, 0), (0, 0, 0.01)), periodic: \"xyz\",",
                cell,
            )
            .replace("gravity: (0, 0, 0),", extra);
        match sim_from_text(&text, "cell.ron") {
            Ok(_) => panic!("accepted: {cell} {extra}"),
            Err(e) => e.to_string(),
        }
    };
    let small = with(
        "cell: (edges: ((0.003, 0, 0), (0, 0.01, 0), (0, 0, 0.01)), periodic: \"xyz\",",
        "gravity: (0, 0, 0),",
    );
    assert!(
        small.contains("cell.ron")
            && small.contains("twice the cutoff")
            && small.contains("edge x"),
        "{small}"
    );
    let letters = with(
        "cell: (edges: ((0.01, 0, 0), (0, 0.01, 0), (0, 0, 0.01)), periodic: \"xq\",",
        "gravity: (0, 0, 0),",
    );
    assert!(
        letters.contains("cell.periodic") && letters.contains("`q`"),
        "{letters}"
    );
}

/// Two soft spheres (a contact of about 1100 steps), A at `a` with velocity `va`, B at `b`
/// with `vb`, in the cell `cell` or in open space.
fn soft_pair(
    a: Vector3<f64>,
    va: Vector3<f64>,
    b: Vector3<f64>,
    vb: Vector3<f64>,
    cell: Option<&str>,
) -> String {
    format!(
        r#"Scene(
        materials: {{ "m": (density: 2500, young: 1e6, poisson: 0.25, friction: 0.3) }},
        laws: [{LAW}],
        bodies: [
            Sphere(center: {a}, radius: {R}, material: "m", velocity: {va},
                   angular_velocity: (20, -30, 40)),
            Sphere(center: {b}, radius: {R}, material: "m", velocity: {vb},
                   angular_velocity: (-10, 15, 25)),
        ],
        {cell}
        gravity: (0, 0, 0),
        timestep: Fixed(2e-6),
        duration: Steps(2500),
    )"#,
        a = v3(a),
        b = v3(b),
        va = v3(va),
        vb = v3(vb),
        cell = cell.map_or(String::new(), |c| format!("cell: {c},")),
    )
}

#[test]
fn a_sphere_wrapped_across_a_shearing_face_mid_collision_keeps_its_relative_velocity() {
    // Lees-Edwards: A, near the top face of a tilted cell shearing at 5/s, runs up into
    // B's image above the face and crosses the face while they touch; wrapped to the
    // bottom, its velocity must lose the face's affine velocity Hdot (0, 1, 0) (0.5 m/s
    // along x), or its contact's relative velocity would jump by that much. The collision
    // must equal the one in open space with B at its image moving with the cell.
    let (gamma, rate) = (0.2, 5.0);
    let cell_text = cell_text(gamma, rate);
    let h = Matrix3::new(L, gamma * L, 0.0, 0.0, L, 0.0, 0.0, 0.0, L);
    let hdot = Matrix3::new(0.0, rate * L, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let s = Vector3::new(0.0, 1.0, 0.0);
    let a = h * Vector3::new(0.5, 0.95, 0.5);
    let dir = Vector3::new(0.1, 1.0, 0.05).normalize();
    let image = a + dir * (2.0 * R + 0.001);
    let b = image - h * s;
    let (va, vb) = (Vector3::new(0.1, 3.0, 0.05), Vector3::new(-0.05, 2.0, 0.0));
    let steps = 2500;
    let (per, open, floor, (drift, open_drift)) = one_thread(|| {
        let mut per = sim_from_text(&soft_pair(a, va, b, vb, Some(&cell_text)), "p.ron").unwrap();
        per.step().unwrap();
        let start = per.ledger.total();
        let mut wrapped_in_contact = false;
        while per.step < steps {
            let y = per.particles.pos[per.order.index(0)].y;
            per.step().unwrap();
            let jumped = per.particles.pos[per.order.index(0)].y < y - 0.5 * L;
            wrapped_in_contact |= jumped && per.live_contacts == 1;
        }
        assert!(wrapped_in_contact, "A was wrapped while touching B's image");
        let drift = (per.ledger.total() - start) / per.ledger.damping.abs();
        let open_run =
            |t: Vector3<f64>| run(&soft_pair(a + t, va, image + t, vb + hdot * s, None), steps);
        let reference = open_run(Vector3::zeros());
        let open_drift = {
            let mut o =
                sim_from_text(&soft_pair(a, va, image, vb + hdot * s, None), "o.ron").unwrap();
            o.step().unwrap();
            let start = o.ledger.total();
            o.run_steps(steps - 1).unwrap();
            (o.ledger.total() - start) / o.ledger.damping.abs()
        };
        let mut floor = [0.0f64; 3];
        for t in [h * s, Vector3::new(0.0123, -0.0456, 0.0789)] {
            let d = differences(&open_run(t), &reference, [-t; 2], [Vector3::zeros(); 2]);
            (0..3).for_each(|k| floor[k] = floor[k].max(d[k]));
        }
        (per, reference, floor, (drift, open_drift))
    });
    assert!(
        per.contact_steps > 500,
        "{} contact steps",
        per.contact_steps
    );
    assert_eq!(per.contact_steps, open.contact_steps, "contact steps");
    // Each particle's lattice shift to its open-space twin: the position moves by H u,
    // the velocity by Hdot u.
    let pc = &per.periodic.as_ref().unwrap().cell;
    let shift = |id: usize| {
        let (x, y) = (
            per.particles.pos[per.order.index(id)],
            open.particles.pos[open.order.index(id)],
        );
        (pc.h.try_inverse().unwrap() * (y - x)).map(|x| x.round())
    };
    let (ua, ub) = (shift(0), shift(1));
    assert_eq!(
        (ua, ub),
        (s, s),
        "A wrapped through the top face, B not at all"
    );
    let d = differences(
        &per,
        &open,
        [pc.h * ua, pc.h * ub],
        [pc.hdot * ua, pc.hdot * ub],
    );
    eprintln!(
        "wrapped mid-collision: periodic vs open {d:?}, floor {floor:?}; ledger error / \
         damping {drift:e}, in open space {open_drift:e}"
    );
    for k in 0..3 {
        assert!(floor[k] < 1e-9, "rounding of the collision {floor:?}");
        assert!(d[k] <= 2.0 * floor[k].max(1e-15), "{d:?} against {floor:?}");
    }
    // The kinetic energy the velocity change adds is booked as the boundary's work: the
    // ledger's error is the open-space collision's (the instant of contact onset).
    assert!(
        (drift - open_drift).abs() < 1e-9,
        "ledger error / damping {drift:e}, in open space {open_drift:e}"
    );
}
