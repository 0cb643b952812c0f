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

use crate::support::team::Parts;
use dem_api::Onset;

/// Contacts per chunk: per block of the storage, per parallel work item and per batched
/// plugin call. 512 rather than 256: measured with `dem bench --sections dense`, the same
/// at N = 10,000 and 7-20 % faster at 100,000 (fewer calls, and longer runs of each field
/// for the prefetchers); 1024 was no better.
pub(crate) const CHUNK: usize = 512;

/// Distance between two fields of one contact in a block, in values: [`CHUNK`] and one
/// cache line.
pub(crate) const PITCH: usize = CHUNK + 8;

/// The runs of a new order of contacts for [`Fields::permute`]: contact `i` afterwards is
/// contact `order[i]` before. A run is a stretch of contacts consecutive in both orders
/// and in one block in both (so that each field of it is one slice of each).
pub(crate) fn runs(order: &[u32], runs: &mut Vec<(u32, u32, u32)>) {
    runs.clear();
    for (to, &from) in order.iter().enumerate() {
        let to = to as u32;
        match runs.last_mut() {
            Some((f, t, len))
                if *f + *len == from
                    && !(from as usize).is_multiple_of(CHUNK)
                    && !(to as usize).is_multiple_of(CHUNK) =>
            {
                debug_assert_eq!(*t + *len, to);
                *len += 1;
            }
            _ => runs.push((from, to, 1)),
        }
    }
}

/// The fields of a [`Blocks`] shared among the members of a team: a field of every
/// contact is a stretch of each block, which no other field touches.
pub(crate) struct Fields<'a> {
    values: Parts<'a, f64>,
    block_len: usize,
    fields: usize,
    len: usize,
}

impl Fields<'_> {
    /// Fields per contact.
    pub(crate) fn count(&self) -> usize {
        self.fields
    }

    /// Field `f` of every contact put in a new order, given as `runs` of consecutive
    /// contacts that move together: `(from, to, len)` moves contacts `from..from + len`
    /// to `to..to + len`, and the runs' targets cover every stored contact once (see
    /// [`runs`]). Through `column` (room for the field of every contact, kept by the
    /// caller: new memory costs a page fault per 4 kB, which took longer than the
    /// copying).
    ///
    /// # Safety
    /// No other call with the same `f` runs at the same time.
    pub(crate) unsafe fn permute(&self, f: usize, runs: &[(u32, u32, u32)], column: &mut Vec<f64>) {
        assert!(f < self.fields, "field {f} of {}", self.fields);
        let at = |b: usize| b * self.block_len + f * PITCH;
        // SAFETY: the field's stretch of block `b`, which only calls with field `f`
        // touch (the caller's promise), one stretch in use at a time.
        let stretch = |b: usize| unsafe { self.values.take(at(b)..at(b) + CHUNK) };
        // Not cleared: the runs write every place of the column.
        column.resize(self.len, 0.0);
        for &(from, to, len) in runs {
            let (from, to, len) = (from as usize, to as usize, len as usize);
            let k = from % CHUNK;
            column[to..to + len].copy_from_slice(&stretch(from / CHUNK)[k..k + len]);
        }
        for (b, new) in column.chunks(CHUNK).enumerate() {
            stretch(b)[..new.len()].copy_from_slice(new);
        }
    }
}

impl Fields<'_> {
    /// Field `f` of contact `to` set to that of contact `from`, for each move `(from, to)`
    /// in order: a move may carry what an earlier one brought.
    ///
    /// # Safety
    /// No other call with the same `f` runs at the same time.
    pub(crate) unsafe fn copy_moves(&self, f: usize, moves: &[(u32, u32)]) {
        assert!(f < self.fields, "field {f} of {}", self.fields);
        let at = |k: usize| {
            assert!(k < self.len, "contact {k} of {}", self.len);
            (k / CHUNK) * self.block_len + f * PITCH + k % CHUNK
        };
        for &(from, to) in moves {
            let (from, to) = (at(from as usize), at(to as usize));
            // SAFETY: values of field `f`, which only calls with `f` touch (the caller's
            // promise), one borrowed at a time.
            let v = unsafe { self.values.take(from..from + 1)[0] };
            unsafe { self.values.take(to..to + 1)[0] = v };
        }
    }
}

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

    /// Keeps the first `len` contacts.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
        self.values
            .truncate(self.len.div_ceil(CHUNK) * self.block_len());
    }

    /// The fields, to be permuted by the members of a team, each its own.
    pub(crate) fn fields_mut(&mut self) -> Fields<'_> {
        Fields {
            block_len: self.block_len(),
            fields: self.fields,
            len: self.len,
            values: Parts::new(&mut self.values),
        }
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
/// Field of the hot block: onset time and normal velocity, 2 fields. (The frame's
/// quaternion is not stored: the update extracts it from the frame, the same bits.)
pub(crate) const ONSET: usize = 27;
/// Fields of the hot block.
pub(crate) const HOT: usize = 29;

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

    /// Every field of `b` put in the order of `runs`.
    fn permute(b: &mut Blocks, runs: &[(u32, u32, u32)]) {
        let fields = b.fields_mut();
        for f in 0..fields.count() {
            // SAFETY: one field at a time.
            unsafe { fields.permute(f, runs, &mut Vec::new()) };
        }
    }

    #[test]
    fn fields_survive_permutations_copies_and_truncation_across_blocks() {
        let mut b = Blocks::new(3);
        let n = 2 * CHUNK + 7;
        for i in 0..n {
            b.push_zero();
            b.write(i, &[i as f64, -(i as f64), 0.5 * i as f64]);
        }
        // Reversed, with 3 and CHUNK + 5 traded: contacts cross blocks both ways.
        let mut order: Vec<u32> = (0..n as u32).rev().collect();
        order.swap(3, CHUNK + 5);
        // And runs: blocks 0 and 1 traded whole (a run of CHUNK cut at no block's end).
        let mut order2: Vec<u32> = (CHUNK as u32..2 * CHUNK as u32)
            .chain(0..CHUNK as u32)
            .collect();
        order2.extend(2 * CHUNK as u32..n as u32);
        let mut moves2 = Vec::new();
        runs(&order2, &mut moves2);
        assert_eq!(moves2.len(), 3, "{moves2:?}");
        let mut c = b.clone();
        permute(&mut c, &moves2);
        assert!((0..n).all(|i| c.get(i, 0) == order2[i] as f64));
        let mut moves = Vec::new();
        runs(&order, &mut moves);
        permute(&mut b, &moves);
        for (i, &k) in order.iter().enumerate() {
            let k = k as f64;
            assert_eq!([0, 1, 2].map(|f| b.get(i, f)), [k, -k, 0.5 * k]);
        }
        // The inverse order puts every contact back.
        let mut inverse = vec![0; n];
        for (i, &k) in order.iter().enumerate() {
            inverse[k as usize] = i as u32;
        }
        runs(&inverse, &mut moves);
        permute(&mut b, &moves);
        assert!((0..n).all(|i| b.get(i, 1) == -(i as f64)));
        // Moves in order, across blocks: the second carries on what the first brought.
        let fields = b.fields_mut();
        for f in 0..fields.count() {
            // SAFETY: one field at a time.
            unsafe { fields.copy_moves(f, &[(n as u32 - 1, 0), (0, CHUNK as u32 + 1)]) };
        }
        let last = [(n - 1) as f64, -((n - 1) as f64), 0.5 * (n - 1) as f64];
        for k in [0, CHUNK + 1] {
            let mut out = [0.0; 3];
            b.read(k, &mut out);
            assert_eq!(out, last);
        }
        b.truncate(CHUNK);
        assert_eq!(b.blocks_mut().count(), 1);
        b.push_zero();
        assert_eq!(b.get(CHUNK, 0), 0.0);
        assert_eq!(b.blocks_mut().count(), 2);
    }
}
