//! The unbalanced force: the mean magnitude of the net force on the free particles over
//! the mean magnitude of the contact forces. Near 0 in static equilibrium, infinite
//! without contact forces. The scene's `stop: [Unbalanced(x)]` and the periodic cell's
//! servo (`until: [Unbalanced(x)]`) end on it.
//!
//! Its four sums are taken per chunk of [`CHUNK`] particles in storage order (each
//! contact's force booked to the chunk of its particle `a`, in slot order), then over the
//! chunks in order: the order of the ledger's sums (see
//! [`crate::engines::contacts::Contacts::gather`]). So MPI ranks, each summing the chunks
//! it owns and sharing them ([`crate::engines::ranks::Ranks::share_chunks`]), find one
//! process's value, bit for bit, and stop at the same step.

use crate::engines::contacts::Contacts;
use crate::engines::integrator::CHUNK;
use crate::model::particles::Particles;
use std::ops::Range;

/// The sums of one chunk of particles: the magnitudes of the contact forces booked to it
/// (N) and their number; the magnitudes of the net forces on its free particles (N) and
/// their number.
pub type Sums = [f64; 4];

/// The sums of every chunk of `p` (`n.div_ceil(CHUNK)` of them); those of the chunks in
/// `mine` filled (with every contact of their particles held in `contacts`), the others
/// zero. A free particle is one with a bounding radius (not a wall or a facet).
pub fn chunk_sums(p: &Particles, contacts: &Contacts, mine: Range<usize>) -> Vec<Sums> {
    let n = p.len();
    let mut sums = vec![[0.0; 4]; n.div_ceil(CHUNK)];
    let own = (mine.start * CHUNK).min(n)..(mine.end * CHUNK).min(n);
    for (c, f) in contacts.live_forces_in_slot_order() {
        let a = c.a as usize;
        if own.contains(&a) {
            let s = &mut sums[a / CHUNK];
            s[0] += f.force.norm();
            s[1] += 1.0;
        }
    }
    for i in own {
        if p.shape[i].bounding_radius().is_some() {
            let s = &mut sums[i / CHUNK];
            s[2] += p.force[i].norm();
            s[3] += 1.0;
        }
    }
    sums
}

/// The unbalanced force from the chunks' sums, summed in chunk order.
pub fn ratio(sums: &[Sums]) -> f64 {
    let mut total = [0.0; 4];
    for s in sums {
        for (t, x) in total.iter_mut().zip(s) {
            *t += x;
        }
    }
    let [contact, contacts, net, free] = total;
    if contacts == 0.0 || contact == 0.0 {
        return f64::INFINITY;
    }
    (net / free.max(1.0)) / (contact / contacts)
}
