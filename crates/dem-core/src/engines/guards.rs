//! Guards of the run: checks after each step that stop a run whose results became
//! meaningless, naming the step and the particle.
//!
//! - A non-finite energy: the ledger's total is not finite although every position and
//!   velocity is (a velocity of 1e300 m/s has an infinite kinetic energy, a density of
//!   1e308 an infinite potential energy). The particle whose own energy is not finite is
//!   named, else the one of largest energy (the sum overflowed).
//! - Energy growth: the ledger's total (conserved when every source and sink is booked,
//!   boundary work included) rose since the first step by more than [`GROWTH_FACTOR`] times
//!   the run's energy scale: the kinetic, rotational and elastic energy after the first
//!   step, plus the potential energy the particles can release by falling through the
//!   height of the packing (and their diameter), plus the boundary work done so far. Energy
//!   created from nothing on that scale is an instability (a time step above the critical
//!   one, a law with a wrong stiffness), not round-off: the run stops, naming the particle
//!   of largest kinetic energy.

use crate::engines::reorder::ParticleOrder;
use crate::model::energy::Ledger;
use crate::model::particles::Particles;
use crate::support::error::DemError;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// The energy growth that stops a run, in units of the run's energy scale.
pub const GROWTH_FACTOR: f64 = 10.0;

/// Growth below this fraction of the ledger's magnitude is round-off of the total.
const ROUND_OFF: f64 = 1e-9;

/// What the energy-growth guard measures against: taken after the first step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EnergyReference {
    /// The ledger's total after the first step, J.
    pub total: f64,
    /// Kinetic, rotational and elastic energy then, plus the potential energy the
    /// particles can release, J.
    pub scale: f64,
}

/// The energy of particle `i` now: (kinetic, rotational, potential), J (zero for a particle
/// of infinite mass).
fn energies(p: &Particles, g: &Vector3<f64>, i: usize) -> [f64; 3] {
    let m = p.mass[i];
    if !m.is_finite() {
        return [0.0; 3];
    }
    let w = p.angvel[i];
    let j = p.inertia[i];
    let rot = if j.iter().all(|x| x.is_finite()) {
        0.5 * (j.x * w.x * w.x + j.y * w.y * w.y + j.z * w.z * w.z)
    } else {
        0.0
    };
    [
        0.5 * m * p.vel[i].norm_squared(),
        rot,
        -m * g.dot(&p.pos[i]),
    ]
}

fn describe(p: &Particles, i: usize, e: [f64; 3]) -> String {
    let v = |x: Vector3<f64>| format!("[{:e}, {:e}, {:e}]", x.x, x.y, x.z);
    format!(
        "kinetic {:e} J, rotational {:e} J, potential {:e} J (mass {:e} kg, position {} m, \
         velocity {} m/s, angular velocity {} rad/s)",
        e[0],
        e[1],
        e[2],
        p.mass[i],
        v(p.pos[i]),
        v(p.vel[i]),
        v(p.angvel[i])
    )
}

/// Stops a run whose ledger is not finite (see the module documentation); `step` is the
/// step that was computed.
pub fn check_finite_energy(
    step: u64,
    ledger: &Ledger,
    p: &Particles,
    g: &Vector3<f64>,
    order: &ParticleOrder,
) -> Result<(), DemError> {
    if ledger.total().is_finite() {
        return Ok(());
    }
    let mut largest: Option<(usize, f64)> = None;
    for i in 0..p.len() {
        let e = energies(p, g, i);
        if e.iter().any(|x| !x.is_finite()) {
            return Err(DemError::NonFinite {
                step,
                particle: order.id(i),
                what: format!("non-finite energy: {}", describe(p, i, e)),
            });
        }
        let size = e.iter().map(|x| x.abs()).sum::<f64>();
        if largest.is_none_or(|(_, s)| size > s) {
            largest = Some((i, size));
        }
    }
    let row: Vec<String> = Ledger::COLUMNS
        .iter()
        .zip(ledger.row())
        .map(|(name, x)| format!("{name} {x:e}"))
        .collect();
    let (i, _) = largest.unwrap_or((0, 0.0));
    Err(DemError::NonFinite {
        step,
        particle: order.id(i),
        what: format!(
            "the energy ledger is not finite ({}); the particle of largest energy: {}",
            row.join(", "),
            describe(p, i, energies(p, g, i))
        ),
    })
}

/// The guard's reference after the first step (see the module documentation).
pub fn reference(ledger: &Ledger, p: &Particles, g: &Vector3<f64>) -> EnergyReference {
    let down = g.try_normalize(0.0);
    let (mut lo, mut hi, mut weight, mut diameter) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0.0);
    for i in 0..p.len() {
        let Some(r) = p.shape[i].bounding_radius() else {
            continue;
        };
        if !p.mass[i].is_finite() {
            continue;
        }
        if let Some(d) = down {
            let h = d.dot(&p.pos[i]);
            (lo, hi) = (lo.min(h), hi.max(h));
        }
        weight += p.mass[i] * g.norm();
        diameter = f64::max(diameter, 2.0 * r);
    }
    let height = if hi >= lo { hi - lo } else { 0.0 };
    EnergyReference {
        total: ledger.total(),
        scale: ledger.kinetic + ledger.rotational + ledger.elastic + weight * (height + diameter),
    }
}

/// Stops a run whose ledger's total rose by more than [`GROWTH_FACTOR`] times its energy
/// scale since `reference`; `step` is the step that was computed.
pub fn check_growth(
    step: u64,
    reference: &EnergyReference,
    ledger: &Ledger,
    p: &Particles,
    order: &ParticleOrder,
) -> Result<(), DemError> {
    let growth = ledger.total() - reference.total;
    let scale =
        reference.scale + ledger.boundary_work.abs() + ledger.inflow.abs() + ledger.outflow.abs();
    let magnitude: f64 = ledger.row().iter().map(|x| x.abs()).sum();
    if growth <= GROWTH_FACTOR * scale || growth <= ROUND_OFF * magnitude {
        return Ok(());
    }
    let fastest = (0..p.len())
        .filter(|&i| p.mass[i].is_finite())
        .max_by(|&a, &b| {
            let k = |i: usize| p.mass[i] * p.vel[i].norm_squared();
            k(a).total_cmp(&k(b))
        })
        .unwrap_or(0);
    Err(DemError::EnergyGrowth {
        step,
        particle: order.id(fastest),
        what: format!(
            "the energy ledger's total rose by {growth:e} J since the first step, more than \
             {GROWTH_FACTOR} times the run's energy scale ({scale:e} J: kinetic, rotational \
             and elastic energy after the first step, the potential energy the packing can \
             release, the boundary work): the run is unstable (a time step above the \
             critical one, or a law creating energy). Fastest particle: {} (velocity [{:e}, \
             {:e}, {:e}] m/s)",
            order.id(fastest),
            p.vel[fastest].x,
            p.vel[fastest].y,
            p.vel[fastest].z
        ),
    })
}
