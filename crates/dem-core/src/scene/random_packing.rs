//! Random sequential placement of balls in a box without overlap: the starting positions
//! of `RandomFill` spheres and of `Rocks` (by their bounding spheres).
//!
//! The balls are placed largest first, each at uniformly random positions until one is
//! free. Every size asked for is kept: dropping a ball whose position was taken would
//! leave the large sizes short in a crowded box, and placing the large ones first lets
//! the small ones fill the gaps between them, so a polydisperse set reaches a higher
//! volume fraction than in the order drawn. Candidate neighbours come from a grid of
//! cells as wide as the largest diameter, so each try costs the same whatever the count.

use nalgebra::Vector3;
use rand::Rng;
use std::collections::HashMap;

/// Why the balls could not all be placed.
#[derive(Debug)]
pub struct NotPlaced {
    /// How many were placed before the tries ran out.
    pub placed: usize,
}

/// Centres for balls of the given `radii` (m) in the box `lo..hi` (m), returned in the
/// order of `radii`. Each centre is at least its radius inside every face. Gives up after
/// `1000 * max(n, 1000)` tries in all. The box must hold the largest ball (checked by the
/// caller, which can name the field).
pub fn place_balls(
    radii: &[f64],
    lo: Vector3<f64>,
    hi: Vector3<f64>,
    rng: &mut impl Rng,
) -> Result<Vec<Vector3<f64>>, NotPlaced> {
    let n = radii.len();
    let rmax = radii.iter().copied().fold(0.0, f64::max);
    let cell = (2.0 * rmax).max(f64::MIN_POSITIVE);
    let key = |c: &Vector3<f64>| -> [i64; 3] {
        std::array::from_fn(|i| ((c[i] - lo[i]) / cell).floor() as i64)
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| radii[b].total_cmp(&radii[a]));
    let mut centres = vec![Vector3::zeros(); n];
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    let limit = 1000 * (n as u64).max(1000);
    let mut tries = 0u64;
    for (placed, &j) in order.iter().enumerate() {
        let r = radii[j];
        let c = loop {
            tries += 1;
            if tries > limit {
                return Err(NotPlaced { placed });
            }
            let c = Vector3::from_fn(|i, _| rng.random_range(lo[i] + r..hi[i] - r));
            let k = key(&c);
            let free = (-1..=1).all(|dx| {
                (-1..=1).all(|dy| {
                    (-1..=1).all(|dz| {
                        grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz])
                            .is_none_or(|ids| {
                                ids.iter().all(|&q| (centres[q] - c).norm() >= r + radii[q])
                            })
                    })
                })
            });
            if free {
                break c;
            }
        };
        centres[j] = c;
        grid.entry(key(&c)).or_default().push(j);
    }
    Ok(centres)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn balls_are_inside_and_apart() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        let radii: Vec<f64> = (0..500).map(|i| 0.5 + (i % 7) as f64 * 0.25).collect();
        let (lo, hi) = (Vector3::zeros(), Vector3::new(40.0, 40.0, 30.0));
        let c = place_balls(&radii, lo, hi, &mut rng).unwrap();
        for (a, (ca, ra)) in c.iter().zip(&radii).enumerate() {
            assert!((0..3).all(|i| ca[i] - ra >= lo[i] && ca[i] + ra <= hi[i]));
            for (cb, rb) in c.iter().zip(&radii).skip(a + 1) {
                assert!((ca - cb).norm() >= ra + rb);
            }
        }
    }

    #[test]
    fn an_impossible_set_names_how_many_were_placed() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        let radii = vec![1.0; 10];
        let e = place_balls(
            &radii,
            Vector3::zeros(),
            Vector3::new(3.0, 3.0, 3.0),
            &mut rng,
        )
        .unwrap_err();
        assert_eq!(e.placed, 1);
    }
}
