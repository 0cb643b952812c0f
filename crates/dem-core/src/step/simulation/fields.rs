//! The coarse-grained fields of a running simulation (see [`crate::engines::coarse_grain`]):
//! its spheres and polyhedra and their live contacts.

use super::Simulation;
use crate::engines::coarse_grain::{coarse_grain, Fields, Grid, Kernel, Mass, Side};
use crate::model::particles::Shape;

impl Simulation {
    /// Density, velocity and stress of the particles on `grid`, smoothed by `kernel`, at
    /// the end of the last step. Refused in a periodic cell (the images across its faces
    /// are not smeared yet) and with clumps; the error names the field.
    pub fn coarse_grain(&self, grid: Grid, kernel: Kernel) -> Result<Fields, String> {
        if self.periodic.is_some() {
            return Err("coarse_grain: not available in a periodic cell yet".into());
        }
        if !self.clumps.is_empty() {
            return Err(
                "coarse_grain: not available with clumps yet (each member would count as a body)"
                    .into(),
            );
        }
        let p = &self.particles;
        let ball = |i: usize| matches!(p.shape[i], Shape::Sphere(_) | Shape::Polyhedron(_));
        let masses = (0..p.len()).filter(|&i| ball(i)).map(|i| Mass {
            pos: p.pos[i],
            vel: p.vel[i],
            mass: p.mass[i],
        });
        let sides = self
            .contacts
            .live_with_geometry()
            .flat_map(|(c, l6, pushed)| {
                let (b1, b2) = c.bodies();
                // The force on body 2 is `pushed.force`, on body 1 its opposite.
                [(b1, -pushed.force), (b2, pushed.force)].map(|(b, force)| (b, force, l6.point))
            })
            .filter(|&(b, _, _)| ball(b))
            .map(|(b, force, point)| Side {
                centre: p.pos[b],
                point,
                force,
            });
        coarse_grain(masses, sides, grid, kernel)
    }
}
