//! The memory the initial positions imply: a scene that packs its particles into one
//! another (100,000 spheres at one point, or spheres of radius 1e4 m in a box of a
//! centimetre) has every pair of them as a candidate of the broad phase and as a contact,
//! which a count of particles ([`super::budget`]) does not see. Such a scene is refused at
//! load with the estimate and where the particles crowd, instead of filling the machine's
//! memory at step 0.
//!
//! The same count finds spheres that start with a centre inside another sphere (not of
//! their clump): no contact law gives such an overlap a force of any meaning, and the run
//! blew up within a few steps. Such a scene is refused too, naming the pair.
//!
//! The pairs are counted on a grid of cells one interaction range wide (the diameter of
//! the largest particle the broad phase's grid is sized for, plus the skin): a pair within
//! reach lies in neighbouring cells. The count stops as soon as the pairs found already
//! need more memory than there is, so a crowded scene is refused after at most that many
//! tests, and an ordinary one costs about 14 tests per particle.

use crate::model::particles::Particles;
use crate::support::error::DemError;
use std::collections::HashMap;

/// Bytes a candidate pair of the broad phase takes (its slot, its mark, its index).
pub const BYTES_PER_CANDIDATE: u64 = 40;

/// Bytes a contact takes (its record, L6Geom block, law state and share of the buffers).
pub const BYTES_PER_CONTACT: u64 = 600;

/// Bytes of a particle's own arrays and its share of the broad phase's anchors.
pub const BYTES_PER_PARTICLE_ALONE: u64 = 300;

/// What the count found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Crowding {
    /// Pairs of bounded particles whose bounding spheres are within `skin` of each other.
    pub candidates: u64,
    /// Pairs whose bounding spheres overlap.
    pub overlaps: u64,
    /// The most particles in one cell, and that cell's centre.
    pub densest: (u64, [f64; 3]),
    /// The count stopped early (the pairs found already exceed the memory).
    pub stopped: bool,
    /// The first pair of spheres found with a centre inside the other sphere (particle
    /// indices and the distance of their centres, m), members of one clump excepted.
    pub inside: Option<(usize, usize, f64)>,
}

impl Crowding {
    /// Bytes the particles and the pairs found take, at least.
    pub fn bytes(&self, particles: u64) -> u64 {
        particles
            .saturating_mul(BYTES_PER_PARTICLE_ALONE)
            .saturating_add(self.candidates.saturating_mul(BYTES_PER_CANDIDATE))
            .saturating_add(self.overlaps.saturating_mul(BYTES_PER_CONTACT))
    }
}

/// Counts the pairs of the bounded particles of `p` (bounding radius at most `largest`)
/// within `skin` of each other, stopping once they need more than `available` bytes.
/// `clump[i]` names the clump of particle `i` (`u32::MAX` for none): members of one clump
/// may overlap as deeply as they like.
pub fn count(p: &Particles, clump: &[u32], largest: f64, skin: f64, available: u64) -> Crowding {
    let h = 2.0 * largest + skin;
    let mut out = Crowding::default();
    if !(h.is_finite() && h > 0.0) {
        return out;
    }
    let mut cells: HashMap<[i64; 3], Vec<(usize, f64)>> = HashMap::new();
    for (i, shape) in p.shape.iter().enumerate() {
        let Some(r) = shape.bounding_radius().filter(|&r| r <= largest) else {
            continue;
        };
        let x = p.pos[i];
        if !(x.x.is_finite() && x.y.is_finite() && x.z.is_finite()) {
            continue;
        }
        let key = [x.x, x.y, x.z].map(|c| (c / h).floor() as i64);
        cells.entry(key).or_default().push((i, r));
    }
    if let Some((key, members)) = cells.iter().max_by_key(|(k, m)| (m.len(), **k)) {
        let centre = key.map(|k| (k as f64 + 0.5) * h);
        out.densest = (members.len() as u64, centre);
    }
    let n = p.len() as u64;
    let mut keys: Vec<&[i64; 3]> = cells.keys().collect();
    keys.sort_unstable();
    for key in keys {
        let here = &cells[key];
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let other = [key[0] + dx, key[1] + dy, key[2] + dz];
                    // Each pair of cells once; within a cell, each pair once.
                    if other < *key {
                        continue;
                    }
                    let Some(there) = cells.get(&other) else {
                        continue;
                    };
                    for (a, &(i, ri)) in here.iter().enumerate() {
                        let start = if other == *key { a + 1 } else { 0 };
                        for &(j, rj) in &there[start..] {
                            let d2 = (p.pos[i] - p.pos[j]).norm_squared();
                            let reach = ri + rj + skin;
                            if d2 < reach * reach {
                                out.candidates += 1;
                                if d2 < (ri + rj) * (ri + rj) {
                                    out.overlaps += 1;
                                    let deep = ri.max(rj);
                                    if d2 < deep * deep
                                        && out.inside.is_none()
                                        && spheres(p, i, j)
                                        && (clump[i] == u32::MAX || clump[i] != clump[j])
                                    {
                                        out.inside = Some((i.min(j), i.max(j), d2.sqrt()));
                                    }
                                }
                            }
                        }
                        if out.bytes(n) > available {
                            out.stopped = true;
                            return out;
                        }
                    }
                }
            }
        }
    }
    out
}

/// Are particles `i` and `j` both spheres?
fn spheres(p: &Particles, i: usize, j: usize) -> bool {
    use crate::model::particles::Shape;
    matches!(
        (&p.shape[i], &p.shape[j]),
        (Shape::Sphere(_), Shape::Sphere(_))
    )
}

/// Refuses a run whose initial positions imply more memory than `available` bytes (see
/// the module docs), or put a sphere's centre inside another sphere (not of its clump:
/// `clump` as in [`count`]); `skin` is the broad phase's, m. The message gives the
/// estimate and the crowded place, or the pair.
pub fn check(
    scene: &super::Scene,
    p: &Particles,
    clump: &[u32],
    skin: f64,
    available: Option<u64>,
) -> Result<(), DemError> {
    let largest = crate::engines::broadphase::typical_radius(p);
    let c = count(p, clump, largest, skin, available.unwrap_or(u64::MAX));
    if !c.stopped {
        if let Some((i, j, d)) = c.inside {
            let r = |k: usize| p.shape[k].bounding_radius().unwrap_or(f64::NAN);
            return Err(scene.error(format!(
                "bodies: spheres {i} and {j} (in the order the bodies make them) start with their \
                 centres {d:.3e} m apart, inside each other (radii {:.3e} and {:.3e} m): an overlap \
                 that deep has no contact force of any meaning and blows the run up at once. \
                 Spread the bodies out or make them smaller",
                r(i),
                r(j)
            )));
        }
        return Ok(());
    }
    let gb = |b: u64| b as f64 / 1e9;
    let (most, at) = c.densest;
    Err(scene.error(format!(
        "bodies: the initial positions put particles into one another: {} candidate pairs \
         and {} overlapping pairs counted before the count stopped, which already need \
         {:.1} GB; this machine has {:.1} GB available ({most} particles crowd in one \
         cell of {:.3e} m around ({:.3e}, {:.3e}, {:.3e}) m). Spread the bodies out, \
         make them smaller, or reduce contacts.skin",
        c.candidates,
        c.overlaps,
        gb(c.bytes(p.len() as u64)),
        gb(available.unwrap_or(u64::MAX)),
        2.0 * largest + skin,
        at[0],
        at[1],
        at[2],
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::particles::Shape;
    use dem_api::SphereShape;
    use nalgebra::Vector3;

    fn spheres(at: &[[f64; 3]], r: f64) -> Particles {
        let mut p = Particles::default();
        for x in at {
            p.pos.push(Vector3::from(*x));
            p.shape.push(Shape::Sphere(SphereShape { radius: r }));
        }
        p
    }

    #[test]
    fn pairs_are_counted_once_within_reach() {
        // A row of spheres 1 apart, radius 0.4: neighbours are 0.2 apart, within a skin
        // of 0.3 and not overlapping; next neighbours are out of reach.
        let row: Vec<[f64; 3]> = (0..10).map(|i| [i as f64, 0.0, 0.0]).collect();
        let c = count(&spheres(&row, 0.4), &[u32::MAX; 10], 0.4, 0.3, u64::MAX);
        assert_eq!((c.candidates, c.overlaps, c.stopped), (9, 0, false));
        // Radius 0.6: neighbours overlap.
        let c = count(&spheres(&row, 0.6), &[u32::MAX; 10], 0.6, 0.3, u64::MAX);
        assert_eq!((c.candidates, c.overlaps), (9, 9));
    }

    #[test]
    fn a_centre_inside_another_sphere_is_found_unless_one_clump_holds_both() {
        let p = spheres(&[[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [3.0, 0.0, 0.0]], 1.0);
        let c = count(&p, &[u32::MAX; 3], 1.0, 0.1, u64::MAX);
        assert_eq!(c.inside, Some((0, 1, 0.5)));
        let c = count(&p, &[7, 7, u32::MAX], 1.0, 0.1, u64::MAX);
        assert_eq!(c.inside, None);
        // Touching, or overlapping less than a radius: not inside.
        let p = spheres(&[[0.0, 0.0, 0.0], [1.9, 0.0, 0.0]], 1.0);
        assert_eq!(count(&p, &[u32::MAX; 2], 1.0, 0.1, u64::MAX).inside, None);
    }

    #[test]
    fn a_crowd_stops_the_count() {
        let crowd = vec![[1.0, 2.0, 3.0]; 3000];
        let p = spheres(&crowd, 0.01);
        let c = count(&p, &[u32::MAX; 3000], 0.01, 0.002, u64::MAX);
        assert_eq!(
            (c.candidates, c.overlaps),
            (3000 * 2999 / 2, 3000 * 2999 / 2)
        );
        assert_eq!(c.densest.0, 3000);
        let budget = 100 << 20;
        let c = count(&p, &[u32::MAX; 3000], 0.01, 0.002, budget);
        assert!(c.stopped && c.bytes(3000) > budget, "{c:?}");
        assert!(c.candidates < 3000 * 2999 / 2, "{c:?}");
    }
}
