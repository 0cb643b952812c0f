//! The working copy of a box that the sweeps and the stream read ([`Item`]), and where
//! they put the pairs they find ([`Out`]).

/// Working copy of a box: axes permuted so that axis 0 is the sweep axis, `-0.0` made
/// `0.0`, `key` = position in the input (unique: breaks ties between equal coordinates).
#[derive(Clone, Copy, Debug)]
pub(super) struct Item {
    pub(super) lo: [f64; 3],
    pub(super) hi: [f64; 3],
    pub(super) key: u32,
    pub(super) id: u32,
}

impl Item {
    /// `self` comes before `o` along axis `d`: lower `lo`, ties broken by key. A strict
    /// total order on distinct boxes.
    #[inline(always)]
    pub(super) fn before(&self, o: &Item, d: usize) -> bool {
        self.lo[d] < o.lo[d] || (self.lo[d] == o.lo[d] && self.key < o.key)
    }

    /// Closed overlap on axis `d`.
    #[inline(always)]
    pub(super) fn overlaps(&self, o: &Item, d: usize) -> bool {
        self.lo[d] <= o.hi[d] && o.lo[d] <= self.hi[d]
    }

    /// `p`'s low end lies in `self` on axis `d`: `self` comes strictly before `p` and `p`
    /// starts no later than `self` ends. For two distinct boxes overlapping on `d` exactly one
    /// of `a.holds(b)` and `b.holds(a)` is true; a box never holds itself.
    #[inline(always)]
    pub(super) fn holds(&self, p: &Item, d: usize) -> bool {
        self.before(p, d) && p.lo[d] <= self.hi[d]
    }
}

/// Where pairs go, and how a (point, interval) pair is turned into an output pair.
pub(super) struct Out<'a> {
    pub(super) pairs: &'a mut Vec<(u32, u32)>,
    /// Self-intersection: report `(min id, max id)`.
    pub(super) complete: bool,
}

impl Out<'_> {
    /// Report `p` (a box seen as a point) against `i` (a box seen as an interval).
    /// `in_order`: in the bipartite form, `p` belongs to the first set.
    #[inline(always)]
    pub(super) fn report(&mut self, p: &Item, i: &Item, in_order: bool) {
        let pair = if self.complete {
            if p.id <= i.id {
                (p.id, i.id)
            } else {
                (i.id, p.id)
            }
        } else if in_order {
            (p.id, i.id)
        } else {
            (i.id, p.id)
        };
        self.pairs.push(pair);
    }
}
