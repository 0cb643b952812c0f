//! The particles' state in scene-id order (the order of the scene's bodies, whatever the
//! storage order), read into flat buffers and written back with the scene's checks.

use dem_core::model::particles::Shape;
use dem_core::Simulation;
use nalgebra::Vector3;
use std::collections::BTreeSet;

/// A per-particle vector quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Position, m.
    Position,
    /// Velocity (leap-frog mid-step value v(t - dt/2)), m/s.
    Velocity,
    /// Angular velocity, rad/s.
    AngularVelocity,
    /// Force of the last step, N.
    Force,
    /// Torque of the last step, N m.
    Torque,
}

impl Field {
    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Field::Position => "position",
            Field::Velocity => "velocity",
            Field::AngularVelocity => "angular velocity",
            Field::Force => "force",
            Field::Torque => "torque",
        }
    }

    fn of(self, sim: &Simulation) -> &[Vector3<f64>] {
        let p = &sim.particles;
        match self {
            Field::Position => &p.pos,
            Field::Velocity => &p.vel,
            Field::AngularVelocity => &p.angvel,
            Field::Force => &p.force,
            Field::Torque => &p.torque,
        }
    }
}

/// `(scene id, storage index)` of every particle now, by scene id: the scene's bodies,
/// then the particles inlets inserted; particles outlets removed are missing.
pub fn live(sim: &Simulation) -> Vec<(usize, usize)> {
    sim.order.by_id(sim.particles.len())
}

/// `field` of every particle, `[x0, y0, z0, x1, ...]` in scene-id order.
pub fn vectors(sim: &Simulation, field: Field) -> Vec<f64> {
    let values = field.of(sim);
    let mut out = Vec::with_capacity(3 * values.len());
    for (_, i) in live(sim) {
        let v = values[i];
        out.extend_from_slice(&[v.x, v.y, v.z]);
    }
    out
}

/// A per-particle scalar in scene-id order.
pub fn scalars<T>(sim: &Simulation, f: impl Fn(usize) -> T) -> Vec<T> {
    live(sim).into_iter().map(|(_, i)| f(i)).collect()
}

/// Orientations as quaternions `[x, y, z, w]` (scalar last, as scipy's `Rotation` and the
/// VTK files), scene-id order.
pub fn orientations(sim: &Simulation) -> Vec<f64> {
    let mut out = Vec::with_capacity(4 * sim.particles.len());
    for (_, i) in live(sim) {
        let q = sim.particles.ori[i];
        out.extend_from_slice(&[q.i, q.j, q.k, q.w]);
    }
    out
}

/// The bounding radius (m; infinite for walls and facets, as in `particles.csv`).
pub fn radius(sim: &Simulation, i: usize) -> f64 {
    sim.particles.shape[i]
        .bounding_radius()
        .unwrap_or(f64::INFINITY)
}

/// Why particle `id` (scene id) cannot be given a state from outside, if it cannot: a
/// mesh facet or a boundary with a prescribed motion is moved by its motion.
fn moved_by_motion(sim: &Simulation, moving: &BTreeSet<usize>, id: usize) -> Option<String> {
    let i = sim.order.index(id);
    if matches!(sim.particles.shape[i], Shape::Facet(_)) {
        return Some(format!(
            "particle {id} is a facet of a mesh: meshes move rigidly, with their motion"
        ));
    }
    moving.contains(&i).then(|| {
        format!("particle {id} has a prescribed motion (its pose and velocity come from it)")
    })
}

/// Sets `field` of the particles `ids` (scene ids; every particle when `None`) to `values`
/// (`[x, y, z]` per particle), after checking every value; returns the energy this adds
/// (kinetic and rotational energy, 1/2 m v^2 and 1/2 J w^2, and potential energy, J), which
/// the caller books as work done on the particles from outside. Errors name the particle.
pub fn set_vectors(
    sim: &mut Simulation,
    field: Field,
    ids: Option<&[i64]>,
    values: &[[f64; 3]],
) -> Result<f64, String> {
    let n = sim.particles.len();
    let present: std::collections::BTreeMap<usize, usize> = live(sim).into_iter().collect();
    let all: Vec<i64>;
    let ids = match ids {
        Some(ids) => ids,
        None => {
            all = present.keys().map(|&id| id as i64).collect();
            &all
        }
    };
    if ids.len() != values.len() {
        return Err(format!(
            "{} values for {} particles: give one [x, y, z] per particle",
            values.len(),
            ids.len()
        ));
    }
    let moving: BTreeSet<usize> = sim
        .motions
        .iter()
        .flat_map(|g| g.members.iter().copied())
        .collect();
    let mut seen = BTreeSet::new();
    for (&id, v) in ids.iter().zip(values) {
        if id < 0 || !present.contains_key(&(id as usize)) {
            let gone = (id as usize) < sim.order.issued(n) && id >= 0;
            return Err(match gone {
                true => format!("particle {id}: removed by an outlet"),
                false => format!(
                    "particle {id}: no such particle (the scene has {n}, ids 0 to {})",
                    sim.order.issued(n).saturating_sub(1)
                ),
            });
        }
        let id = id as usize;
        if !seen.insert(id) {
            return Err(format!("particle {id} is given twice"));
        }
        if !v.iter().all(|x| x.is_finite()) {
            return Err(format!(
                "particle {id}: {} [{}, {}, {}] is not finite",
                field.name(),
                v[0],
                v[1],
                v[2]
            ));
        }
        let i = sim.order.index(id);
        let old = field.of(sim)[i];
        if Vector3::from(*v) != old {
            if let Some(why) = moved_by_motion(sim, &moving, id) {
                return Err(format!("cannot set the {}: {why}", field.name()));
            }
        }
    }
    let g = sim.integrator.gravity;
    let p = &mut sim.particles;
    let mut added = 0.0;
    for (&id, v) in ids.iter().zip(values) {
        let i = sim.order.index(id as usize);
        let (m, j) = (p.mass[i], p.inertia[i]);
        let new = Vector3::from(*v);
        let finite = m.is_finite();
        match field {
            Field::Position => {
                if finite {
                    added -= m * g.dot(&(new - p.pos[i]));
                }
                p.pos[i] = new;
            }
            Field::Velocity => {
                if finite {
                    added += 0.5 * m * (new.norm_squared() - p.vel[i].norm_squared());
                }
                p.vel[i] = new;
            }
            Field::AngularVelocity => {
                if j.iter().all(|x| x.is_finite()) {
                    let e = |w: &Vector3<f64>| {
                        0.5 * (j.x * w.x * w.x + j.y * w.y * w.y + j.z * w.z * w.z)
                    };
                    added += e(&new) - e(&p.angvel[i]);
                }
                p.angvel[i] = new;
            }
            Field::Force | Field::Torque => unreachable!("forces are results, not settable"),
        }
    }
    Ok(added)
}

/// Sets gravity (m/s^2); returns the potential energy this adds, J.
pub fn set_gravity(sim: &mut Simulation, g: [f64; 3]) -> Result<f64, String> {
    if !g.iter().all(|x| x.is_finite()) {
        return Err(format!(
            "gravity [{}, {}, {}] is not finite",
            g[0], g[1], g[2]
        ));
    }
    let new = Vector3::from(g);
    let dg = new - sim.integrator.gravity;
    let p = &sim.particles;
    let added = (0..p.len())
        .filter(|&i| p.mass[i].is_finite())
        .map(|i| -p.mass[i] * dg.dot(&p.pos[i]))
        .sum();
    sim.integrator.gravity = new;
    Ok(added)
}
