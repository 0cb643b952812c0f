//! The gather: each particle's force and torque summed over its contacts, and the
//! contacts' energies booked to the particles, in an order fixed by the particles'
//! storage order alone (see [`Contacts::gather`]).

use super::contact::NONE;
use super::forces::{ForceStore, ENERGY, FORCE, TORQUE};
use super::held::Held;
use super::totals::{Booked, ContactTotals, ENDING};
use super::Contacts;
use crate::model::particles::Particles;
use crate::support::team::{Parts, Team};
use nalgebra::Vector3;

impl Contacts {
    /// Gives the forces of the contacts of body `i` to body `to(i)` in the coming gather
    /// (periodic images hand theirs to the particle they image; see [`crate::engines::images`]).
    pub(crate) fn redirect_forces(&mut self, to: impl Fn(u32) -> u32) {
        // An ended contact's `ENDING | a` names a particle, never an image row.
        for b in self.gather.bodies.iter_mut().flatten() {
            if *b != NONE && *b & ENDING == 0 {
                *b = to(*b);
            }
        }
    }

    /// Sets each particle's force to its weight in `gravity` and its torque to zero, adds
    /// the contact forces, and returns the step's totals.
    ///
    /// Each particle sums its contacts in slot order, that is by functor, law, other
    /// particle (in storage order) and term: an order fixed by the particles' storage
    /// order alone, not by the contact list's (which depends on when each contact began
    /// and which ended before it, hence on the broad phase's rebuilds and the candidate
    /// set). The particles are cut into one run of whole chunks (of
    /// [`crate::engines::integrator::CHUNK`] particles) per member of `team`; each member walks the
    /// contacts in slot order for its own particles, so that the sums do not depend on the
    /// number of members either.
    ///
    /// The contacts' energies are booked the same way: each to its particle `a` (the
    /// smaller id), summed per chunk of particles in slot order, then the chunks in order.
    /// So the ledger too depends on the storage order alone, and a process that holds some
    /// chunks' particles with all their contacts can sum exactly the same terms.
    ///
    /// With `only` (a mark per chunk), only the marked chunks start from their weights:
    /// a rank's (see [`crate::engines::ranks`]), whose other particles' forces are not read.
    pub fn gather(
        &mut self,
        p: &mut Particles,
        gravity: &Vector3<f64>,
        team: &Team,
        only: Option<&[bool]>,
    ) -> ContactTotals {
        use crate::engines::integrator::CHUNK as PER;
        let n = p.len();
        let chunks = n.div_ceil(PER);
        let booked = &mut self.gather.booked;
        booked.clear();
        booked.resize(chunks, [0.0; 4]);
        let booked = Parts::new(booked);
        let (mass, pushed, bodies, held) =
            (&p.mass[..n], &self.forces, &self.gather.bodies, &self.held);
        let (forces, torques) = (
            Parts::new(&mut p.force[..n]),
            Parts::new(&mut p.torque[..n]),
        );
        team.run(|t| {
            let runs = team.range(chunks, t);
            let mine = (runs.start * PER).min(n)..(runs.end * PER).min(n);
            let lo = mine.start as u32;
            // SAFETY: the members' runs of chunks, and so their particles, are disjoint.
            let (force, torque, sums) = unsafe {
                (
                    forces.take(mine.clone()),
                    torques.take(mine.clone()),
                    booked.take(runs.clone()),
                )
            };
            match only {
                None => crate::engines::integrator::weigh(gravity, &mass[mine], force, torque),
                Some(only) => {
                    for k in runs.filter(|&k| only[k]) {
                        let r = k * PER - mine.start..((k + 1) * PER).min(n) - mine.start;
                        let (f, t) = (&mut force[r.clone()], &mut torque[r.clone()]);
                        crate::engines::integrator::weigh(
                            gravity,
                            &mass[r.start + mine.start..],
                            f,
                            t,
                        );
                    }
                }
            }
            sum_contacts((held, bodies, pushed), lo, (force, torque), sums);
        });
        let mut t = ContactTotals::default();
        for x in &self.gather.totals {
            t.ended += x.ended;
        }
        t.book(&self.gather.booked);
        t
    }

    /// What the last gather booked to each chunk of particles (for the ranks to share:
    /// see [`crate::engines::ranks`]).
    pub(crate) fn booked_mut(&mut self) -> &mut [Booked] {
        &mut self.gather.booked
    }
}

/// Adds the forces and torques of the contacts of `held` (in slot order; `bodies` and
/// `pushed` as [`Contacts::gather`] reads them) onto the particles from `lo` on whose
/// `force` and `torque` are given, and books their energies to `sums`, a chunk of
/// particles each. Compiled for each CPU level (the same additions in the same order: the
/// same bits).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
fn sum_contacts(
    (held, bodies, pushed): (&Held, &[[u32; 2]], &ForceStore),
    lo: u32,
    (force, torque): (&mut [Vector3<f64>], &mut [Vector3<f64>]),
    sums: &mut [Booked],
) {
    use crate::engines::integrator::CHUNK as PER;
    // The energies of the chunk of particles being booked, kept in registers while
    // the contacts stay with one chunk (they come by particle `a`): the same
    // additions in the same order as into `sums`, without a store and a load
    // between two of them.
    let (mut chunk, mut acc) = (usize::MAX, [0.0; 4]);
    held.each(|k| {
        let [b1, b2] = bodies[k as usize];
        // Ids below `lo` (and `NONE`, and `ENDING | a`) wrap to values past the
        // range.
        let (i1, i2) = (b1.wrapping_sub(lo) as usize, b2.wrapping_sub(lo) as usize);
        let ia = ((b1 & !ENDING).min(b2)).wrapping_sub(lo) as usize;
        if ia >= force.len() && i1 >= force.len() && i2 >= force.len() {
            return;
        }
        let (group, lane) = pushed.group(k as usize);
        let v = |f: usize| group[f * 4 + lane];
        let v3 = |f: usize| Vector3::new(v(f), v(f + 1), v(f + 2));
        if ia < force.len() {
            if ia / PER != chunk {
                if chunk != usize::MAX {
                    sums[chunk] = acc;
                }
                chunk = ia / PER;
                acc = sums[chunk];
            }
            acc[0] += v(ENERGY);
            acc[1] += v(ENERGY + 1);
            acc[2] += v(ENERGY + 2);
            acc[3] += f64::from(u8::from(b2 != NONE));
        }
        let f = v3(FORCE);
        if i2 < force.len() {
            force[i2] += f;
            torque[i2] += v3(TORQUE + 3);
        }
        if i1 < force.len() {
            force[i1] -= f;
            torque[i1] += v3(TORQUE);
        }
    });
    if chunk != usize::MAX {
        sums[chunk] = acc;
    }
}
