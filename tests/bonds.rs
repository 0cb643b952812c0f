//! Bonds (dem-api 0.5.5) with Potyondy and Cundall's parallel bond, `Bond_Parallel`
//! (plugins/law-bond): a beam of radius `R`, area `A = pi R^2`, second moment
//! `I = pi R^4 / 4`, polar moment `J = 2 I`, normal and shear stiffness per area
//! `kn = E / (r1 + r2)`, `ks = kn / ratio`.
//!
//! The expected numbers are written here from beam theory, not from the plugin: a chain
//! of bonded spheres clamped at one end is a beam of `EI = kn I l`, `EA = kn A l`,
//! `GJ = ks J l` (`l` the centre distance: each bond's rotational stiffness `kn I` is
//! that of a beam element of length `l`), so its tip under a load `P` moves
//! `P L^3 / (3 EI)` (Euler-Bernoulli), `P L / EA` along the axis and turns `T L / GJ` under
//! a torque. A bond pulled apart at a constant rate breaks at the first step its tensile
//! stress `kn dn` reaches the strength, and likewise in shear.

use dem_core::engines::applied::Load;
use dem_core::{Checkpoint, Simulation};
use dem_verification::{plugins, sim_from_file, sim_from_text, state_bits as bits};
use nalgebra::{UnitQuaternion, Vector3};
use std::f64::consts::PI;
use std::path::Path;

const R: f64 = 0.005; // m
const DENSITY: f64 = 7800.0; // kg/m^3
const MODULUS: f64 = 1e9; // Pa, the bond's E
const GAP: f64 = 1e-5; // m between two neighbours' surfaces
const L: f64 = 2.0 * R + GAP; // centre distance

fn kn() -> f64 {
    MODULUS / (2.0 * R)
}

fn inertia() -> f64 {
    PI * R.powi(4) / 4.0
}

fn area() -> f64 {
    PI * R * R
}

/// A scene of steel spheres, `bodies` after one clamped at the origin, bonded where
/// within 0.1 mm by `Bond_Parallel` with `params` (after `modulus`), and `extra` settings.
fn bonded(bodies: &str, params: &str, extra: &str) -> String {
    format!(
        r#"Scene(
    materials: {{ "steel": (density: {DENSITY}, young: 1e9, poisson: 0.3, friction: 0.3) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kt_kn: 0.25, restitution: 0.5))],
    bonds: [(materials: ("steel", "steel"), bond: "Bond_Parallel",
             params: (modulus: {MODULUS}, {params}), between: Within(1e-4))],
    bodies: [
        Sphere(center: (0, 0, 0), radius: {R}, material: "steel", blocked: "xyzXYZ"),
        {bodies}
    ],
    {extra}
)"#
    )
}

/// A scene of `n` spheres in a row along x, the first clamped, bonded neighbour to
/// neighbour by `Bond_Parallel` with `params` (after `modulus`).
fn chain(n: usize, params: &str, extra: &str) -> String {
    let row = format!(
        r#"Lattice(origin: ({L}, 0, 0), count: ({}, 1, 1), spacing: {L}, radius: {R}, material: "steel"),"#,
        n - 1
    );
    bonded(&row, params, extra)
}

/// Runs `sim` in rounds of `round` steps until `measure` (a tip's displacement or turn)
/// changes by less than `1e-5` of itself over a round (at most `rounds` rounds).
fn settle(sim: &mut Simulation, measure: impl Fn(&Simulation) -> f64, round: u64, rounds: usize) {
    let mut last = measure(sim);
    for _ in 0..rounds {
        sim.run_steps(round).unwrap();
        let now = measure(sim);
        if (now - last).abs() < 1e-5 * now.abs() {
            return;
        }
        last = now;
    }
    panic!("the beam did not come to rest");
}

const STATIC: &str = "damping: 0.7, timestep: Critical(0.2), duration: Steps(10000000), \
                      output: (sphere_orientation: true)";

#[test]
fn a_bonded_cantilever_bends_stretches_and_twists_as_its_beam_theory_says() {
    let n = 20;
    let m = (n - 1) as f64; // bonds
    let span = m * L;
    let ei = kn() * inertia() * L;
    let ea = kn() * area() * L;
    let ratio = 2.0;
    let gj = kn() / ratio * 2.0 * inertia() * L;
    let params = format!("stiffness_ratio: {ratio}");
    let run = |load: Load| {
        let mut sim = sim_from_text(&chain(n, &params, STATIC), "beam.ron").unwrap();
        assert_eq!(
            sim.bonds.set.list.len(),
            n - 1,
            "neighbours only are within 0.1 mm"
        );
        sim.set_load((n - 1) as u64, load).unwrap();
        let tip = |sim: &Simulation| sim.order.index(n - 1);
        let start = sim.particles.pos[tip(&sim)];
        let measure = |sim: &Simulation| {
            let i = tip(sim);
            (sim.particles.pos[i] - start).norm() + sim.particles.ori[i].angle()
        };
        settle(&mut sim, measure, 20000, 200);
        (sim.particles.pos[tip(&sim)] - start, sim)
    };
    // Bending under a transverse tip load: Euler-Bernoulli, with the shear of the bonds'
    // shear springs (M P / (ks A)) beside it.
    let p = 0.01;
    let (moved, _) = run(Load {
        force: Vector3::new(0.0, 0.0, -p),
        torque: Vector3::zeros(),
    });
    let bending = p * span.powi(3) / (3.0 * ei);
    let shear = m * p / (kn() / ratio * area());
    let deflection = -moved.z;
    println!(
        "| bending | tip load {p} N | {deflection:.5e} m | P L^3 / (3 EI) = {bending:.5e} m \
         (+ shear {shear:.2e}) | {:.4} |",
        deflection / bending
    );
    assert!(
        (deflection / bending - 1.0).abs() < 0.01,
        "tip deflection {deflection} vs Euler-Bernoulli {bending}"
    );
    // Axial: the bonds in series.
    let p = 1.0;
    let (moved, _) = run(Load {
        force: Vector3::new(p, 0.0, 0.0),
        torque: Vector3::zeros(),
    });
    let axial = p * span / ea;
    println!(
        "| axial | tip load {p} N | {:.5e} m | P L / EA = {axial:.5e} m | {:.4} |",
        moved.x,
        moved.x / axial
    );
    assert!(
        (moved.x / axial - 1.0).abs() < 0.01,
        "{} vs {axial}",
        moved.x
    );
    // Torsion: the tip sphere's turn about the axis.
    let t = 1e-3;
    let (_, sim) = run(Load {
        force: Vector3::zeros(),
        torque: Vector3::new(t, 0.0, 0.0),
    });
    let q: UnitQuaternion<f64> = sim.particles.ori[sim.order.index(n - 1)];
    let turn = q.scaled_axis().x;
    let twist = t * span / gj;
    println!(
        "| torsion | tip torque {t} N m | {turn:.5e} rad | T L / GJ = {twist:.5e} rad | {:.4} |",
        turn / twist
    );
    assert!((turn / twist - 1.0).abs() < 0.01, "{turn} vs {twist}");
}

#[test]
fn the_shipped_beam_sags_under_its_weight_as_point_loads_on_a_beam() {
    let mut sim = sim_from_file("scenes/bonded_beam.ron");
    let n = sim.particles.len();
    let start = sim.particles.pos[sim.order.index(n - 1)];
    let end_step = sim.end_step;
    sim.run_steps(end_step).unwrap();
    let end = sim.particles.pos[sim.order.index(n - 1)];
    let l = 0.01001;
    let ei = 1e9 / 0.01 * inertia() * l;
    let span = (n - 1) as f64 * l;
    let weight = DENSITY * 4.0 / 3.0 * PI * R.powi(3) * 9.81;
    // A load P at x sags the tip P x^2 (3 L - x) / (6 EI).
    let expected: f64 = (1..n)
        .map(|j| {
            let x = j as f64 * l;
            weight * x * x * (3.0 * span - x) / (6.0 * ei)
        })
        .sum();
    let sag = start.z - end.z;
    println!("tip sag {sag:.5e} m, Euler-Bernoulli {expected:.5e} m");
    assert!((sag / expected - 1.0).abs() < 0.005, "{sag} vs {expected}");
    assert_eq!(sim.bonds.set.broken, 0);
    let l = &sim.ledger;
    assert!(l.total().abs() < 1e-9 * l.potential.abs(), "{l:?}");
}

/// Two spheres bonded, the first fixed, the second moved at `velocity` (m/s) by its
/// blocked degrees of freedom, in steps of 1 us.
fn pulled(velocity: [f64; 3], params: &str, steps: u64) -> String {
    let [vx, vy, vz] = velocity;
    let moved = format!(
        r#"Sphere(center: ({L}, 0, 0), radius: {R}, material: "steel", blocked: "xyzXYZ",
               velocity: ({vx}, {vy}, {vz})),"#
    );
    bonded(
        &moved,
        params,
        &format!("timestep: Fixed(1e-6), duration: Steps({steps}),"),
    )
}

/// Steps `sim` one at a time until its bond breaks; returns the step that broke it and
/// the bond's force (N, global) at the step before.
fn step_of_break(sim: &mut Simulation, most: u64) -> (u64, Vector3<f64>) {
    let mut force = Vector3::zeros();
    for _ in 0..most {
        let step = sim.step;
        sim.run_steps(1).unwrap();
        match sim.bonds.set.list.first() {
            Some(b) => force = b.force,
            None => return (step, force),
        }
    }
    panic!("the bond did not break in {most} steps");
}

#[test]
fn a_bond_breaks_at_its_tensile_strength_to_the_step() {
    // kn v dt = 1e11 * 0.01 * 1e-6 = 1000 Pa of tension per step: a strength of
    // 1,000,500 Pa is reached at step 1001 (step s stretches by s v dt).
    let v = 0.01;
    let strength = 1_000_500.0;
    let text = pulled(
        [v, 0.0, 0.0],
        &format!("tensile_strength: {strength}"),
        5000,
    );
    let mut sim = sim_from_text(&text, "pull.ron").unwrap();
    let (step, force) = step_of_break(&mut sim, 5000);
    let per_step = kn() * v * 1e-6;
    let expected = (strength / per_step).ceil() as u64;
    println!(
        "broke at step {step} (expected {expected}); force before {:.6e} N",
        force.x
    );
    assert_eq!(step, expected);
    // The step before, the bond pulled with kn A dn, dn = (s - 1) v dt.
    let before = kn() * area() * (expected - 1) as f64 * v * 1e-6;
    assert!(
        (-force.x / before - 1.0).abs() < 1e-6,
        "{} vs {before}",
        -force.x
    );
    assert_eq!((sim.bonds.set.broken, sim.bonds.set.list.len()), (1, 0));
    // What the moving sphere put in is what the break released: the total stays the
    // moving sphere's kinetic energy.
    let l = &sim.ledger;
    assert!(l.broken > 0.0 && l.elastic == 0.0, "{l:?}");
    assert!((l.total() - kinetic(v)).abs() < 1e-9 * l.broken, "{l:?}");
}

#[test]
fn a_bond_breaks_at_its_shear_strength_to_the_step() {
    // ks = kn / 2: 500 Pa of shear stress per step at 0.01 m/s sideways; 1,000,250 Pa is
    // reached at step 2001. The centre line turns by 2e-3 rad at most: the shear
    // displacement is v t to 2e-6, 2 Pa, well inside the quarter step of margin.
    let v = 0.01;
    let strength = 1_000_250.0;
    let params = format!("stiffness_ratio: 2.0, shear_strength: {strength}");
    let mut sim = sim_from_text(&pulled([0.0, v, 0.0], &params, 5000), "shear.ron").unwrap();
    let (step, force) = step_of_break(&mut sim, 5000);
    let per_step = kn() / 2.0 * v * 1e-6;
    let expected = (strength / per_step).ceil() as u64;
    println!("broke at step {step} (expected {expected}); force before {force:?}");
    assert_eq!(step, expected);
    let l = &sim.ledger;
    assert!((l.total() - kinetic(v)).abs() < 1e-9 * l.broken, "{l:?}");
}

/// Kinetic energy of a sphere moving at `v`, J.
fn kinetic(v: f64) -> f64 {
    0.5 * DENSITY * 4.0 / 3.0 * PI * R.powi(3) * v * v
}

/// A beam loaded at its tip hard enough that bonds break as it swings.
fn breaking_beam(threads: usize, steps: u64) -> Simulation {
    let text = chain(
        12,
        "tensile_strength: 4e5, shear_strength: 1e7",
        "damping: 0.0, timestep: Critical(0.2), duration: Steps(100000)",
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = sim_from_text(&text, "breaking.ron").unwrap();
        sim.set_load(
            11,
            Load {
                force: Vector3::new(0.0, 0.0, -0.2),
                torque: Vector3::zeros(),
            },
        )
        .unwrap();
        sim.run_steps(steps).unwrap();
        sim
    })
}

#[test]
fn bonds_resume_bitwise_and_threads_agree() {
    let whole = breaking_beam(1, 6000);
    println!(
        "{} of 11 bonds broke; ledger total {:e} J, released {:e} J",
        whole.bonds.set.broken,
        whole.ledger.total(),
        whole.ledger.broken
    );
    assert!(whole.bonds.set.broken > 0 && whole.bonds.set.broken < 11);
    let mut first = breaking_beam(1, 3000);
    let bytes = Checkpoint::capture(&first, plugins(), Vec::new()).to_bytes();
    let ck = Checkpoint::from_bytes(&bytes, Path::new("beam.ckpt")).unwrap();
    let scene = ck.scene().unwrap();
    let mut resumed = ck
        .restore(scene, plugins(), Path::new("beam.ckpt"))
        .unwrap();
    resumed.run_steps(3000).unwrap();
    first.run_steps(3000).unwrap();
    assert!(
        bits(&resumed) == bits(&whole),
        "a resumed run continues bitwise"
    );
    assert!(bits(&first) == bits(&whole));
    assert!(
        bits(&breaking_beam(2, 6000)) == bits(&whole),
        "2 threads give 1 thread's bits"
    );
}

fn refused(text: &str) -> String {
    match sim_from_text(text, "bad.ron") {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_bonds_are_refused_with_the_field_named() {
    let base = chain(3, "tensile_strength: 1e6", STATIC);
    let e = refused(&base.replace("Bond_Parallel", "Bond_Nothing"));
    assert!(
        e.contains("bonds[0]") && e.contains("Bond_Nothing") && e.contains("Bond_Parallel"),
        "{e}"
    );
    let e = refused(&base.replace("tensile_strength: 1e6", "tensile_strength: -1"));
    assert!(
        e.contains("bad.ron:5:") && e.contains("tensile_strength"),
        "{e}"
    );
    let e = refused(&base.replace("Within(1e-4)", "Within(-1)"));
    assert!(e.contains("bonds[0]") && e.contains("Within"), "{e}");
    let e = refused(&base.replace(
        "(\"steel\", \"steel\"), bond",
        "(\"steel\", \"rock\"), bond",
    ));
    assert!(e.contains("unknown material `rock`"), "{e}");
    let dir = std::env::temp_dir().join(format!("dem-bonds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("listed.ron");
    let listed = |csv: &str| {
        std::fs::write(dir.join("pairs.csv"), csv).unwrap();
        let text = base.replace("Within(1e-4)", "File(\"pairs.csv\")");
        std::fs::write(&scene, &text).unwrap();
        dem_core::Simulation::new(dem_core::Scene::load(&scene).unwrap(), plugins())
    };
    let ok = listed("a,b\n0,2\n1,2\n").unwrap();
    let ids: Vec<[u64; 2]> = ok.bonds.set.list.iter().map(|b| b.ids).collect();
    assert_eq!(
        ids,
        vec![[0, 2], [1, 2]],
        "the file's pairs, not the neighbours"
    );
    for (csv, says) in [
        ("x,y\n0,1\n", "header"),
        ("a,b\n0,7\n", "pairs.csv:2: b: no particle 7"),
        (
            "a,b\n0,1\n1,0\n",
            "pairs.csv:3: the pair 1, 0 is listed twice",
        ),
        ("a,b\n1,1\n", "same particle"),
        ("a,b\n0,one\n", "`one` is not a scene id"),
    ] {
        let e = listed(csv).err().unwrap().to_string();
        assert!(e.contains(says) && e.contains("bonds[0]"), "{csv}: {e}");
    }
    let periodic = base.replace(
        "damping: 0.7,",
        "damping: 0.7, cell: (edges: ((1, 0, 0), (0, 1, 0), (0, 0, 1)), periodic: \"xyz\"),",
    );
    let e = refused(&periodic);
    assert!(e.contains("bonds") && e.contains("periodic"), "{e}");
}

#[test]
fn a_failing_bond_law_stops_the_run_with_the_bond_named() {
    for (fault, says) in [
        ("nan", "every value must be finite"),
        ("panic", "every value must be finite"),
    ] {
        let text = chain(3, "", "timestep: Fixed(1e-6), duration: Steps(10)")
            .replace("Bond_Parallel", "Bond_Test_Faulty")
            .replace(
                &format!("modulus: {MODULUS}, "),
                &format!("fault: \"{fault}\""),
            );
        let mut sim = sim_from_text(&text, "faulty.ron").unwrap();
        sim.step().unwrap();
        let e = sim.step().unwrap_err().to_string();
        println!("{fault}: {e}");
        assert!(
            e.contains("Bond_Test_Faulty") && e.contains("test-faulty") && e.contains(says),
            "{e}"
        );
        assert!(e.contains("the bond between particles 0 and 1"), "{e}");
    }
    let text = chain(3, "", "timestep: Critical(0.2), duration: Steps(10)")
        .replace("Bond_Parallel", "Bond_Test_Faulty")
        .replace(&format!("modulus: {MODULUS}, "), "fault: \"stiffness\"");
    let e = refused(&text);
    assert!(
        e.contains("Bond_Test_Faulty") && e.contains("stiffness"),
        "{e}"
    );
}

#[test]
fn a_reform_rule_bonds_pairs_that_come_within_its_distance() {
    // Sphere 2 approaches at 0.01 m/s from a gap of 5.05 um: the gap is within 1 um from
    // step 405 on, and the rule, passing every 10 steps, bonds the pair at step 410.
    let start = 2.0 * R + 5.05e-6;
    let text = pulled([-0.01, 0.0, 0.0], "", 1000)
        .replace(
            "between: Within(1e-4))",
            "between: Within(1e-6), reform: 10)",
        )
        .replace(
            &format!("center: ({L}, 0, 0)"),
            &format!("center: ({start}, 0, 0)"),
        );
    let mut sim = sim_from_text(&text, "reform.ron").unwrap();
    assert_eq!(sim.bonds.set.made, 0, "apart at t = 0");
    sim.run_steps(410).unwrap();
    assert!(sim.bonds.set.list.is_empty(), "not yet at step 409");
    sim.run_steps(1).unwrap();
    assert_eq!(
        (sim.bonds.set.list.len(), sim.bonds.set.made),
        (1, 1),
        "made at step 410"
    );
    // Made unloaded: the law's gap at onset is the gap of step 410.
    let b = &sim.bonds.set.list[0];
    let gap = b.l6.unwrap().u.x;
    assert!((b.state[0] - gap).abs() < 1e-12 * R, "{:?}", b.state);
    assert!(
        (gap - (start - 2.0 * R - 410.0 * 1e-8)).abs() < 1e-12,
        "{gap}"
    );
    // A File rule lists the pairs of t = 0: it cannot make bonds anew.
    let e = refused(&text.replace("Within(1e-6), reform: 10", "File(\"x.csv\"), reform: 10"));
    assert!(e.contains("reform") && e.contains("Within"), "{e}");
}

#[test]
fn the_stress_of_a_region_counts_its_bonds() {
    use dem_core::engines::stress::{Region, Stress};
    let v = 0.01;
    let mut sim = sim_from_text(&pulled([v, 0.0, 0.0], "", 1000), "stress.ron").unwrap();
    sim.run_steps(500).unwrap();
    // The last step (499) stretched the bond by 499 v dt; the spheres have moved on by a
    // step since, and the stress reads them where they are.
    let tension = kn() * area() * 499.0 * v * 1e-6;
    let d = L + 500.0 * v * 1e-6;
    let region = Region {
        min: [-0.01, -0.01, -0.01],
        max: [0.03, 0.01, 0.01],
    };
    let volume = 0.04 * 0.02 * 0.02;
    let s = Stress::of(&sim, Some(&region)).unwrap();
    // Love-Weber: -T d / V of the bond (tension is negative stress), and the kinetic part
    // of the two spheres' velocities about their mean (+-v/2 each).
    let mass = DENSITY * 4.0 / 3.0 * PI * R.powi(3);
    let expected = (-tension * d + mass * v * v / 2.0) / volume;
    println!(
        "s_xx {:.9e} Pa, expected {expected:.9e} Pa",
        s.sigma[(0, 0)]
    );
    assert!(
        (s.sigma[(0, 0)] / expected - 1.0).abs() < 1e-9,
        "{} vs {expected}",
        s.sigma[(0, 0)]
    );
    assert_eq!(s.coordination, 0.0, "a bond is not a contact");
}
