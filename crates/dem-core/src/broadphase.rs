//! Broad phase: a uniform cell grid over the bounded particles with a Verlet skin, plus
//! a direct test of every unbounded particle (walls) against every bounded one. The list of
//! candidate pairs is kept until some particles have moved, together, more than the skin.

use crate::particles::{Particles, Shape};
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Candidate pairs and what is needed to know when they go stale (saved whole in a
/// checkpoint: the next rebuild must happen at the same step as in an uninterrupted run).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerletList {
    /// Candidate pairs `(a, b)` with `a < b`, sorted.
    pub pairs: Vec<(u32, u32)>,
    /// Positions at the last rebuild.
    anchor: Vec<Vector3<f64>>,
    /// Skin used at the last rebuild, m.
    skin: f64,
    /// Number of rebuilds so far.
    pub rebuilds: u64,
}

/// Smallest distance between the surfaces of the bounding volumes of two particles, m
/// (negative in overlap). `None` when neither is bounded (walls never pair with walls).
fn bound_gap(p: &Particles, a: usize, b: usize) -> Option<f64> {
    match (&p.shape[a], &p.shape[b]) {
        (Shape::Wall(_), Shape::Wall(_)) => None,
        (Shape::Wall(w), s) | (s, Shape::Wall(w)) => {
            let (wi, si) = if matches!(p.shape[a], Shape::Wall(_)) {
                (a, b)
            } else {
                (b, a)
            };
            let n = p.ori[wi] * w.normal.na();
            let side = n.dot(&(p.pos[si] - p.pos[wi]));
            let r = s.bounding_radius()?;
            // A one-sided wall acts on everything behind it: treat that as overlap.
            let d = if w.sense == 0 {
                side.abs()
            } else {
                side * w.sense.signum() as f64
            };
            Some(d - r)
        }
        (sa, sb) => {
            Some((p.pos[a] - p.pos[b]).norm() - sa.bounding_radius()? - sb.bounding_radius()?)
        }
    }
}

impl VerletList {
    /// True when the list must be rebuilt before use: never built, or the two largest
    /// displacements since the last build sum to more than the skin.
    pub fn stale(&self, p: &Particles) -> bool {
        if self.anchor.len() != p.len() {
            return true;
        }
        let (mut d1, mut d2) = (0.0f64, 0.0f64);
        for (x, x0) in p.pos.iter().zip(&self.anchor) {
            let d = (x - x0).norm();
            if d > d1 {
                d2 = d1;
                d1 = d;
            } else if d > d2 {
                d2 = d;
            }
        }
        d1 + d2 > self.skin
    }

    /// Rebuilds the list: every pair whose bounding volumes are closer than
    /// `reach + skin` (`reach`: largest interaction distance plus hysteresis), m.
    pub fn rebuild(&mut self, p: &Particles, reach: f64, skin: f64) {
        let margin = reach + skin;
        let mut pairs = Vec::new();
        let bounded: Vec<usize> = (0..p.len())
            .filter(|&i| p.shape[i].bounding_radius().is_some())
            .collect();
        let unbounded: Vec<usize> = (0..p.len())
            .filter(|&i| p.shape[i].bounding_radius().is_none())
            .collect();

        let rmax = bounded
            .iter()
            .map(|&i| p.shape[i].bounding_radius().unwrap_or(0.0))
            .fold(0.0, f64::max);
        let cell = (2.0 * rmax + margin).max(f64::MIN_POSITIVE);
        let key =
            |x: &Vector3<f64>| -> [i64; 3] { [0, 1, 2].map(|k| (x[k] / cell).floor() as i64) };
        let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
        for &i in &bounded {
            grid.entry(key(&p.pos[i])).or_default().push(i);
        }
        for &i in &bounded {
            let c = key(&p.pos[i]);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let cell = [
                            c[0].saturating_add(dx),
                            c[1].saturating_add(dy),
                            c[2].saturating_add(dz),
                        ];
                        let Some(members) = grid.get(&cell) else {
                            continue;
                        };
                        for &j in members {
                            if j > i && bound_gap(p, i, j).is_some_and(|g| g < margin) {
                                pairs.push((i as u32, j as u32));
                            }
                        }
                    }
                }
            }
        }
        for &w in &unbounded {
            for &i in &bounded {
                if bound_gap(p, w, i).is_some_and(|g| g < margin) {
                    pairs.push((w.min(i) as u32, w.max(i) as u32));
                }
            }
        }
        pairs.sort_unstable();
        self.pairs = pairs;
        self.anchor = p.pos.clone();
        self.skin = skin;
        self.rebuilds += 1;
    }
}

/// Every pair closer than `margin` by exhaustive search (for verification).
pub fn brute_force_pairs(p: &Particles, margin: f64) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for a in 0..p.len() {
        for b in a + 1..p.len() {
            if bound_gap(p, a, b).is_some_and(|g| g < margin) {
                out.push((a as u32, b as u32));
            }
        }
    }
    out
}
