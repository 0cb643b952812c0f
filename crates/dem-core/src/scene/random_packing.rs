//! Random sequential placement of balls in a box without overlap: the starting positions
//! of `RandomFill` spheres and of `Rocks` (by their bounding spheres).
//!
//! The balls are placed largest first, each at uniformly random positions until one is
//! free. Every size asked for is kept: dropping a ball whose position was taken would
//! leave the large sizes short in a crowded box, and placing the large ones first lets
//! the small ones fill the gaps between them, so a polydisperse set reaches a higher
//! volume fraction than in the order drawn. Candidate neighbours come from a grid of
//! cells at least as wide as the largest diameter (linked lists per cell), so each try
//! costs the same whatever the count.

use nalgebra::Vector3;
use rand::Rng;

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
    let grid = Grid::new(lo, hi, 2.0 * rmax, 8 * n.max(1000));
    let mut head = vec![u32::MAX; grid.cells()];
    let mut next = vec![u32::MAX; n];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| radii[b].total_cmp(&radii[a]));
    let mut centres = vec![Vector3::zeros(); n];
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
            let free = grid.around(&c).all(|cell| {
                let mut q = head[cell];
                while q != u32::MAX {
                    let k = q as usize;
                    if (centres[k] - c).norm() < r + radii[k] {
                        return false;
                    }
                    q = next[k];
                }
                true
            });
            if free {
                break c;
            }
        };
        centres[j] = c;
        let cell = grid.index(&c);
        next[j] = head[cell];
        head[cell] = j as u32;
    }
    Ok(centres)
}

/// A grid of cubic cells over the box, at least `min_cell` wide (so that balls that
/// overlap are in the same or neighbouring cells) and at most `max_cells` in all (wider
/// cells for a box much larger than its balls).
struct Grid {
    lo: Vector3<f64>,
    cell: f64,
    dims: [usize; 3],
}

impl Grid {
    fn new(lo: Vector3<f64>, hi: Vector3<f64>, min_cell: f64, max_cells: usize) -> Grid {
        let mut cell = min_cell.max(f64::MIN_POSITIVE);
        loop {
            let dims: [usize; 3] =
                std::array::from_fn(|i| (((hi[i] - lo[i]) / cell).ceil() as usize).max(1));
            let total = dims.iter().map(|&d| d as f64).product::<f64>();
            if total <= max_cells as f64 {
                return Grid { lo, cell, dims };
            }
            cell *= (total / max_cells as f64).cbrt() * 1.01;
        }
    }

    fn cells(&self) -> usize {
        self.dims.iter().product()
    }

    fn coords(&self, c: &Vector3<f64>) -> [usize; 3] {
        std::array::from_fn(|i| {
            (((c[i] - self.lo[i]) / self.cell).floor().max(0.0) as usize).min(self.dims[i] - 1)
        })
    }

    fn index(&self, c: &Vector3<f64>) -> usize {
        let [x, y, z] = self.coords(c);
        x + self.dims[0] * (y + self.dims[1] * z)
    }

    /// The cell of `c` and its neighbours inside the grid.
    fn around(&self, c: &Vector3<f64>) -> impl Iterator<Item = usize> + '_ {
        let k = self.coords(c);
        let dims = self.dims;
        let span = move |i: usize| k[i].saturating_sub(1)..=(k[i] + 1).min(dims[i] - 1);
        span(2).flat_map(move |z| {
            span(1).flat_map(move |y| span(0).map(move |x| x + dims[0] * (y + dims[1] * z)))
        })
    }
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
