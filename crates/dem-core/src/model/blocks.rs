//! The contacts' storage: per-contact numbers stored in blocks, as columns: the contacts'
//! hot data (L6Geom and onset, [`HOT`] fields; [`crate::engines::l6geom::hot`] reads and writes
//! an L6Geom there) and their law and functor state.
//!
//! The list of contacts is cut into chunks of [`CHUNK`]; each chunk has one block of
//! `fields * PITCH` values, in which field `f` of the chunk's contact `k` is at
//! `f * PITCH + k`. The pitch is a little more than the chunk: with a power of two (2 kB
//! for chunks of 256), the fields of one contact would all fall in the same two sets of
//! the L1 cache, which holds only 16 of the 33 lines a contact's L6Geom update reads
//! (measured: the law pass took 55 % longer). A chunk's fields are thus columns, handed to a law as they are stored
//! (no copy into per-contact records; a law written over lanes reads four contacts' slot
//! as one vector), and a chunk's block is one slice, which the parallel passes split off
//! without further bookkeeping.

use dem_api::Onset;

/// Contacts per chunk: per block of the storage, per parallel work item and per batched
/// plugin call. 512 rather than 256: measured with `dem bench --sections dense`, the same
/// at N = 10,000 and 7-20 % faster at 100,000 (fewer calls, and longer runs of each field
/// for the prefetchers); 1024 was no better.
pub(crate) const CHUNK: usize = 512;

/// Distance between two fields of one contact in a block, in values: [`CHUNK`] and one
/// cache line.
pub(crate) const PITCH: usize = CHUNK + 8;

/// Numbers stored `fields` per contact, in blocks of [`CHUNK`] contacts.
#[derive(Clone, Debug)]
pub(crate) struct Blocks {
    values: Vec<f64>,
    /// Fields per contact (at least 1, so that a block is never empty).
    fields: usize,
    /// Contacts stored.
    len: usize,
}

/// One field per contact until the number is known.
impl Default for Blocks {
    fn default() -> Blocks {
        Blocks::new(1)
    }
}

/// Blocks of `F` fields per contact, known when the store is made.
#[derive(Clone, Debug)]
pub(crate) struct Fixed<const F: usize>(Blocks);

impl<const F: usize> Default for Fixed<F> {
    fn default() -> Fixed<F> {
        Fixed(Blocks::new(F))
    }
}

impl<const F: usize> std::ops::Deref for Fixed<F> {
    type Target = Blocks;
    fn deref(&self) -> &Blocks {
        &self.0
    }
}

impl<const F: usize> std::ops::DerefMut for Fixed<F> {
    fn deref_mut(&mut self) -> &mut Blocks {
        &mut self.0
    }
}

/// The hot blocks: [`HOT`] fields per contact.
pub(crate) type HotBlocks = Fixed<HOT>;

impl Blocks {
    /// An empty store of `fields` numbers per contact.
    pub(crate) fn new(fields: usize) -> Blocks {
        Blocks {
            values: Vec::new(),
            fields: fields.max(1),
            len: 0,
        }
    }

    /// Values per block.
    pub(crate) fn block_len(&self) -> usize {
        self.fields * PITCH
    }

    #[inline(always)]
    fn at(&self, i: usize, f: usize) -> usize {
        (i / CHUNK) * self.block_len() + f * PITCH + i % CHUNK
    }

    /// Field `f` of contact `i`.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize, f: usize) -> f64 {
        self.values[self.at(i, f)]
    }

    /// Sets field `f` of contact `i`.
    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, f: usize, v: f64) {
        let at = self.at(i, f);
        self.values[at] = v;
    }

    /// Room for `more` contacts beyond the stored ones, growing by at least an eighth.
    pub(crate) fn reserve(&mut self, more: usize) {
        let blocks = (self.len + more).div_ceil(CHUNK);
        let need = blocks * self.block_len();
        if need > self.values.capacity() {
            let extra = (need - self.values.len()).max(self.values.len() / 8);
            self.values.reserve_exact(extra);
        }
    }

    /// Appends a contact whose fields are all zero.
    pub(crate) fn push_zero(&mut self) {
        if self.len.is_multiple_of(CHUNK) {
            self.values
                .resize(self.values.len() + self.block_len(), 0.0);
        } else {
            for f in 0..self.fields {
                let at = self.at(self.len, f);
                self.values[at] = 0.0;
            }
        }
        self.len += 1;
    }

    /// Copies every field of contact `from` to contact `to`.
    pub(crate) fn copy(&mut self, from: usize, to: usize) {
        for f in 0..self.fields {
            let v = self.get(from, f);
            self.set(to, f, v);
        }
    }

    /// Swaps every field of contacts `i` and `j`.
    pub(crate) fn swap(&mut self, i: usize, j: usize) {
        for f in 0..self.fields {
            let (a, b) = (self.at(i, f), self.at(j, f));
            self.values.swap(a, b);
        }
    }

    /// Keeps the first `len` contacts.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
        self.values
            .truncate(self.len.div_ceil(CHUNK) * self.block_len());
    }

    /// Every block, one after the other ([`Blocks::block_len`] values each).
    pub(crate) fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// The blocks, one per chunk of the contact list, to be split among workers.
    pub(crate) fn blocks_mut(&mut self) -> std::slice::ChunksMut<'_, f64> {
        let n = self.block_len();
        self.values.chunks_mut(n)
    }

    /// The `fields` values of contact `i`, into `out`.
    pub(crate) fn read(&self, i: usize, out: &mut [f64]) {
        for (f, v) in out.iter_mut().enumerate() {
            *v = self.get(i, f);
        }
    }

    /// Sets the first `values.len()` fields of contact `i`.
    pub(crate) fn write(&mut self, i: usize, values: &[f64]) {
        for (f, &v) in values.iter().enumerate() {
            self.set(i, f, v);
        }
    }

    /// Bytes stored per contact (with the padding of the pitch).
    pub(crate) fn bytes_per_contact(&self) -> usize {
        (self.block_len() * std::mem::size_of::<f64>()).div_ceil(CHUNK)
    }
}

/// Field of the hot block: row `r`, column `c` of the L6Geom frame is `FRAME + 3 r + c`.
pub(crate) const FRAME: usize = 0;
/// Field of the hot block: the contact point, 3 fields.
pub(crate) const POINT: usize = 9;
/// Field of the hot block: `u`, 3 fields.
pub(crate) const U: usize = 12;
/// Field of the hot block: `phi`, 3 fields.
pub(crate) const PHI: usize = 15;
/// Field of the hot block: `u_dot`, 3 fields.
pub(crate) const U_DOT: usize = 18;
/// Field of the hot block: `phi_dot`, 3 fields.
pub(crate) const PHI_DOT: usize = 21;
/// Field of the hot block: the branch lengths, 2 fields.
pub(crate) const LENS: usize = 24;
/// Field of the hot block: the area.
pub(crate) const AREA: usize = 26;
/// Field of the hot block: the frame's cached quaternion `[w, i, j, k]`, 4 fields.
pub(crate) const QUAT: usize = 27;
/// Field of the hot block: onset time and normal velocity, 2 fields.
pub(crate) const ONSET: usize = 31;
/// Fields of the hot block.
pub(crate) const HOT: usize = 33;

/// A hot block cut to its length, so that an index below `HOT * PITCH` needs no other
/// test.
#[inline(always)]
pub(crate) fn whole(block: &mut [f64]) -> &mut [f64] {
    &mut block[..HOT * PITCH]
}

/// Where field `f` of contact `k` is in a block of the column layout.
#[inline(always)]
pub(crate) fn index(f: usize, k: usize) -> usize {
    f * PITCH + k
}

/// Reads the onset data of contact `k` of a hot block.
#[inline(always)]
pub(crate) fn onset(block: &[f64], k: usize) -> Onset {
    Onset {
        time: block[ONSET * PITCH + k],
        normal_velocity: block[(ONSET + 1) * PITCH + k],
    }
}

/// Writes the onset data of contact `k` of a hot block.
#[inline(always)]
pub(crate) fn set_onset(block: &mut [f64], k: usize, o: &Onset) {
    block[ONSET * PITCH + k] = o.time;
    block[(ONSET + 1) * PITCH + k] = o.normal_velocity;
}

impl Blocks {
    /// The block of contact `i` and its place in it.
    #[inline(always)]
    pub(crate) fn block_of(&self, i: usize) -> (&[f64], usize) {
        let n = self.block_len();
        let b = i / CHUNK;
        (&self.values[b * n..(b + 1) * n], i % CHUNK)
    }

    /// The block of contact `i`, mutable, and its place in it.
    #[inline(always)]
    pub(crate) fn block_of_mut(&mut self, i: usize) -> (&mut [f64], usize) {
        let n = self.block_len();
        let b = i / CHUNK;
        (&mut self.values[b * n..(b + 1) * n], i % CHUNK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_survive_swaps_copies_and_truncation_across_blocks() {
        let mut b = Blocks::new(3);
        let n = 2 * CHUNK + 7;
        for i in 0..n {
            b.push_zero();
            b.write(i, &[i as f64, -(i as f64), 0.5 * i as f64]);
        }
        b.swap(3, CHUNK + 5);
        assert_eq!(b.get(3, 1), -((CHUNK + 5) as f64));
        assert_eq!(b.get(CHUNK + 5, 2), 1.5);
        b.copy(n - 1, 0);
        let mut out = [0.0; 3];
        b.read(0, &mut out);
        assert_eq!(
            out,
            [(n - 1) as f64, -((n - 1) as f64), 0.5 * (n - 1) as f64]
        );
        b.truncate(CHUNK);
        assert_eq!(b.blocks_mut().count(), 1);
        b.push_zero();
        assert_eq!(b.get(CHUNK, 0), 0.0);
        assert_eq!(b.blocks_mut().count(), 2);
    }
}
