//! Checks of where the bodies start: no particle may start behind a one-sided wall (a
//! `Wall` with `sense` ±1, or a face of a `Box`), nor with its centre inside a mesh facet
//! (within the facet's `halfthick` of its triangle). Such a particle starts in an overlap
//! of more than its radius and is thrown out with an energy that has nothing to do with
//! the scene: a one-sided wall acts on the whole half-space behind it, and a facet made
//! thicker than the particles (`halfthick: 1` around millimetre spheres) swallows them.

use super::{BodySpec, Scene};
use crate::engines::facet_grid::cell_range;
use crate::model::mesh::triangle_distance;
use crate::model::particles::{Particles, Shape};
use crate::support::cell_bins::{cell_count, CellBins};
use crate::support::error::DemError;
use std::ops::Range;

/// Refuses a particle whose centre starts inside a mesh facet of positive `halfthick`;
/// `spans[k]` holds the particles of `scene.bodies[k]`.
pub fn check_facets(scene: &Scene, p: &Particles, spans: &[Range<usize>]) -> Result<(), DemError> {
    let body_of = |i: usize| spans.iter().position(|r| r.contains(&i)).unwrap_or(0);
    let thick: Vec<usize> = (0..p.len())
        .filter(|&f| matches!(&p.shape[f], Shape::Facet(t) if t.shape.halfthick > 0.0))
        .collect();
    if thick.is_empty() {
        return Ok(());
    }
    let bounded: Vec<usize> = (0..p.len())
        .filter(|&i| p.shape[i].bounding_radius().is_some())
        .collect();
    let cell = crate::engines::broadphase::typical_radius(p).max(f64::MIN_POSITIVE) * 2.0;
    let mut bins = CellBins::default();
    bins.build(&bounded, &p.pos, cell);
    let mut near = Vec::new();
    for &f in &thick {
        let Shape::Facet(facet) = &p.shape[f] else {
            continue;
        };
        let h = facet.shape.halfthick;
        let [lo, hi] = cell_range(facet, p, f, h, cell);
        near.clear();
        if cell_count(lo, hi) > bounded.len() as f64 {
            near.extend_from_slice(&bounded);
        } else {
            let mut buckets = Vec::new();
            bins.buckets_in(lo, hi, &mut buckets);
            near.extend(
                buckets
                    .iter()
                    .flat_map(|&b| bins.bucket(b))
                    .map(|&i| i as usize),
            );
        }
        let v = facet.vertices(&p.pos[f], &p.ori[f]);
        for &i in &near {
            let d = triangle_distance(&p.pos[i], &v);
            if d >= h {
                continue;
            }
            let (kb, km) = (body_of(i), body_of(f));
            let what = if spans[kb].len() > 1 {
                format!("bodies[{kb}] (its particle {})", i - spans[kb].start)
            } else {
                format!("bodies[{kb}]")
            };
            let x = p.pos[i];
            return Err(scene.error(format!(
                "{what}: starts with its centre [{}, {}, {}] m inside triangle {} of the Mesh \
                 bodies[{km}]: {d:e} m from the triangle, within bodies[{km}].halfthick = \
                 {h:e} m (the facet would swallow the particle); make halfthick smaller \
                 than the particles, or move the particle out of the facet",
                x.x,
                x.y,
                x.z,
                f - spans[km].start
            )));
        }
    }
    Ok(())
}

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
