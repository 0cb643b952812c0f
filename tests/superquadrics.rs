//! Superquadric particles, a shape offered by a plugin (`plugins/shape-superquadric`),
//! in whole runs: an ellipsoid comes to rest lying on its longest axis at the height of
//! its shortest half-axis; without damping the ledger closes to second order in the time
//! step through impacts and tumbling; superquadrics fill a box, collide, and resume
//! bitwise from checkpoints; bad shapes are refused with the field named.

use dem_core::files::checkpoint::Checkpoint;
use dem_core::model::particles::Shape;
use dem_core::step::simulation::population::NewSphere;
use dem_core::Simulation;
use dem_verification::superquadric::{ellipsoid, scene, FLOOR};
use dem_verification::{plugins, sim_from_text};
use nalgebra::Vector3;
use std::path::Path;

#[test]
fn an_ellipsoid_comes_to_rest_on_its_longest_axis() {
    let (a, b, c) = (0.03, 0.02, 0.01);
    let kn = 1e5;
    // Released with the shortest axis 1 rad off the vertical, 2 cm above the floor.
    let bodies = format!(
        "{}, {FLOOR}",
        ellipsoid([a, b, c], [0.0, 0.0, 0.05], [0.6, 0.8, 0.0], "")
    );
    let law = format!("kn: {kn}, kt_kn: 0.5, restitution: 0.3, twisting: Cdt(mu: 0.1)");
    let mut sim = sim_from_text(&scene(&bodies, &law, 9.81, 0.3, 0.2, 3.0), "rest.ron").unwrap();
    sim.run_steps(sim.end_step).unwrap();
    let p = &sim.particles;
    let i = (0..p.len()).find(|&i| p.mass[i].is_finite()).unwrap();
    let m = p.mass[i];
    let v = 4.0 / 3.0 * std::f64::consts::PI * a * b * c * 1000.0;
    assert!((m - v).abs() < 1e-12 * v, "mass {m} against {v}");
    // The shortest axis (body z) vertical, the height the half-axis less the overlap.
    let up = p.ori[i] * Vector3::z();
    let height = c - m * 9.81 / kn;
    println!(
        "at rest: axis tilt {:.3e} rad, height {:.9} m against {height:.9} m, speed {:.2e} m/s",
        up.z.abs().min(1.0).acos(),
        p.pos[i].z,
        p.vel[i].norm()
    );
    assert!(
        up.z.abs() > (1e-4f64).cos(),
        "the shortest axis is not vertical: {up:?}"
    );
    assert!(
        (p.pos[i].z - height).abs() < 1e-8,
        "height {} against {height}",
        p.pos[i].z
    );
    assert!(p.vel[i].norm() < 1e-5 && p.angvel[i].norm() < 1e-3);
}

/// Runs `sim` to its end; the largest `|total - total_0|` over the run relative to the
/// peak kinetic energy.
fn ledger_error(mut sim: Simulation) -> f64 {
    sim.step().unwrap();
    let first = sim.ledger.total();
    let (mut worst, mut peak) = (0.0f64, 0.0f64);
    while sim.step < sim.end_step {
        sim.step().unwrap();
        worst = worst.max((sim.ledger.total() - first).abs());
        peak = peak.max(sim.ledger.kinetic + sim.ledger.rotational);
    }
    worst / peak
}

/// Ledger errors at `Critical(f)` for each of `fs` (halving) of the scene `text(f)`,
/// printed; each halving of the step must divide the error by more than 3 (second
/// order: 4).
fn second_order(name: &str, fs: [f64; 3], text: impl Fn(f64) -> String) -> Vec<f64> {
    let errs: Vec<f64> = fs
        .iter()
        .map(|&f| ledger_error(sim_from_text(&text(f), "ledger.ron").unwrap()))
        .collect();
    println!("{name}: ledger errors {errs:?} for Critical({fs:?})");
    for w in errs.windows(2) {
        assert!(w[0] / w[1] > 3.0, "{name}: not second order: {errs:?}");
    }
    errs
}

#[test]
fn an_undamped_tumbling_ellipsoid_closes_the_ledger_to_second_order() {
    // Dropped tilted and spinning on a frictionless floor (restitution 1: no dashpot):
    // bounces with the contact point running over the surface.
    let bodies = format!(
        "{}, {FLOOR}",
        ellipsoid(
            [0.03, 0.02, 0.01],
            [0.0, 0.0, 0.04],
            [0.6, 0.8, 0.0],
            ", angular_velocity: (5, -3, 8)"
        )
    );
    second_order("tumbling ellipsoid", [0.2, 0.1, 0.05], |f| {
        scene(&bodies, "kn: 1e5, kt_kn: 0.5", 9.81, 0.0, f, 0.4)
            .replace("friction: 0.5", "friction: 0")
    });
}

#[test]
fn colliding_superquadrics_conserve_momentum_and_close_the_ledger() {
    // No gravity, no friction: a blocky superquadric hits an ellipsoid off-centre.
    let bodies = r#"
        Shaped(shape: "Superquadric", params: (half_axes: (0.03, 0.02, 0.02), blockiness: (4, 3)),
               position: (0, 0, 0), rotate: (0.3, -0.2, 0.5), material: "m", velocity: (1, 0, 0)),
        Shaped(shape: "Superquadric", params: (half_axes: (0.025, 0.02, 0.015), blockiness: (2, 2)),
               position: (0.06, 0.012, 0.008), rotate: (-0.4, 0.7, 0.1), material: "m",
               velocity: (-0.5, 0, 0))"#;
    let text = |f: f64| {
        scene(bodies, "kn: 1e5, kt_kn: 0.5", 0.0, 0.0, f, 0.06)
            .replace("friction: 0.5", "friction: 0")
    };
    // The first halving from 0.2 is not yet asymptotic (measured ratio 2.4).
    second_order("superquadric collision", [0.1, 0.05, 0.025], text);
    let mut sim = sim_from_text(&text(0.1), "collision.ron").unwrap();
    let momentum = |s: &Simulation| -> Vector3<f64> {
        (0..2)
            .map(|i| s.particles.mass[i] * s.particles.vel[i])
            .sum()
    };
    let l0 = momentum(&sim);
    let mut touched = false;
    while sim.step < sim.end_step {
        sim.step().unwrap();
        touched |= sim.live_contacts > 0;
    }
    let l1 = momentum(&sim);
    let spin: f64 = (0..2).map(|i| sim.particles.angvel[i].norm()).sum();
    println!("collision: momentum {l0:?} -> {l1:?}, spin {spin:.3} rad/s");
    assert!(touched, "the bodies never met");
    assert!((l1 - l0).norm() < 1e-12 * l0.norm());
    assert!(spin > 1.0, "an off-centre collision spins the bodies");
}

const FILL: &str = r#"
        ShapeFill(shape: "Superquadric", params: (half_axes: (0.012, 0.008, 0.006), blockiness: (3, 4)),
                  min: (0, 0, 0), max: (0.1, 0.1, 0.25), count: 60, material: "m", seed: 3),
        Sphere(center: (0.05, 0.05, 0.27), radius: 0.01, material: "m"),
        Box(min: (0, 0, 0), max: (0.1, 0.1, 0.4), material: "m")"#;

fn fill() -> Simulation {
    let text = scene(
        FILL,
        "kn: 1e4, kt_kn: 0.5, restitution: 0.3",
        9.81,
        0.0,
        0.2,
        1.0,
    );
    sim_from_text(&text, "fill.ron").unwrap()
}

/// Every bit of the particles' state and the ledger.
fn state(sim: &Simulation) -> Vec<u64> {
    let p = &sim.particles;
    let mut bits = Vec::new();
    for i in 0..p.len() {
        for v in [p.pos[i], p.vel[i], p.angvel[i], p.force[i], p.torque[i]] {
            bits.extend(v.iter().map(|x| x.to_bits()));
        }
        bits.extend(p.ori[i].coords.iter().map(|x| x.to_bits()));
    }
    bits.extend(sim.ledger.row().iter().map(|x| x.to_bits()));
    bits
}

#[test]
fn a_box_of_superquadrics_settles_and_resumes_bitwise() {
    let mut whole = fill();
    let steps = 3000;
    whole.run_steps(steps).unwrap();
    let mut parts = fill();
    parts.run_steps(1700).unwrap();
    let path = Path::new("fill.ckpt");
    let bytes = Checkpoint::capture(&parts, plugins(), Vec::new()).to_bytes();
    let ck = Checkpoint::from_bytes(&bytes, path).unwrap();
    let scene = ck.scene().unwrap();
    let mut parts = ck.restore(scene, plugins(), path).unwrap();
    parts.run_steps(steps - 1700).unwrap();
    let live = whole.live_contacts;
    println!("fill: {live} live contacts after {steps} steps");
    assert!(live > 20, "the bodies should be in contact by now: {live}");
    assert!(state(&parts) == state(&whole), "the resumed run differs");
    assert_eq!(
        parts.contacts.save(),
        whole.contacts.save(),
        "contact state differs"
    );
}

#[test]
fn bad_plugin_shapes_are_refused_with_the_field() {
    let bad = |body: &str| {
        let text = scene(&format!("{body}, {FLOOR}"), "kn: 1e4", 9.81, 0.0, 0.2, 0.1);
        match sim_from_text(&text, "bad.ron") {
            Ok(_) => panic!("accepted: {body}"),
            Err(e) => e.to_string(),
        }
    };
    let e = bad(r#"Shaped(shape: "Supercuadric", position: (0, 0, 1), material: "m")"#);
    assert!(
        e.contains("bodies[0].shape") && e.contains("Superquadric"),
        "{e}"
    );
    let e = bad(
        r#"Shaped(shape: "Superquadric", params: (half_axes: (1, 1, 1), blockiness: (1.5, 2)),
                  position: (0, 0, 1), material: "m")"#,
    );
    assert!(e.contains("bad.ron:4:") && e.contains("blockiness"), "{e}");
    let e = bad(
        r#"Shaped(shape: "Superquadric", params: (half_axes: (1, 1, 1), blokiness: (2, 2)),
                  position: (0, 0, 1), material: "m")"#,
    );
    assert!(
        e.contains("bodies[0].params") && e.contains("blokiness"),
        "{e}"
    );
    let e = bad(r#"Shaped(shape: "Sphere", position: (0, 0, 1), material: "m")"#);
    assert!(e.contains("built-in"), "{e}");
}

#[test]
fn the_vtk_output_draws_each_body_on_its_surface() {
    // Two bodies at rest without gravity: their poses stay those of the scene.
    let dir = dem_verification::root().join("target/superquadric-vtk");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bodies = [
        (
            [0.03, 0.02, 0.01],
            [2.0, 2.0],
            [0.1, 0.0, 0.05],
            [0.3, -0.5, 0.2],
        ),
        (
            [0.02, 0.02, 0.015],
            [4.0, 3.0],
            [-0.1, 0.05, 0.05],
            [-0.7, 0.1, 0.4],
        ),
    ];
    let text: Vec<String> = bodies
        .iter()
        .map(|(a, n, x, r)| {
            format!(
                r#"Shaped(shape: "Superquadric", params: (half_axes: {a:?}, blockiness: {n:?}),
                          position: {x:?}, rotate: {r:?}, material: "m")"#
            )
            .replace('[', "(")
            .replace(']', ")")
        })
        .collect();
    let scene_text = scene(&text.join(", "), "kn: 1e4", 0.0, 0.0, 0.2, 0.0)
        .replace("duration: Time(0)", "duration: Steps(10)")
        .replace("contacts:", "output: (every: 10),\n    contacts:");
    let path = dir.join("vtk.ron");
    std::fs::write(&path, scene_text).unwrap();
    dem_verification::dem_run(&path, &dir.join("out"));
    let file = dir.join("out/shapes_000000010.vtu");
    let grid = &dem_verification::read_vtk(&[&file])[file.to_str().unwrap()];
    let points: Vec<f64> = serde_json::from_value(grid["points"].clone()).unwrap();
    let ids: Vec<i64> = serde_json::from_value(grid["point_data"]["id"]["values"].clone()).unwrap();
    assert_eq!(points.len(), 3 * ids.len());
    for (k, (a, n, x, r)) in bodies.iter().enumerate() {
        let rot = nalgebra::UnitQuaternion::from_scaled_axis(Vector3::from(*r));
        let mine: Vec<Vector3<f64>> = (0..ids.len())
            .filter(|&j| ids[j] == k as i64)
            .map(|j| Vector3::new(points[3 * j], points[3 * j + 1], points[3 * j + 2]))
            .collect();
        assert!(mine.len() > 50, "body {k}: {} points", mine.len());
        for p in mine {
            let q = rot.inverse() * (p - Vector3::from(*x));
            let f = |i: usize| (q[i] / a[i]).abs();
            let implicit = (f(0).powf(n[1]) + f(1).powf(n[1])).powf(n[0] / n[1]) + f(2).powf(n[0]);
            assert!(
                (implicit - 1.0).abs() < 1e-9,
                "body {k}: a point off its surface: {implicit}"
            );
        }
    }
}

#[test]
fn dem_check_and_dem_plugins_show_the_shape_with_units() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(dem_verification::dem_exe())
            .args(args)
            .current_dir(dem_verification::root())
            .env_remove("RUST_LOG")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let check = run(&["check", "scenes/superquadrics.ron"]);
    assert!(check.contains("80 bodies of shape Superquadric"), "{check}");
    assert!(
        check.contains("half_axes [m]") && check.contains("blockiness [-]"),
        "{check}"
    );
    // An inlet's line says what it pours.
    let dir = dem_verification::root().join("target").join("test-scenes");
    std::fs::create_dir_all(&dir).unwrap();
    let poured = dir.join(format!("poured-{}.ron", std::process::id()));
    std::fs::write(&poured, POURED).unwrap();
    let check = run(&["check", poured.to_str().unwrap()]);
    let _ = std::fs::remove_file(&poured);
    assert!(
        check.contains(
            "400 particles/s of Superquadric bodies (half_axes: (2, 1, 1), blockiness: (3, 3)), \
             scaled to each radius, from t = 0 s"
        ),
        "{check}"
    );
    let catalogue = run(&["plugins"]);
    assert!(catalogue.contains("Superquadric: shape"), "{catalogue}");
    assert!(
        catalogue.contains(
            "Cg2_Superquadric_Superquadric_L6Geom: geometry for Superquadric + Superquadric"
        ),
        "{catalogue}"
    );
}

#[test]
fn superquadrics_on_one_and_two_threads_agree_bitwise() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut sim = fill();
            sim.run_steps(2500).unwrap();
            (state(&sim), sim.contacts.save(), sim.live_contacts)
        })
    };
    let (one, two) = (run(1), run(2));
    assert!(one.2 > 20, "too few contacts to share: {}", one.2);
    assert!(
        one.0 == two.0,
        "trajectories differ between 1 and 2 threads"
    );
    assert_eq!(
        one.1, two.1,
        "contact state differs between 1 and 2 threads"
    );
}

#[test]
fn bodies_of_a_plugin_shape_are_added_with_the_plugins() {
    let mut sim = fill();
    sim.run_steps(10).unwrap();
    let body = r#"[Shaped(shape: "Superquadric", params: (half_axes: (0.01, 0.01, 0.02)),
                          position: (0.05, 0.05, 0.35), material: "m")]"#;
    let e = sim.add_bodies(body).unwrap_err();
    assert!(e.contains("add_bodies_with"), "{e}");
    let ids = sim.add_bodies_with(plugins(), body).unwrap();
    assert_eq!(ids, vec![67]);
    let i = sim.particles.len() - 1;
    let v = 4.0 / 3.0 * std::f64::consts::PI * 0.01 * 0.01 * 0.02 * 1000.0;
    assert!((sim.particles.mass[i] - v).abs() < 1e-12 * v);
    sim.run_steps(10).unwrap();
    // A sphere added within the new body's bounding sphere (radius 0.02 m) is refused.
    let at = sim.particles.pos[i];
    let sphere = |dx: f64| NewSphere {
        center: at + Vector3::new(dx, 0.0, 0.0),
        radius: 0.005,
        material: "m".into(),
        velocity: Vector3::zeros(),
        angular_velocity: Vector3::zeros(),
    };
    let e = sim.add_spheres(&[sphere(0.024)]).unwrap_err();
    assert!(e.contains("sphere 0 overlaps particle 67"), "{e}");
    assert_eq!(sim.particles.len(), i + 1);
}

/// A box fed by an inlet of superquadrics (half-axes 2 : 1 : 1 at any size, blockiness
/// (3, 3)) of volume-equivalent radii uniform in [4, 6] mm.
const POURED: &str = r#"Scene(
    materials: { "m": (density: 1000, young: 1e7, friction: 0.5) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn: 1e4, kt_kn: 0.5, restitution: 0.3))],
    bodies: [Box(min: (0, 0, 0), max: (0.1, 0.1, 0.3), material: "m")],
    inlets: [Inlet(name: "feed", region: Box(min: (0.01, 0.01, 0.15), max: (0.09, 0.09, 0.28)),
                   shape: Shaped(shape: "Superquadric",
                                 params: (half_axes: (2, 1, 1), blockiness: (3, 3))),
                   radius: Uniform(0.004, 0.006), material: "m", seed: 7,
                   rate: Number(400), total: 40, velocity: (0, 0, -0.5), every: 200)],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Time(0.3),
    contacts: (l6geom: (no_ratch: false)),
)"#;

fn poured() -> Simulation {
    sim_from_text(POURED, "poured.ron").unwrap()
}

#[test]
fn an_inlet_pours_superquadrics_scaled_to_the_drawn_size() {
    let mut sim = poured();
    sim.run_steps(sim.end_step).unwrap();
    let p = &sim.particles;
    let mut count = 0;
    for i in 0..p.len() {
        let Shape::Plugin(b) = &p.shape[i] else {
            continue;
        };
        count += 1;
        // The template's shape at the drawn size: half-axes 2r0 : r0 : r0, blockiness
        // kept, and the volume of the sphere of the drawn radius.
        let v = b.properties.volume;
        let r = (0.75 * v / std::f64::consts::PI).cbrt();
        assert!((0.004..=0.006).contains(&r), "radius {r}");
        let axes = b.properties.half_extents;
        assert!(
            axes.x == 2.0 * axes.y && axes.y == axes.z,
            "{axes:?} from {}",
            b.params
        );
        assert!(b.params.contains("blockiness:(3.0,3.0)"), "{}", b.params);
        if count == 1 {
            println!("the first: {} (radius {r:e} m)", b.params);
        }
        let m = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        assert!((p.mass[i] - m).abs() < 1e-12 * m);
        let x = p.pos[i];
        assert!(
            (0.0..0.1).contains(&x.x) && (0.0..0.1).contains(&x.y) && (0.0..0.3).contains(&x.z),
            "body {i} left the box: {x:?}"
        );
    }
    println!(
        "{count} superquadrics poured; {} contacts",
        sim.live_contacts
    );
    assert_eq!(count, 40);
    assert!(sim.live_contacts > 10, "they meet");
}

#[test]
fn a_pour_of_superquadrics_resumes_bitwise() {
    let mut whole = poured();
    whole.run_steps(3000).unwrap();
    let mut parts = poured();
    parts.run_steps(1301).unwrap();
    let mut parts = dem_verification::flow::round_trip(&parts);
    parts.run_steps(3000 - 1301).unwrap();
    assert!(whole.particles.len() > 20);
    assert!(state(&whole) == state(&parts), "the resumed run differs");
}

#[test]
fn blocky_bodies_rocking_on_spheres_and_on_a_flat_face_close_the_ledger() {
    // A rounded cube (3, 3) dropped tilted and spinning onto a bed of fixed spheres (its
    // faces' flat middles against balls), and a (4, 4) one onto the flat face of a fixed
    // (4, 3) slab: the common normal must reach the minimum, not stop on a stalled
    // overlap (which once gave 18 % of the energy change from nowhere).
    let bed: Vec<String> = (-4..=4)
        .flat_map(|i| (-4..=4).map(move |j| (i, j)))
        .map(|(i, j)| {
            format!(
                r#"Sphere(center: ({:.3}, {:.3}, 0.002), radius: 0.002, material: "m", blocked: "xyzXYZ")"#,
                0.004 * f64::from(i),
                0.004 * f64::from(j)
            )
        })
        .collect();
    let cube = |n: u32| {
        format!(
            r#"Shaped(shape: "Superquadric", params: (half_axes: (0.005, 0.005, 0.005), blockiness: ({n}, {n})),
                      position: (0.001, 0.0005, 0.02), rotate: (0.3, 0.2, 0.1), material: "m",
                      angular_velocity: (5, -3, 2))"#
        )
    };
    let on_bed = format!("{}, {}", cube(3), bed.join(", "));
    second_order("rounded cube on spheres", [0.1, 0.05, 0.025], |f| {
        scene(&on_bed, "kn: 1e4, kt_kn: 0.5", 9.81, 0.0, f, 0.25)
    });
    let on_slab = format!(
        r#"{}, Shaped(shape: "Superquadric", params: (half_axes: (0.01, 0.01, 0.004), blockiness: (4, 3)),
                     position: (0, 0, 0.004), material: "m", blocked: "xyzXYZ")"#,
        cube(4)
    );
    second_order("rounded cube on a slab", [0.1, 0.05, 0.025], |f| {
        scene(&on_slab, "kn: 1e4, kt_kn: 0.5", 9.81, 0.0, f, 0.25)
    });
}

#[test]
fn a_blocky_cube_on_its_face_is_as_stiff_as_its_bounding_radius() {
    // A (6, 6) cube of half-side a set down flat on a floor, the linear law's stiffness
    // from the contact's radius (`2 E r`, no fixed `kn`). The middle of its face is flat:
    // its radii of curvature are unbounded there, and reported as they were they made the
    // contact far stiffer than the step the solver chose (a (6, 6) heap gained energy
    // from such contacts). The radius is bounded by the body's bounding radius, here the
    // distance to the surface along a diagonal, `3 t^6 = a^6`: `sqrt(3) t = 3^(1/3) a`.
    let (a, young) = (0.005, 1e7);
    let cube = format!(
        r#"Shaped(shape: "Superquadric", params: (half_axes: ({a}, {a}, {a}), blockiness: (6, 6)),
                  position: (0, 0, {}), material: "m")"#,
        a + 1e-4
    );
    let bodies = format!("{cube}, {FLOOR}");
    let law = "kt_kn: 0.5, restitution: 0.3";
    let mut sim = sim_from_text(&scene(&bodies, law, 9.81, 0.3, 0.2, 0.15), "face.ron").unwrap();
    let first = sim.ledger.total();
    sim.run_steps(sim.end_step).unwrap();
    let p = &sim.particles;
    let i = (0..p.len()).find(|&i| p.mass[i].is_finite()).unwrap();
    let kn = 2.0 * young * 3f64.cbrt() * a;
    let height = a - p.mass[i] * 9.81 / kn;
    println!(
        "at rest: height {:.12} m against {height:.12} m; ledger {:.3e} J",
        p.pos[i].z,
        sim.ledger.total() - first
    );
    assert!(
        (p.pos[i].z - height).abs() < 1e-11,
        "height {} against {height}",
        p.pos[i].z
    );
    assert!(p.vel[i].norm() < 1e-6 && p.angvel[i].norm() < 1e-4);
}
