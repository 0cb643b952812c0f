//! The counts and energies of a step's contacts ([`ContactTotals`]), and what the law
//! pass leaves for the gather ([`Gather`]).

/// Marks, in the gather's bodies of a contact, one that ended in the step: it pushes
/// nothing but books its last dissipation to its particle `a` (ids stay below it).
pub(super) const ENDING: u32 = 1 << 31;

/// What the law pass leaves for the gather.
#[derive(Clone, Default)]
pub(super) struct Gather {
    /// Counts, one per chunk of the contact list.
    pub(super) totals: Vec<ContactTotals>,
    /// Elastic energy, friction and damping (J) of the step booked to each chunk of
    /// particles, and its live contacts (see [`Contacts::gather`]).
    pub(super) booked: Vec<Booked>,
    /// Body 1 and body 2 of each contact, `NONE` for one that applies no force.
    pub(super) bodies: Vec<[u32; 2]>,
}

/// Elastic energy, friction and damping (J) booked to a chunk of particles in a step, and
/// how many live contacts.
pub(crate) type Booked = [f64; 4];

impl ContactTotals {
    /// Sets the energies and the live contacts to the sums of chunks' `booked`, in chunk
    /// order.
    pub(crate) fn book(&mut self, booked: &[Booked]) {
        let mut t = [0.0; 4];
        for e in booked {
            for (t, e) in t.iter_mut().zip(e) {
                *t += e;
            }
        }
        [self.elastic, self.friction, self.damping] = [t[0], t[1], t[2]];
        self.active = t[3] as usize;
    }
}

/// Events and energy of one step's contacts.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactTotals {
    /// Contacts alive after the step.
    pub active: usize,
    /// Contacts that ended in the step (removed at the start of the next).
    pub ended: usize,
    /// Elastic energy stored, J.
    pub elastic: f64,
    /// Friction dissipation this step, J.
    pub friction: f64,
    /// Viscous dissipation this step, J.
    pub damping: f64,
}
