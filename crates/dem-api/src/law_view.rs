//! The checked view of a law batch: its columns as plain slices of the batch's length,
//! tested once, which the SDK's loops read contact by contact or four at a time.

use crate::batch::{
    frame_rows, Columns3, LawBatch, LawOutColumns, StateColumns, FLAG_LAST, FLAG_NEW,
};
use crate::law::{LawInput, LawPair, Material, Onset};
use crate::math::Vec3;
use abi_stable::std_types::RSlice;

/// The columns of a [`LawBatch`] as Rust slices of the batch's length, checked once by
/// [`LawBatch::view`] (its only constructor), so that reading contact `i` costs one test of
/// `i` and no test per field. This is what the SDK's loop reads.
#[derive(Clone, Copy, Debug)]
pub struct LawView<'a> {
    /// Number of contacts.
    pub(crate) len: usize,
    /// Time step, s.
    pub(crate) dt: f64,
    /// Rows of the frame, each as three columns `[x, y, z]` (see [`crate::L6Columns::frame`]).
    pub(crate) frame: [[&'a [f64]; 3]; 3],
    /// Contact point, m.
    pub(crate) point: [&'a [f64]; 3],
    /// `u`, m.
    pub(crate) u: [&'a [f64]; 3],
    /// `phi`, rad.
    pub(crate) phi: [&'a [f64]; 3],
    /// `u_dot`, m/s.
    pub(crate) u_dot: [&'a [f64]; 3],
    /// `phi_dot`, rad/s.
    pub(crate) phi_dot: [&'a [f64]; 3],
    /// Branch lengths, m.
    pub(crate) lens: [&'a [f64]; 2],
    /// Area, m^2.
    pub(crate) area: &'a [f64],
    /// Masses of body 1 and body 2, kg.
    pub(crate) mass: [&'a [f64]; 2],
    /// Material indices of body 1 and body 2.
    pub(crate) material: [&'a [u32]; 2],
    /// The materials.
    pub(crate) materials: &'a [Material],
    /// Onset time, s.
    pub(crate) onset_time: &'a [f64],
    /// Onset normal velocity, m/s.
    pub(crate) onset_normal_velocity: &'a [f64],
    /// Flags ([`FLAG_NEW`], [`FLAG_LAST`]).
    pub(crate) flags: &'a [u8],
}

fn cut<T>(s: RSlice<'_, T>, n: usize) -> &[T] {
    &s.as_slice()[..n]
}

fn cut3(c: Columns3<'_>, n: usize) -> [&[f64]; 3] {
    [cut(c.x, n), cut(c.y, n), cut(c.z, n)]
}

impl<'a> LawBatch<'a> {
    /// The batch as slices of its length when it goes with `state` (of `slots` values per
    /// contact) and `out`: what a `law_batch` implementation checks first. `None` when the
    /// columns do not fit together.
    pub fn view_with(
        &self,
        state: &StateColumns<'_>,
        out: &LawOutColumns<'_>,
        slots: usize,
    ) -> Option<LawView<'a>> {
        let len = self.len();
        if !out.has_len(len) || !state.fits(len, slots) {
            return None;
        }
        self.view()
    }

    /// The batch as slices of its length, or `None` when it is not
    /// [`consistent`](LawBatch::consistent).
    pub fn view(&self) -> Option<LawView<'a>> {
        if !self.consistent() {
            return None;
        }
        let n = self.len();
        let g = &self.geom;
        Some(LawView {
            len: n,
            dt: self.dt,
            frame: [
                cut3(g.frame[0], n),
                cut3(g.frame[1], n),
                cut3(g.frame[2], n),
            ],
            point: cut3(g.point, n),
            u: cut3(g.u, n),
            phi: cut3(g.phi, n),
            u_dot: cut3(g.u_dot, n),
            phi_dot: cut3(g.phi_dot, n),
            lens: [cut(g.lens[0], n), cut(g.lens[1], n)],
            area: cut(g.area, n),
            mass: [cut(self.mass[0], n), cut(self.mass[1], n)],
            material: [cut(self.material[0], n), cut(self.material[1], n)],
            materials: self.materials.as_slice(),
            onset_time: cut(self.onset_time, n),
            onset_normal_velocity: cut(self.onset_normal_velocity, n),
            flags: cut(self.flags, n),
        })
    }
}

impl<'a> LawView<'a> {
    /// The same view with every column cut again to [`LawView::len`] where the compiler
    /// sees it, so that in a loop inlined after it, a test of an index against the length
    /// covers every column. (They are that long already; the compiler cannot know it of
    /// slices read from memory.)
    #[inline(always)]
    pub(crate) fn recut(&self) -> LawView<'a> {
        let n = self.len;
        let c3 = |c: &[&'a [f64]; 3]| [&c[0][..n], &c[1][..n], &c[2][..n]];
        LawView {
            len: n,
            dt: self.dt,
            frame: [c3(&self.frame[0]), c3(&self.frame[1]), c3(&self.frame[2])],
            point: c3(&self.point),
            u: c3(&self.u),
            phi: c3(&self.phi),
            u_dot: c3(&self.u_dot),
            phi_dot: c3(&self.phi_dot),
            lens: [&self.lens[0][..n], &self.lens[1][..n]],
            area: &self.area[..n],
            mass: [&self.mass[0][..n], &self.mass[1][..n]],
            material: [&self.material[0][..n], &self.material[1][..n]],
            materials: self.materials,
            onset_time: &self.onset_time[..n],
            onset_normal_velocity: &self.onset_normal_velocity[..n],
            flags: &self.flags[..n],
        }
    }
}

impl LawView<'_> {
    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Is the batch empty?
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The flags ([`FLAG_NEW`], [`FLAG_LAST`]) of contact `i`.
    #[inline(always)]
    pub fn flags(&self, i: usize) -> u8 {
        self.flags[i]
    }

    /// The two bodies of contact `i` (panics unless `i < len`).
    #[inline(always)]
    pub fn pair(&self, i: usize) -> LawPair {
        assert!(i < self.len, "contact {i} of a batch of {}", self.len);
        // SAFETY: every column has `len` items and every material index is below the
        // number of materials: `LawBatch::view`, the only constructor, checked both.
        unsafe { self.pair_unchecked(i) }
    }

    /// [`LawView::pair`] without the test of `i`.
    ///
    /// # Safety
    /// `i < len`.
    #[inline(always)]
    unsafe fn pair_unchecked(&self, i: usize) -> LawPair {
        let at = |c: &[f64]| unsafe { *c.get_unchecked(i) };
        let material = |k: usize| unsafe {
            *self
                .materials
                .get_unchecked(*self.material[k].get_unchecked(i) as usize)
        };
        LawPair {
            radius: [at(self.lens[0]), at(self.lens[1])],
            mass: [at(self.mass[0]), at(self.mass[1])],
            material: [material(0), material(1)],
        }
    }

    /// Everything given for contact `i`, as the record a per-contact law reads (panics
    /// unless `i < len`).
    #[inline(always)]
    pub fn input(&self, i: usize) -> LawInput {
        assert!(i < self.len, "contact {i} of a batch of {}", self.len);
        // SAFETY: as in `pair`: every column has `len > i` items.
        let at = |c: &[f64]| unsafe { *c.get_unchecked(i) };
        let v3 = |c: &[&[f64]; 3]| Vec3::new(at(c[0]), at(c[1]), at(c[2]));
        let (r0, r1, r2) = (v3(&self.frame[0]), v3(&self.frame[1]), v3(&self.frame[2]));
        let flags = unsafe { *self.flags.get_unchecked(i) };
        LawInput {
            geom: frame_rows(
                [r0, r1, r2],
                [
                    v3(&self.point),
                    v3(&self.u),
                    v3(&self.phi),
                    v3(&self.u_dot),
                    v3(&self.phi_dot),
                ],
                [at(self.lens[0]), at(self.lens[1]), at(self.area)],
            ),
            // SAFETY: i < len, tested above.
            pair: unsafe { self.pair_unchecked(i) },
            onset: Onset {
                time: at(self.onset_time),
                normal_velocity: at(self.onset_normal_velocity),
            },
            dt: self.dt,
            is_new: u32::from(flags & FLAG_NEW != 0),
            is_last: u32::from(flags & FLAG_LAST != 0),
        }
    }
}
