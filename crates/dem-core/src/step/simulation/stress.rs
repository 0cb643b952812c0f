//! The stress of a running simulation (see [`crate::engines::stress`]): over its periodic cell, or
//! over a box region of its particles.

use super::Simulation;
use crate::engines::stress::{measure, PairForce, Region, Stress};
use nalgebra::Vector3;

impl Stress {
    /// The stress of `sim`'s periodic cell, or of `region` (required without a cell).
    /// `None` without either, or with an empty region.
    pub fn of(sim: &Simulation, region: Option<&Region>) -> Option<Stress> {
        match (&sim.periodic, region) {
            (Some(per), _) => {
                let inverse = per.cell.inverse();
                let affine = per.cell.hdot * inverse;
                let n = sim.particles.len();
                Some(measure(
                    contacts(sim),
                    &sim.materials,
                    true,
                    &per.ext,
                    per.cell.volume(),
                    |i| i < n,
                    |p, i| affine * p.pos[i],
                ))
            }
            (None, Some(r)) => {
                let (lo, hi) = (Vector3::from(r.min), Vector3::from(r.max));
                let volume = (hi - lo).product();
                let p = &sim.particles;
                let inside = |i: usize| {
                    p.shape[i].bounding_radius().is_some()
                        && (0..3).all(|k| p.pos[i][k] >= lo[k] && p.pos[i][k] < hi[k])
                };
                let (mut m, mut mv) = (0.0, Vector3::zeros());
                for i in (0..p.len()).filter(|&i| inside(i)) {
                    m += p.mass[i];
                    mv += p.vel[i] * p.mass[i];
                }
                if m == 0.0 || volume.is_nan() || volume <= 0.0 {
                    return None;
                }
                let mean = mv / m;
                Some(measure(
                    contacts(sim),
                    &sim.materials,
                    false,
                    p,
                    volume,
                    inside,
                    |_, _| mean,
                ))
            }
            (None, None) => None,
        }
    }
}

/// Each live contact of `sim`, then each intact bond: its bodies, its point and the
/// force on its body 2 (a bond's at its last step).
fn contacts(sim: &Simulation) -> impl Iterator<Item = PairForce> + '_ {
    let bonds = sim
        .bond_forces()
        .map(|(pair, point, force)| (pair, point, force, false));
    sim.contacts
        .live_with_geometry()
        .map(|(c, l6, pushed)| (c.bodies(), l6.point, pushed.force, true))
        .chain(bonds)
}
