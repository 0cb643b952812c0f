//! The polyhedra section of `dem bench`: a pour of `n` rocks (10,000 by default) in its
//! dense phase. The rocks of `scenes/rocks.ron` (hulls of 20 random points on ellipsoids
//! of semi-axes 8-12 mm x (1, 0.8, 0.6), its linear law with stiffness per area, rolling
//! and twisting resistance), placed at random at a bounding-sphere volume fraction of
//! 0.35 in a box, each given a seeded random velocity of up to 2 m/s (the impact speed
//! of scenes/rocks.ron's 30 cm fall), fall under
//! gravity: within a few hundred steps (a few tens of ms) most rocks touch a neighbour,
//! so the run measures polyhedron contacts being made, held and broken, not free flight.

use dem_core::model::particles::Shape;
use dem_core::{DemError, Simulation};
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Bounding-sphere volume fraction of the placement.
const FRACTION: f64 = 0.35;

/// Largest initial speed, m/s.
const SPEED: f64 = 2.0;

/// Side of the cubic box holding `n` rocks at [`FRACTION`], m (mean bounding volume from
/// the scale range 8-12 mm: the mean of s^3 over it).
fn side(n: u64) -> f64 {
    let (a, b): (f64, f64) = (0.008, 0.012);
    let mean_cube = (b.powi(4) - a.powi(4)) / (4.0 * (b - a));
    let volume = n as f64 * 4.0 / 3.0 * std::f64::consts::PI * mean_cube / FRACTION;
    volume.cbrt()
}

/// The pour scene with `n` rocks, run for `steps` steps, as RON text.
pub fn scene_text(n: u64, steps: u64) -> Result<String, DemError> {
    if !(2..=1_000_000).contains(&n) {
        return Err(DemError::Scene(format!(
            "bench rocks {n}: the pour is defined for 2 to 1,000,000 rocks"
        )));
    }
    let l = side(n);
    Ok(format!(
        r#"Scene(
    materials: {{ "rock": (density: 2600, young: 1e8, friction: 0.5) }},
    laws: [(materials: ("rock", "rock"), law: "Law2_L6Geom_LinearElPl",
            params: (kn_per_area: 1e8, kt_kn: 0.5, restitution: 0.3,
                     twisting: Cdt(mu: 0.1), rolling: Cdt(mu: 0.05)))],
    bodies: [
        Rocks(min: (0, 0, 0), max: ({l:?}, {l:?}, {l:?}), count: {n}, size: (0.008, 0.012),
              axes: (1, 0.8, 0.6), points: 20, material: "rock", seed: 11),
        Box(min: (0, 0, 0), max: ({l:?}, {l:?}, {h:?}), material: "rock"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps({steps}),
    contacts: (l6geom: (no_ratch: false, point_rate: true)),
)"#,
        h = 2.0 * l
    ))
}

/// Gives every rock of `sim` a seeded random velocity, uniform in the ball of radius
/// [`SPEED`].
pub fn stir(sim: &mut Simulation) {
    let mut rng = Pcg64::seed_from_u64(12345);
    let p = &mut sim.particles;
    for i in 0..p.len() {
        if !matches!(p.shape[i], Shape::Polyhedron(_)) {
            continue;
        }
        let v = loop {
            let v = Vector3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            if v.norm_squared() <= 1.0 {
                break v;
            }
        };
        p.vel[i] = v * SPEED;
    }
}
