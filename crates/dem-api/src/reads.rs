//! What a functor declares it reads (dem-api 0.5), so that the solver can skip what no
//! functor of a scene reads.
//!
//! A geometry functor answers [`crate::Cg2Functor::reads`] with [`GeomReads`] bits, a
//! contact law [`crate::ContactLaw::reads`] with [`LawReads`] bits. A bit that is not set
//! means the functor never reads that input: the solver may then leave it stale or not
//! compute it at all (a column of such an input may hold any finite value). Declare too
//! much and the run is only slower; declare too little and the functor reads stale
//! values, so the SDK's defaults declare everything and each shipped functor narrows them.

use abi_stable::StableAbi;

/// Bits of what a geometry functor reads of its two bodies, besides their position and
/// shape (which every functor reads).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GeomReads(pub u32);

impl GeomReads {
    /// Nothing besides position and shape.
    pub const NONE: GeomReads = GeomReads(0);
    /// The orientation of body 1 ([`crate::BodyView::ori`]; body 1 has the functor's
    /// first shape kind). When no functor reads the orientation of a sphere (and no output
    /// asks for it), the solver does not integrate the orientation of spheres, whose
    /// shape does not depend on it.
    pub const ORIENTATION_1: GeomReads = GeomReads(1);
    /// The orientation of body 2.
    pub const ORIENTATION_2: GeomReads = GeomReads(2);
    /// The bodies' velocities and angular velocities ([`crate::BodyView::vel`],
    /// [`crate::BodyView::angvel`]).
    pub const VELOCITY: GeomReads = GeomReads(4);
    /// Everything (the SDK's default).
    pub const ALL: GeomReads = GeomReads(7);

    /// The orientation bit of body `k` (0 or 1).
    pub const fn orientation(k: usize) -> GeomReads {
        if k == 0 {
            GeomReads::ORIENTATION_1
        } else {
            GeomReads::ORIENTATION_2
        }
    }

    /// Are all bits of `other` set in `self`?
    pub const fn contains(self, other: GeomReads) -> bool {
        self.0 & other.0 == other.0
    }

    /// The bits of both.
    pub const fn union(self, other: GeomReads) -> GeomReads {
        GeomReads(self.0 | other.0)
    }
}

/// Bits of what a contact law reads of a [`crate::LawBatch`], besides the L6Geom columns
/// of `u`, `u_dot`, `phi`, `phi_dot`, `lens` and `area`, the flags and the time step
/// (which every law may read).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LawReads(pub u32);

impl LawReads {
    /// The columns above only; the masses and materials of a contact only on the step it
    /// is created ([`crate::FLAG_NEW`]), to compute its constants.
    pub const NONE: LawReads = LawReads(0);
    /// The masses and materials of every contact at every step. Without this bit, the
    /// [`crate::LawBatch::mass`] and [`crate::LawBatch::material`] columns hold the
    /// contact's values only for the contacts flagged [`crate::FLAG_NEW`]; the other
    /// entries are stale (finite masses or infinity, valid material indices).
    pub const PAIR: LawReads = LawReads(1);
    /// The frame and the contact point ([`crate::L6Columns::frame`],
    /// [`crate::L6Columns::point`]).
    pub const FRAME: LawReads = LawReads(2);
    /// The onset data ([`crate::LawBatch::onset_time`],
    /// [`crate::LawBatch::onset_normal_velocity`]).
    pub const ONSET: LawReads = LawReads(4);
    /// Everything (the SDK's default for a law written per contact).
    pub const ALL: LawReads = LawReads(7);

    /// Are all bits of `other` set in `self`?
    pub const fn contains(self, other: LawReads) -> bool {
        self.0 & other.0 == other.0
    }

    /// The bits of both.
    pub const fn union(self, other: LawReads) -> LawReads {
        LawReads(self.0 | other.0)
    }
}
