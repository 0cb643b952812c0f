//! Particles binned by grid cell for the broad phase, through a spatial hash: cell
//! `(x, y, z)` goes to bucket `hash(x, y, z) mod 2^k`, with at least two buckets per
//! particle, stored as one array of members ordered by bucket (a counting sort) and the
//! start of each bucket. Building costs two passes over the particles and no allocation
//! per cell; a look-up is a hash and a slice.
//!
//! Distinct cells may share a bucket, so a bucket's members are a superset of the cell's:
//! callers test the distance of every member anyway, and visit each bucket once per query
//! ([`CellBins::buckets_around`] merges repeated buckets), so no pair is reported twice.

use nalgebra::Vector3;

/// Cell index of a point for cells of size `cell`.
pub fn cell_of(x: &Vector3<f64>, cell: f64) -> [i64; 3] {
    [0, 1, 2].map(|k| (x[k] / cell).floor() as i64)
}

/// Bounded particles by bucket of grid cells.
#[derive(Clone, Debug, Default)]
pub struct CellBins {
    /// Cell edge, m.
    cell: f64,
    /// Number of buckets minus one (a power of two minus one).
    mask: u64,
    /// `start[b]..start[b + 1]` indexes the members of bucket `b`.
    start: Vec<u32>,
    /// Particle ids, by bucket, ascending within a bucket.
    members: Vec<u32>,
}

/// Number of cells from `lo` to `hi` (inclusive, per axis), as a float: ranges from huge
/// inputs (a facet of half-thickness 1e308) would overflow any integer.
pub fn cell_count(lo: [i64; 3], hi: [i64; 3]) -> f64 {
    (0..3)
        .map(|k| (hi[k] as f64 - lo[k] as f64 + 1.0).max(0.0))
        .product()
}

/// Bucket of a cell before the mask (three large odd multipliers mixed by xor, then the
/// high half folded in, since the mask keeps the low bits).
fn hash(c: [i64; 3]) -> u64 {
    let h = (c[0] as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (c[1] as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (c[2] as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^ (h >> 32)
}

impl CellBins {
    /// Bins the particles `ids` (ascending) at positions `pos[id]` in cells of edge `cell`
    /// (m), reusing the buffers.
    pub fn build(&mut self, ids: &[usize], pos: &[Vector3<f64>], cell: f64) {
        let buckets = (2 * ids.len()).next_power_of_two().max(2);
        self.cell = cell;
        self.mask = buckets as u64 - 1;
        self.start.clear();
        self.start.resize(buckets + 1, 0);
        let bucket_of: Vec<u32> = ids
            .iter()
            .map(|&i| (hash(cell_of(&pos[i], cell)) & self.mask) as u32)
            .collect();
        for &b in &bucket_of {
            self.start[b as usize + 1] += 1;
        }
        for b in 0..buckets {
            self.start[b + 1] += self.start[b];
        }
        self.members.clear();
        self.members.resize(ids.len(), 0);
        let mut next = self.start[..buckets].to_vec();
        for (&i, &b) in ids.iter().zip(&bucket_of) {
            let slot = &mut next[b as usize];
            self.members[*slot as usize] = i as u32;
            *slot += 1;
        }
    }

    /// Cell edge, m.
    pub fn cell(&self) -> f64 {
        self.cell
    }

    /// The bucket holding cell `c`.
    pub fn bucket_of(&self, c: [i64; 3]) -> usize {
        (hash(c) & self.mask) as usize
    }

    /// The members of bucket `b`: every binned particle of the cells that map to it.
    pub fn bucket(&self, b: usize) -> &[u32] {
        &self.members[self.start[b] as usize..self.start[b + 1] as usize]
    }

    /// The distinct buckets of the cells from `lo` to `hi` (inclusive, per axis), sorted,
    /// into `out`.
    /// A range of more cells than there are buckets gives every bucket (a look-up never
    /// costs more than the whole table, whatever the range).
    pub fn buckets_in(&self, lo: [i64; 3], hi: [i64; 3], out: &mut Vec<usize>) {
        out.clear();
        if cell_count(lo, hi) > self.mask as f64 {
            out.extend(0..=self.mask as usize);
            return;
        }
        for x in lo[0]..=hi[0] {
            for y in lo[1]..=hi[1] {
                for z in lo[2]..=hi[2] {
                    out.push(self.bucket_of([x, y, z]));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// The distinct buckets of the 27 cells around (and including) the cell of `x`.
    pub fn buckets_around(&self, x: &Vector3<f64>, out: &mut Vec<usize>) {
        let c = cell_of(x, self.cell);
        let lo = c.map(|k| k.saturating_sub(1));
        let hi = c.map(|k| k.saturating_add(1));
        self.buckets_in(lo, hi, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_wider_than_the_table_gives_every_bucket_at_once() {
        let pos = vec![Vector3::new(0.0, 0.0, 0.0); 10];
        let ids: Vec<usize> = (0..pos.len()).collect();
        let mut bins = CellBins::default();
        bins.build(&ids, &pos, 0.1);
        let mut out = Vec::new();
        // The range of a facet of half-thickness 1e308: the cell indices saturate.
        bins.buckets_in([i64::MIN; 3], [i64::MAX; 3], &mut out);
        assert_eq!(out, (0..=bins.mask as usize).collect::<Vec<_>>());
        assert_eq!(
            cell_count([i64::MIN; 3], [i64::MAX; 3]),
            2f64.powi(64).powi(3)
        );
        bins.buckets_in([0; 3], [0; 3], &mut out);
        assert_eq!(out, vec![bins.bucket_of([0; 3])]);
    }

    #[test]
    fn every_particle_is_in_the_bucket_of_its_cell_once() {
        let pos: Vec<Vector3<f64>> = (0..500)
            .map(|k| {
                let t = k as f64;
                Vector3::new((1.7 * t).sin() * 3.0, (0.3 * t).cos() * 5.0, t * 0.01 - 2.0)
            })
            .collect();
        let ids: Vec<usize> = (0..pos.len()).collect();
        let mut bins = CellBins::default();
        bins.build(&ids, &pos, 0.37);
        let mut seen = vec![0; pos.len()];
        for b in 0..=bins.mask as usize {
            let m = bins.bucket(b);
            assert!(m.windows(2).all(|w| w[0] < w[1]), "ascending in bucket {b}");
            for &i in m {
                seen[i as usize] += 1;
                assert_eq!(bins.bucket_of(cell_of(&pos[i as usize], 0.37)), b);
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
        let mut around = Vec::new();
        bins.buckets_around(&pos[0], &mut around);
        assert!(around.windows(2).all(|w| w[0] < w[1]) && around.len() <= 27);
    }
}
