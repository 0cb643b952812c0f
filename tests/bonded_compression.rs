//! A bonded sample under uniaxial compression (Potyondy and Cundall's unconfined test,
//! 2004, section 3): spheres of random radii on a face-centred cubic lattice, each
//! bonded to its neighbours by `Bond_Parallel`, squeezed between two walls, the upper
//! one moving down at a constant speed. The axial stress (the upper wall's force over the
//! sample's section) rises, peaks and drops as the bonds break: a brittle solid. The test
//! checks the peak and the post-peak drop, and reports the peak (the unconfined strength
//! `q_u`) against the bonds' strength, as Potyondy and Cundall report theirs.

use dem_core::Simulation;
use dem_verification::sim_from_text;

const R0: f64 = 1e-3; // m: half the lattice's nearest-neighbour distance
const CELLS: [usize; 3] = [3, 3, 5];
const STRENGTH: f64 = 1e6; // Pa, tensile and shear
const SPEED: f64 = 0.02; // m/s, the upper wall
const END: f64 = 0.0045; // the axial strain at which the test ends

/// A small deterministic generator (a 64-bit linear congruence), uniform in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The sample: FCC sites of cube edge `2 sqrt(2) R0`, radii uniform in `[0.8, 1] R0`
/// (`R0` in the top and bottom layers, so that the platens press on all their spheres).
/// Returns the scene and the sample's width (m) and height (m).
fn sample(strength: f64) -> (String, f64, f64) {
    let a = 2.0 * 2f64.sqrt() * R0;
    let basis = [
        [0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0],
        [0.5, 0.0, 0.5],
        [0.0, 0.5, 0.5],
    ];
    let mut rng = Lcg(7);
    let mut spheres = Vec::new();
    for i in 0..CELLS[0] {
        for j in 0..CELLS[1] {
            for k in 0..CELLS[2] {
                for b in basis {
                    let x = [
                        (i as f64 + b[0]) * a,
                        (j as f64 + b[1]) * a,
                        (k as f64 + b[2]) * a,
                    ];
                    // The end layers touch the platens everywhere: radius R0.
                    let end = x[2] == 0.0 || x[2] == (CELLS[2] as f64 - 0.5) * a;
                    let r = if end {
                        R0
                    } else {
                        R0 * (0.8 + 0.2 * rng.next())
                    };
                    spheres.push((x, r));
                }
            }
        }
    }
    let bottom = spheres
        .iter()
        .map(|(x, r)| x[2] - r)
        .fold(f64::INFINITY, f64::min);
    let top = spheres
        .iter()
        .map(|(x, r)| x[2] + r)
        .fold(f64::NEG_INFINITY, f64::max);
    let bodies: Vec<String> = spheres
        .iter()
        .map(|(x, r)| {
            format!(
                "Sphere(center: ({}, {}, {}), radius: {r}, material: \"rock\")",
                x[0], x[1], x[2]
            )
        })
        .collect();
    let text = format!(
        r#"Scene(
    materials: {{
        "rock": (density: 2650, young: 1e9, poisson: 0.25, friction: 0.5),
        "platen": (density: 2650, young: 1e9, poisson: 0.25, friction: 0.5),
    }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kt_kn: 0.4, restitution: 0.5))],
    bonds: [(materials: ("rock", "rock"), bond: "Bond_Parallel",
             params: (modulus: 1e9, stiffness_ratio: 2.5, radius_multiplier: 1.0,
                      tensile_strength: {strength}, shear_strength: {strength}),
             between: Within({gap}))],
    bodies: [
        {bodies},
        Wall(point: (0, 0, {bottom}), normal: (0, 0, 1), sense: 1, material: "platen"),
        Wall(point: (0, 0, {top}), normal: (0, 0, 1), sense: -1, material: "platen",
             velocity: (0, 0, -{SPEED})),
    ],
    damping: 0.5,
    timestep: Critical(0.3),
    duration: Steps(1000000),
)"#,
        gap = 0.45 * R0,
        bodies = bodies.join(",\n        "),
    );
    // The section spans the outer spheres' sites plus a radius each side.
    let width = (CELLS[0] as f64 - 0.5) * a + 2.0 * R0;
    (text, width, top - bottom)
}

/// The axial stress on the upper wall, Pa (compression positive).
fn stress(sim: &Simulation, width: f64) -> f64 {
    let wall = sim.order.index(sim.particles.len() - 1);
    sim.particles.force[wall].z / (width * width)
}

/// Runs the test: the stress-strain curve as (strain, stress) pairs.
fn compress(strength: f64, strain_end: f64) -> (Vec<(f64, f64)>, Simulation) {
    let (text, width, height) = sample(strength);
    let mut sim = sim_from_text(&text, "ucs.ron").unwrap();
    let made = sim.bonds.set.made;
    assert!(
        made > 4 * sim.particles.len() as u64,
        "{made} bonds: up to 12 per sphere"
    );
    let mut curve = Vec::new();
    let every = 100;
    loop {
        sim.run_steps(every).unwrap();
        let strain = SPEED * sim.time / height;
        curve.push((strain, stress(&sim, width)));
        if strain >= strain_end {
            return (curve, sim);
        }
    }
}

#[test]
fn a_bonded_sample_peaks_and_softens_under_uniaxial_compression() {
    let (curve, sim) = compress(STRENGTH, END);
    let (at, peak) = curve
        .iter()
        .copied()
        .fold((0.0, f64::NEG_INFINITY), |best, (e, s)| {
            if s > best.1 {
                (e, s)
            } else {
                best
            }
        });
    let end = curve.last().unwrap().1;
    for (e, s) in curve.iter().step_by(4) {
        println!("{e:.5} {s:.4e}");
    }
    let set = &sim.bonds.set;
    println!(
        "peak q_u = {peak:.4e} Pa at strain {at:.5}; q_u / sigma_c = {:.3}; stress at the end \
         {end:.4e} Pa ({:.2} of the peak); bonds broken {} of {}",
        peak / STRENGTH,
        end / peak,
        set.broken,
        set.made
    );
    assert!(
        peak > 0.0 && at < 0.9 * END,
        "a peak before the end, at {at}"
    );
    assert!(
        end < 0.7 * peak,
        "the stress drops after the peak: {end} of {peak}"
    );
    assert!(set.broken > set.made / 10, "the drop is the bonds breaking");
    // The ledger closes through the breakage.
    let l = &sim.ledger;
    let flows = l.boundary_work.abs();
    assert!(l.total().abs() < 1e-3 * flows, "{l:?}");
}
