//! The coarse-grained fields of a running simulation (see [`crate::engines::coarse_grain`]):
//! its spheres and polyhedra and their live contacts, with their periodic images in a
//! periodic cell.

use super::Simulation;
use crate::engines::coarse_grain::{coarse_grain, Fields, Grid, Images, Kernel, Mass, Side};
use crate::model::particles::{Particles, Shape};

impl Simulation {
    /// Density, velocity and stress of the particles on `grid`, smoothed by `kernel`, at
    /// the end of the last step. In a periodic cell every particle and contact is smeared
    /// at each of its images too (the grid may lie anywhere). Refused with clumps; the
    /// error names the field.
    pub fn coarse_grain(&self, grid: Grid, kernel: Kernel) -> Result<Fields, String> {
        if !self.clumps.is_empty() {
            return Err(
                "coarse_grain: not available with clumps yet (each member would count as a body)"
                    .into(),
            );
        }
        // In a periodic cell the contacts name the rows of `ext`: the particles, then the
        // image rows near the faces.
        let (rows, images) = match &self.periodic {
            Some(per) => (
                &per.ext,
                Some(Images {
                    h: per.cell.h,
                    hdot: per.cell.hdot,
                    periodic: per.cell.periodic,
                }),
            ),
            None => (&self.particles, None),
        };
        let p = &self.particles;
        let ball = |p: &Particles, i: usize| {
            matches!(p.shape[i], Shape::Sphere(_)) || p.shape[i].aspherical()
        };
        let masses = (0..p.len()).filter(|&i| ball(p, i)).map(|i| Mass {
            pos: p.pos[i],
            vel: p.vel[i],
            mass: p.mass[i],
        });
        // The bonds (none in a periodic cell) act at their point like contacts.
        let bonds = self.bond_forces();
        let sides = self
            .contacts
            .live_with_geometry()
            .map(|(c, l6, pushed)| (c.bodies(), l6.point, pushed.force))
            .chain(bonds)
            .flat_map(|((b1, b2), point, force)| {
                // The force on body 2 is `force`, on body 1 its opposite.
                [(b1, -force), (b2, force)].map(|(b, force)| (b, force, point))
            })
            .filter(|&(b, _, _)| ball(rows, b))
            .map(|(b, force, point)| Side {
                centre: rows.pos[b],
                point,
                force,
            });
        coarse_grain(masses, sides, grid, kernel, images)
    }
}
