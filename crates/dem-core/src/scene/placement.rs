//! Checks of where the bodies start: no particle may start behind a one-sided wall (a
//! `Wall` with `sense` ±1, or a face of a `Box`). Such a wall acts on the whole half-space
//! behind it, so a sphere below a one-sided floor, or outside its box, starts in an
//! overlap of more than its radius and is thrown out with an energy that has nothing to
//! do with the scene.

use super::{BodySpec, Scene};
use crate::error::DemError;
use crate::particles::{Particles, Shape};
use std::ops::Range;

/// Refuses a particle that starts behind a one-sided wall; `spans[k]` holds the particles
/// of `scene.bodies[k]`.
pub fn check_sides(scene: &Scene, p: &Particles, spans: &[Range<usize>]) -> Result<(), DemError> {
    let body_of = |i: usize| spans.iter().position(|r| r.contains(&i)).unwrap_or(0);
    for w in 0..p.len() {
        let Shape::Wall(wall) = &p.shape[w] else {
            continue;
        };
        if wall.sense == 0 {
            continue;
        }
        let n = p.ori[w] * wall.normal.na() * f64::from(wall.sense);
        for i in (0..p.len()).filter(|&i| p.shape[i].bounding_radius().is_some()) {
            let depth = -n.dot(&(p.pos[i] - p.pos[w]));
            if depth <= 0.0 {
                continue;
            }
            let (kb, kw) = (body_of(i), body_of(w));
            let x = p.pos[i];
            let wall_name = match &scene.bodies[kw] {
                BodySpec::Box { .. } => {
                    let axis = ["x", "y", "z"][n.iamax()];
                    let end = if n[n.iamax()] > 0.0 { "min" } else { "max" };
                    format!("the {axis} = {end} face of the Box bodies[{kw}]")
                }
                _ => format!("the one-sided Wall bodies[{kw}]"),
            };
            let what = if spans[kb].len() > 1 {
                format!("bodies[{kb}] (its particle {})", i - spans[kb].start)
            } else {
                format!("bodies[{kb}]")
            };
            return Err(scene.error(format!(
                "{what}: starts with its centre [{}, {}, {}] m behind {wall_name}, {depth:e} m \
                 on the side the wall does not face (a one-sided wall pushes out everything \
                 behind it): move it in front of the wall, or make the wall two-sided \
                 (sense: 0)",
                x.x, x.y, x.z
            )));
        }
    }
    Ok(())
}
