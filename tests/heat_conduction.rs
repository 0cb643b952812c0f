//! Particle fields and their exchange (dem-api 0.5.4), with `Exchange_HeatConduction`
//! (plugins/heat-conduction): conduction through the contact disc, `H = 2 k a`
//! (Batchelor and O'Brien 1977), `a = sqrt(R* delta)`.
//!
//! The expected numbers are the closed forms of lumped conduction, written here from the
//! model's statement, not from the plugin: two equal spheres relax with the time
//! constant `m c / (2 H)`; a chain between two walls at fixed temperatures settles to the
//! profile of resistances in series (linear, for equal conductances); an insulated box
//! keeps its heat to round-off. The stepping is explicit (Euler): over `n` steps the
//! difference of two spheres shrinks by `(1 - 2 H dt / (m c))^n`, which the test uses to
//! check the conductance to round-off, and compares with the exponential of the
//! continuous solution within the scheme's error.

use dem_core::{Checkpoint, Simulation};
use dem_verification::{plugins, sim_from_text};
use std::f64::consts::PI;
use std::path::Path;

const RADIUS: f64 = 1e-3; // m
const DENSITY: f64 = 7800.0; // kg/m^3
const CAPACITY: f64 = 500.0; // J/(kg K)
const CONDUCTIVITY: f64 = 50.0; // W/(m K)

fn mass() -> f64 {
    DENSITY * 4.0 / 3.0 * PI * RADIUS.powi(3)
}

/// `H = 2 k sqrt(R* delta)`, the conductance of the model.
fn conductance(r_star: f64, overlap: f64) -> f64 {
    2.0 * CONDUCTIVITY * (r_star * overlap).sqrt()
}

/// A scene of fixed (blocked) bodies, so that the overlaps stay as placed: `bodies` and
/// `fields` written in, walls of material "wall", spheres of material "steel".
fn fixed_scene(bodies: &str, fields: &str, exchanges: &str, dt: f64, steps: u64) -> String {
    format!(
        r#"Scene(
    materials: {{
        "steel": (density: {DENSITY}, young: 2e8, poisson: 0.3, friction: 0.3),
        "wall": (density: {DENSITY}, young: 2e8, poisson: 0.3, friction: 0.3),
    }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kt_kn: 0.25, restitution: 0.5))],
    fields: {{ "temperature": {fields} }},
    exchanges: [{exchanges}],
    bodies: [{bodies}],
    timestep: Fixed({dt}),
    duration: Steps({steps}),
)"#
    )
}

fn temperatures(sim: &Simulation) -> Vec<f64> {
    let f = sim.exchanges.field("temperature").unwrap();
    sim.order
        .by_id(sim.particles.len())
        .into_iter()
        .map(|(_, i)| sim.particles.fields[f][i])
        .collect()
}

/// Two equal blocked spheres overlapping by `overlap` along x, at 300 K (x < 0) and
/// 400 K (x > 0), conducting.
fn pair_scene(overlap: f64, dt: f64, steps: u64) -> String {
    let x = RADIUS - overlap / 2.0;
    let bodies = format!(
        r#"Sphere(center: (-{x}, 0, 0), radius: {RADIUS}, material: "steel", blocked: "xyzXYZ"),
           Sphere(center: ({x}, 0, 0), radius: {RADIUS}, material: "steel", blocked: "xyzXYZ")"#
    );
    let fields = format!(
        r#"(capacity: {{"steel": {CAPACITY}}}, initial: 300,
        set: [(region: Box(min: (0, -1, -1), max: (1, 1, 1)), value: 400)])"#
    );
    let exchanges = format!(
        r#"(materials: ("steel", "steel"), exchange: "Exchange_HeatConduction", params: (conductivity: {CONDUCTIVITY}))"#
    );
    fixed_scene(&bodies, &fields, &exchanges, dt, steps)
}

#[test]
fn two_equal_spheres_relax_with_the_closed_form_time_constant() {
    let overlap = 2e-8;
    let (dt, steps) = (1e-2, 2000u64);
    let mut sim = sim_from_text(&pair_scene(overlap, dt, steps), "pair.ron").unwrap();
    sim.run_steps(steps).unwrap();
    let t = temperatures(&sim);
    // R* of two equal spheres is R / 2 (the branch lengths are R - delta / 2: a relative
    // difference of delta / (2 R) = 1e-5 in R*).
    let h = conductance(RADIUS / 2.0, overlap);
    let tau = mass() * CAPACITY / (2.0 * h);
    let ratio = (t[1] - t[0]) / 100.0;
    let continuous = (-(steps as f64) * dt / tau).exp();
    let explicit = (1.0 - dt / tau).powi(steps as i32);
    println!(
        "tau = {tau:.4} s; difference after {} s: {ratio:.6} of the first (explicit Euler \
         {explicit:.6}, continuous {continuous:.6})",
        steps as f64 * dt
    );
    // The measured time constant against the closed form (the scheme's error, about
    // dt / (2 tau) = 2e-4, and the branch-length term above).
    let measured = -(steps as f64) * dt / ratio.ln();
    assert!(
        (measured / tau - 1.0).abs() < 1e-3,
        "tau {measured} vs {tau}"
    );
    assert!(
        ratio < 0.95 && ratio > 0.2,
        "the run covers a good part of a time constant"
    );
    // Both move to the mean; the heat is kept.
    assert!(
        (t[0] + t[1] - 700.0).abs() < 1e-9,
        "mean {}",
        0.5 * (t[0] + t[1])
    );
    let b = sim.exchanges.balance(0, &sim.particles);
    assert!(b.error.abs() < 1e-12 * b.stored, "{b:?}");
    assert_eq!(b.ledger.boundary, 0.0);
}

#[test]
fn a_chain_between_walls_at_fixed_temperatures_reaches_the_linear_profile() {
    // Five spheres in a row along x between a hot wall at x = 0 and a cold one at the far
    // end. Sphere-sphere contacts overlap by d (R* = R / 2), sphere-wall ones by d / 2
    // (R* = R): every contact has the same conductance, and the steady profile of
    // resistances in series is linear in the contact count.
    let (n, d) = (5usize, 4e-8);
    let mut bodies = String::new();
    let mut x = RADIUS - d / 2.0;
    let mut centres = Vec::new();
    for k in 0..n {
        if k > 0 {
            x += 2.0 * RADIUS - d;
        }
        centres.push(x);
        bodies.push_str(&format!(
            "Sphere(center: ({x}, 0, 0), radius: {RADIUS}, material: \"steel\", blocked: \"xyzXYZ\"),\n"
        ));
    }
    let far = x + RADIUS - d / 2.0;
    bodies.push_str(&format!(
        r#"Wall(point: (0, 0, 0), normal: (1, 0, 0), sense: 1, material: "wall"),
           Wall(point: ({far}, 0, 0), normal: (1, 0, 0), sense: -1, material: "wall")"#
    ));
    let (hot, cold) = (400.0, 300.0);
    let fields = format!(
        r#"(capacity: {{"steel": {CAPACITY}}}, initial: {cold},
        set: [(region: Box(min: (-1, -1, -1), max: (1e-9, 1, 1)), material: "wall", value: {hot})])"#
    );
    let exchanges = format!(
        r#"(materials: ("*", "*"), exchange: "Exchange_HeatConduction", params: (conductivity: {CONDUCTIVITY}))"#
    );
    let h = conductance(RADIUS / 2.0, d);
    assert!((conductance(RADIUS, d / 2.0) / h - 1.0).abs() < 1e-15);
    // The slowest mode of the chain decays at about (pi / (n + 1))^2 H / (m c); run for
    // 40 of its time constants.
    let slowest = mass() * CAPACITY / h / (PI / (n + 1) as f64).powi(2);
    let dt = 0.2 * mass() * CAPACITY / (2.0 * h);
    let steps = (40.0 * slowest / dt).ceil() as u64;
    let text = fixed_scene(&bodies, &fields, &exchanges, dt, steps);
    let mut sim = sim_from_text(&text, "chain.ron").unwrap();
    sim.run_steps(steps).unwrap();
    let t = temperatures(&sim);
    for (k, got) in t[..n].iter().enumerate() {
        let want = hot - (hot - cold) * (k + 1) as f64 / (n + 1) as f64;
        println!(
            "sphere {k} at x = {:.4} mm: {got:.6} K (linear profile {want:.6} K)",
            centres[k] * 1e3
        );
        // The branch lengths (R - d / 2, R* within d / R = 4e-5 of the radii's) make the
        // conductances differ by a few 1e-5: a few 1e-4 K of the 100 K.
        assert!((got - want).abs() < 2e-3, "sphere {k}: {got} vs {want}");
    }
    assert_eq!(
        (t[n], t[n + 1]),
        (hot, cold),
        "the walls keep their temperatures"
    );
    // In the steady state the hot wall gives what the cold one takes; over the run the
    // walls gave what the spheres now hold more than at t = 0.
    let b = sim.exchanges.balance(0, &sim.particles);
    assert!(b.error.abs() < 1e-12 * b.stored, "{b:?}");
    let gained: f64 = t[..n].iter().map(|t| mass() * CAPACITY * (t - cold)).sum();
    assert!(
        (b.ledger.boundary / gained - 1.0).abs() < 1e-9,
        "{b:?} vs {gained}"
    );
}

/// 27 spheres settling into a box of walls in three columns of three, the lowest layer
/// hot: the walls are insulated (no exchange between "steel" and "wall").
fn box_scene() -> String {
    let mut bodies = String::new();
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                let (x, y, z) = (
                    -2.2e-3 + 2.2e-3 * i as f64 + 1e-5 * k as f64,
                    -2.2e-3 + 2.2e-3 * j as f64,
                    1.2e-3 + 2.3e-3 * k as f64,
                );
                bodies.push_str(&format!(
                    "Sphere(center: ({x}, {y}, {z}), radius: {RADIUS}, material: \"steel\"),\n"
                ));
            }
        }
    }
    for (point, normal) in [
        ("(0, 0, 0)", "(0, 0, 1)"),
        ("(-3.5e-3, 0, 0)", "(1, 0, 0)"),
        ("(3.5e-3, 0, 0)", "(-1, 0, 0)"),
        ("(0, -3.5e-3, 0)", "(0, 1, 0)"),
        ("(0, 3.5e-3, 0)", "(0, -1, 0)"),
    ] {
        bodies.push_str(&format!(
            "Wall(point: {point}, normal: {normal}, sense: 1, material: \"wall\"),\n"
        ));
    }
    format!(
        r#"Scene(
    materials: {{
        "steel": (density: {DENSITY}, young: 1e7, poisson: 0.3, friction: 0.4),
        "wall": (density: {DENSITY}, young: 1e7, poisson: 0.3, friction: 0.4),
    }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kt_kn: 0.25, restitution: 0.3))],
    fields: {{ "temperature": (capacity: {{"steel": {CAPACITY}}}, initial: 300,
        set: [(region: Box(min: (-1, -1, -1), max: (1, 1, 2e-3)), value: 500)]) }},
    exchanges: [(materials: ("steel", "steel"), exchange: "Exchange_HeatConduction",
        params: (conductivity: 400))],
    bodies: [{bodies}],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.3),
    duration: Steps(4000),
    contacts: (reorder: 500),
)"#
    )
}

fn run_box(threads: usize, steps: u64) -> Simulation {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = sim_from_text(&box_scene(), "box.ron").unwrap();
        sim.run_steps(steps).unwrap();
        sim
    })
}

#[test]
fn an_insulated_box_keeps_its_heat_and_threads_agree_bitwise() {
    let one = run_box(1, 4000);
    let b = one.exchanges.balance(0, &one.particles);
    println!("{b:?}");
    assert_eq!(b.ledger.boundary, 0.0, "insulated walls exchange nothing");
    assert!(b.error.abs() < 1e-13 * b.stored, "the heat is kept: {b:?}");
    // Heat did flow: the hot layer (500 K at t = 0) cooled.
    let t = temperatures(&one);
    let hot: f64 = t.iter().filter(|&&t| t > 400.0).map(|t| 500.0 - t).sum();
    println!("the hot spheres lost {hot:.4e} K in all");
    assert!(hot > 1e-3, "no heat flowed ({hot} K)");
    let two = run_box(2, 4000);
    let bits = |s: &Simulation| {
        temperatures(s)
            .iter()
            .map(|t| t.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        bits(&one),
        bits(&two),
        "1 and 2 threads give the same temperatures"
    );
}

#[test]
fn a_resumed_run_continues_the_temperatures_bitwise() {
    let whole = run_box(1, 3000);
    let mut first = run_box(1, 1500);
    let bytes = Checkpoint::capture(&first, plugins(), Vec::new()).to_bytes();
    let ck = Checkpoint::from_bytes(&bytes, Path::new("box.ckpt")).unwrap();
    let scene = ck.scene().unwrap();
    let mut resumed = ck.restore(scene, plugins(), Path::new("box.ckpt")).unwrap();
    resumed.run_steps(1500).unwrap();
    first.run_steps(1500).unwrap();
    let bits = |s: &Simulation| {
        temperatures(s)
            .iter()
            .map(|t| t.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&resumed), bits(&whole));
    assert_eq!(bits(&first), bits(&whole));
    assert_eq!(resumed.exchanges.ledger, whole.exchanges.ledger);
}

#[test]
fn bad_field_scenes_are_refused_with_the_field_named() {
    let bodies = r#"Sphere(center: (0, 0, 0), radius: 0.001, material: "steel")"#;
    let ex = r#"(materials: ("steel", "steel"), exchange: "Exchange_HeatConduction")"#;
    let cases = [
        (
            r#"(capacity: {}, initial: 300)"#,
            ex,
            "fields.temperature.capacity: no capacity for material `steel`",
        ),
        (
            r#"(capacity: {"steel": -1}, initial: 300)"#,
            ex,
            "capacity.steel: must be positive",
        ),
        (
            r#"(capacity: {"steel": 500}, initial: 300)"#,
            r#"(materials: ("steel", "steel"), exchange: "Exchange_Nothing")"#,
            "no loaded plugin offers the exchange `Exchange_Nothing`",
        ),
        (
            r#"(capacity: {"steel": 500}, initial: 300)"#,
            r#"(materials: ("steel", "steel"), exchange: "Exchange_HeatConduction", params: (conductivity: -2))"#,
            "conductivity must be finite and >= 0",
        ),
        (
            r#"(capacity: {"steel": 500}, initial: 300, set: [(material: "iron", value: 1)])"#,
            ex,
            "set[0].material: unknown material `iron`",
        ),
    ];
    for (fields, exchanges, want) in cases {
        let text = fixed_scene(bodies, fields, exchanges, 1e-6, 10);
        let err = match sim_from_text(&text, "bad.ron") {
            Ok(_) => panic!("accepted: {fields} {exchanges}"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(want), "{err}\n  should say: {want}");
    }
    // A field no exchange carries.
    let text = fixed_scene(
        bodies,
        r#"(capacity: {"steel": 500}, initial: 300)"#,
        "",
        1e-6,
        10,
    );
    let err = sim_from_text(&text, "bad.ron").err().unwrap().to_string();
    assert!(
        err.contains("fields.temperature: no exchange carries this field"),
        "{err}"
    );
}

#[test]
fn an_unstable_explicit_step_stops_the_run_with_the_particle_named() {
    // m c / H is about 5 s at an overlap of 2 um: a step of 8 s breaks the bound.
    let text = pair_scene(2e-6, 8.0, 10);
    let mut sim = sim_from_text(&text, "unstable.ron").unwrap();
    let err = sim.run_steps(10).err().unwrap().to_string();
    assert!(
        err.contains("step 0") && err.contains("particle 0") && err.contains("unstable"),
        "{err}"
    );
}

#[test]
fn particles_poured_in_and_taken_out_are_booked_in_the_heat_ledger() {
    // Spheres poured from an inlet at 320 K (its own value; the field's initial is 300 K)
    // onto a plate held at 400 K; an outlet opening at 0.25 s takes those on the half
    // x > 0.
    let text = format!(
        r#"Scene(
    materials: {{
        "steel": (density: {DENSITY}, young: 1e7, poisson: 0.3, friction: 0.4),
        "plate": (density: {DENSITY}, young: 1e7, poisson: 0.3, friction: 0.4),
    }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kt_kn: 0.25, restitution: 0.3))],
    fields: {{ "temperature": (capacity: {{"steel": {CAPACITY}}}, initial: 300,
        set: [(material: "plate", value: 400)]) }},
    exchanges: [(materials: ("steel", "*"), exchange: "Exchange_HeatConduction",
        params: (conductivity: 2000))],
    bodies: [Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "plate")],
    inlets: [Inlet(name: "pour", region: Cylinder(base: (0, 0, 0.004), axis: (0, 0, 1),
                radius: 0.006, height: 0.01),
              shape: Sphere, radius: Uniform(0.0009, 0.0011), material: "steel",
              rate: Number(400), total: 40, velocity: (0, 0, -0.2), seed: 5,
              fields: {{"temperature": 320}})],
    outlets: [Outlet(name: "half", region: Box(min: (0, -1, -1), max: (1, 1, 1)), start: 0.25)],
    gravity: (0, 0, -9.81),
    damping: 0.2,
    timestep: Critical(0.3),
    duration: Time(0.3),
)"#
    );
    let mut sim = sim_from_text(&text, "pour.ron").unwrap();
    let steps = sim.end_step;
    sim.run_steps(steps).unwrap();
    let b = sim.exchanges.balance(0, &sim.particles);
    println!("{b:?}");
    let inserted = sim.flow.inlets[0].state.count;
    let removed = sim.flow.outlets[0].state;
    println!(
        "inserted {inserted}, removed {} ({:.4e} kg)",
        removed.count, removed.mass
    );
    assert_eq!(inserted, 40);
    assert!(removed.count > 0 && (removed.count as usize) < 40);
    // Every inserted sphere came in at 320 K: the inflow is c 320 K times their mass.
    let inserted_mass: f64 = sim.flow.inlets[0].state.mass;
    assert!((b.ledger.inflow / (CAPACITY * 320.0 * inserted_mass) - 1.0).abs() < 1e-12);
    // The plate heated them, those removed carried their heat out (more than at 300 K).
    assert!(b.ledger.boundary > 0.0, "{b:?}");
    assert!(b.ledger.outflow > CAPACITY * 320.0 * removed.mass, "{b:?}");
    assert!(b.error.abs() < 1e-12 * b.stored, "{b:?}");
}

#[test]
fn a_ring_of_spheres_across_a_periodic_boundary_conducts_through_its_image_contact() {
    // Six blocked spheres in a row along x in a cell periodic in x: the last touches the
    // first through the boundary. Sphere 0 hot: its two neighbours, 1 and 5 (across the
    // boundary), warm alike, and the ring keeps its heat.
    let (n, d) = (6usize, 4e-8);
    let pitch = 2.0 * RADIUS - d;
    let mut bodies = String::new();
    for k in 0..n {
        let x = (k as f64 + 0.5) * pitch;
        bodies.push_str(&format!(
            "Sphere(center: ({x}, 0.005, 0.005), radius: {RADIUS}, material: \"steel\", blocked: \"xyzXYZ\"),\n"
        ));
    }
    let h = conductance(RADIUS / 2.0, d);
    let dt = 0.2 * mass() * CAPACITY / (2.0 * h);
    let steps = 15u64;
    let text = format!(
        r#"Scene(
    materials: {{ "steel": (density: {DENSITY}, young: 2e8, poisson: 0.3, friction: 0.3) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kt_kn: 0.25, restitution: 0.5))],
    fields: {{ "temperature": (capacity: {{"steel": {CAPACITY}}}, initial: 300,
        set: [(region: Box(min: (0, 0, 0), max: ({pitch}, 1, 1)), value: 400)]) }},
    exchanges: [(materials: ("steel", "steel"), exchange: "Exchange_HeatConduction",
        params: (conductivity: {CONDUCTIVITY}))],
    bodies: [{bodies}],
    cell: (edges: (({len}, 0, 0), (0, 0.01, 0), (0, 0, 0.01)), periodic: "x"),
    timestep: Fixed({dt}),
    duration: Steps({steps}),
)"#,
        len = n as f64 * pitch
    );
    let mut sim = sim_from_text(&text, "ring.ron").unwrap();
    sim.run_steps(steps).unwrap();
    let t = temperatures(&sim);
    println!("ring: {t:?}");
    assert!(
        t[0] > t[1] && t[1] > t[2] && t[2] > t[3] + 0.1,
        "still spreading: {t:?}"
    );
    assert!(
        t[5] > 300.1,
        "the neighbour across the boundary warms: {t:?}"
    );
    assert!(
        (t[1] - t[5]).abs() < 1e-9 * t[1],
        "symmetric across the boundary: {t:?}"
    );
    assert!((t[2] - t[4]).abs() < 1e-9 * t[2], "{t:?}");
    let total: f64 = t.iter().sum();
    assert!(
        (total - (400.0 + 300.0 * (n - 1) as f64)).abs() < 1e-9,
        "kept: {total}"
    );
}

#[test]
fn a_failing_exchange_stops_the_run_with_the_exchange_and_contact_named() {
    let bodies = format!(
        r#"Sphere(center: (-0.00099, 0, 0), radius: {RADIUS}, material: "steel", blocked: "xyzXYZ"),
           Sphere(center: (0.00099, 0, 0), radius: {RADIUS}, material: "steel", blocked: "xyzXYZ")"#
    );
    let fields = r#"(capacity: {"steel": 1}, initial: 0)"#;
    for fault in ["nan", "panic"] {
        let ex = format!(
            r#"(materials: ("steel", "steel"), exchange: "Exchange_Test_Faulty", params: (fault: "{fault}"))"#
        );
        let text = fixed_scene(&bodies, fields, &ex, 1e-6, 10)
            .replace("\"temperature\"", "\"faulty_value\"");
        let mut sim = sim_from_text(&text, "faulty.ron").unwrap();
        let err = sim.run_steps(10).err().unwrap().to_string();
        assert!(
            err.contains("Exchange_Test_Faulty (plugin test-faulty) failed on contact 0-1")
                && err.contains("flow NaN"),
            "{fault}: {err}"
        );
    }
    let ex = r#"(materials: ("steel", "steel"), exchange: "Exchange_Test_BadlyNamed")"#;
    let text =
        fixed_scene(&bodies, fields, ex, 1e-6, 10).replace("\"temperature\"", "\"bad name\"");
    let err = sim_from_text(&text, "badly.ron").err().unwrap().to_string();
    assert!(err.contains("declares a field named `bad name`"), "{err}");
}

#[test]
fn the_critical_step_keeps_one_contact_of_the_widest_disc_stable() {
    // A contact disc is no wider than the sphere: H <= 2 k R, and the explicit step of one
    // contact is stable while dt <= m c / H. With a capacity of 1e-3 J/(kg K) that is
    // far below the mechanical period, and Critical(0.5) takes half of it.
    let capacity = 1e-3;
    let text = pair_scene(2e-8, 1.0, 10)
        .replace("timestep: Fixed(1)", "timestep: Critical(0.5)")
        .replace(
            &format!("{{\"steel\": {CAPACITY}}}"),
            &format!("{{\"steel\": {capacity}}}"),
        );
    let sim = sim_from_text(&text, "critical.ron").unwrap();
    let expected = 0.5 * mass() * capacity / (2.0 * CONDUCTIVITY * RADIUS);
    println!("dt {:e} s, expected {expected:e} s", sim.dt());
    assert!((sim.dt() / expected - 1.0).abs() < 1e-12);
}
