//! A candidate pair ([`Slot`]) and a live contact ([`Contact`]): the ids and flags that
//! the container keeps per pair and per contact.

/// `Slot::contact` of a slot without a contact.
pub(super) const NONE: u32 = u32::MAX;

/// One candidate pair (one contact term of it).
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Smaller particle id.
    pub a: u32,
    /// Larger particle id.
    pub b: u32,
    /// Sum of the radii when both bodies are spheres, m (NaN otherwise): the pre-check
    /// before the geometry call reads it instead of the shapes.
    pub(super) radii: f64,
    /// Geometry functor index.
    pub geom: u16,
    /// Law index.
    pub law: u16,
    /// Contact term of the pair (`GeomInput::feature`), 0 for a one-term functor.
    pub feature: u8,
    /// True when the functor's body 1 is `b`.
    pub swap: bool,
}

impl Slot {
    pub(super) fn key(&self) -> (u16, u16, u32, u32, u8) {
        (self.geom, self.law, self.a, self.b, self.feature)
    }

    /// Particle ids as the functor sees them: (body 1, body 2).
    pub fn bodies(&self) -> (usize, usize) {
        bodies(self.a, self.b, self.swap)
    }
}

fn bodies(a: u32, b: u32, swap: bool) -> (usize, usize) {
    if swap {
        (b as usize, a as usize)
    } else {
        (a as usize, b as usize)
    }
}

/// A contact: live, or ended in the last step (`ending`).
#[derive(Clone, Debug)]
pub struct Contact {
    /// Smaller particle id.
    pub a: u32,
    /// Larger particle id.
    pub b: u32,
    /// Geometry functor index.
    pub geom: u16,
    /// Law index.
    pub law: u16,
    /// Contact term of the pair.
    pub feature: u8,
    /// True when the functor's body 1 is `b`.
    pub swap: bool,
    /// Was the contact created this step?
    pub new: bool,
    /// Did the contact end this step (its last law call booked dissipation only)?
    pub ending: bool,
    /// Did the functor stop reporting it (ended without a last law call)?
    pub(super) gone: bool,
    /// Index of its slot.
    pub(super) slot: u32,
}

impl Contact {
    /// Particle ids as the functor sees them: (body 1, body 2).
    pub fn bodies(&self) -> (usize, usize) {
        bodies(self.a, self.b, self.swap)
    }

    /// Is this a contact that goes on (not one that ended in the last step)?
    pub fn active(&self) -> bool {
        !self.ending && !self.gone
    }

    pub(super) fn key(&self) -> (u16, u16, u32, u32, u8) {
        (self.geom, self.law, self.a, self.b, self.feature)
    }
}
