//! One simulation run by several processes (MPI ranks), with the same answer as one.
//!
//! This is the first stage of the decomposition: every rank holds every particle
//! (replicated data) and runs the broad phase, the reordering and the rebuilds on all of
//! them, alike; the work that grows with the contacts and the particles is shared.
//!
//! - **Ownership.** The particles are cut in chunks of [`crate::integrator::CHUNK`]
//!   storage indices (the chunks of the sums over particles), and each rank owns one run
//!   of consecutive chunks, as even as they come. Storage is in Morton order of the
//!   positions (see [`crate::reorder`]), so a run of chunks is a compact piece of space.
//! - **Contacts.** A rank holds and computes the contacts of its own particles and those
//!   of every particle that is not free (walls, mesh facets, moving groups: replicated,
//!   each rank moves them alike and needs their whole force). A contact between two ranks'
//!   particles is computed by both, from the same inputs, to the same bits: no force
//!   travels. The contact's owner is the owner of its particle `a` (the smaller id).
//! - **Each step** the ranks exchange their own particles' new state and their chunks'
//!   energy sums (the integrator's, and the contact energies the gather books to the
//!   particles, [`crate::contacts::Contacts::gather`]). Every particle's force is summed in
//!   slot order, every chunk in storage order and the chunks in order, so the particles
//!   and the ledger are bitwise those of one process, for any number of ranks.
//! - **At a reordering** a particle may change owner: the ranks first put all contacts
//!   together (each sends those it owns), so that each can take its new share with their
//!   L6Geom and law state.
//! - **Errors.** After the contacts' pass the ranks tell each other whether it failed: a
//!   plugin's error on one rank stops every rank, with its message.
//!
//! Inlets and outlets, clumps, periodic cells and meshes moved by their contacts are
//! refused for now (each needs its own exchange).
//!
//! The transport is given by the caller as an [`Exchange`] (the `dem` executable's uses
//! MPI): one collective operation, every rank's bytes to every rank.

use crate::contacts::{Contacts, SavedContact};
use crate::dispatch::Dispatch;
use crate::error::DemError;
use crate::integrator::CHUNK;
use crate::particles::Particles;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use std::ops::Range;
use std::sync::Mutex;

/// The ranks' one collective operation.
pub trait Exchange: Send + Sync {
    /// This rank's number, from 0.
    fn rank(&self) -> usize;
    /// How many ranks run the simulation.
    fn size(&self) -> usize;
    /// Every rank's `mine`, in rank order, into `all` (its content replaced); returns where
    /// each rank's bytes are in it. Every rank calls it, in the same sequence.
    fn all_gather(&self, mine: &[u8], all: &mut Vec<u8>) -> Vec<Range<usize>>;
}

/// This rank's place among the ranks of a simulation.
pub struct Ranks {
    exchange: Box<dyn Exchange>,
    /// Is each storage index held here: owned, or not free (replicated)?
    local: Vec<bool>,
    /// The owned storage indices.
    owned: Range<usize>,
    /// The owned chunks.
    chunks: Range<usize>,
    /// The chunks this rank moves: its own, and those holding a particle that is not free
    /// (every rank moves those alike).
    moved: Vec<bool>,
    /// What this rank sends and what it receives, kept from step to step (a step's
    /// exchange is megabytes in a large scene: allocating it anew costs page faults).
    buffers: Mutex<(Vec<f64>, Vec<u8>)>,
}

/// Values per particle in the step's exchange: position, velocity, orientation (w, i, j,
/// k) and angular velocity.
const STATE: usize = 13;

impl Ranks {
    /// This rank's share of `n` particles whose free ones are `free` (runs of storage
    /// indices).
    pub fn new(exchange: Box<dyn Exchange>, n: usize, free: &[Range<usize>]) -> Ranks {
        let (rank, size) = (exchange.rank(), exchange.size());
        let (chunks, owned) = share_of(rank, size, n);
        let mut local = vec![true; n];
        for run in free {
            for i in run.clone() {
                local[i] = owned.contains(&i);
            }
        }
        let mut moved = vec![false; n.div_ceil(CHUNK)];
        for (i, &l) in local.iter().enumerate() {
            moved[i / CHUNK] |= l;
        }
        Ranks {
            exchange,
            local,
            owned,
            chunks,
            moved,
            buffers: Mutex::default(),
        }
    }

    /// This rank's number.
    pub fn rank(&self) -> usize {
        self.exchange.rank()
    }

    /// How many ranks.
    pub fn size(&self) -> usize {
        self.exchange.size()
    }

    /// The owned storage indices.
    pub fn owned(&self) -> Range<usize> {
        self.owned.clone()
    }

    /// The chunks this rank moves (see [`crate::integrator::CHUNK`]): its own, and those
    /// holding a particle that is not free.
    pub fn moved(&self) -> &[bool] {
        &self.moved
    }

    /// Is storage index `i` held here (owned, or replicated)?
    pub fn is_local(&self, i: u32) -> bool {
        self.local[i as usize]
    }

    /// The candidate pairs of this rank: those with a particle held here.
    pub fn local_pairs(&self, pairs: &[(u32, u32)]) -> Vec<(u32, u32)> {
        pairs
            .iter()
            .copied()
            .filter(|&(a, b)| self.is_local(a) || self.is_local(b))
            .collect()
    }

    /// Passes `result` on when it is `Ok` on every rank. Otherwise every rank returns an
    /// error: the failing rank its own, the others the first failing rank's message.
    pub fn agree<T>(&self, result: Result<T, DemError>) -> Result<T, DemError> {
        let mine = match &result {
            Ok(_) => Vec::new(),
            Err(e) => e.to_string().into_bytes(),
        };
        let mut all = Vec::new();
        let at = self.exchange.all_gather(&mine, &mut all);
        let value = result?;
        match at.into_iter().enumerate().find(|(_, m)| !m.is_empty()) {
            None => Ok(value),
            Some((rank, m)) => Err(DemError::Rank {
                rank,
                message: String::from_utf8_lossy(&all[m]).into_owned(),
            }),
        }
    }

    /// Is `flag` set on any rank?
    pub fn any(&self, flag: bool) -> bool {
        let mut all = Vec::new();
        self.exchange.all_gather(&[u8::from(flag)], &mut all);
        all.contains(&1)
    }

    /// Gives every rank the new state of every particle (each rank sends its own):
    /// position, velocity, orientation, angular velocity; and the chunk sums `sums` (`W`
    /// values per chunk) of every chunk. The forces stay where they were summed (see
    /// [`Ranks::share_forces`]).
    pub fn share<const W: usize>(&self, p: &mut Particles, sums: &mut [[f64; W]]) {
        let mut buffers = self.buffers.lock().expect("one step at a time");
        let (mine, all) = &mut *buffers;
        mine.clear();
        for i in self.owned.clone() {
            let q = p.ori[i].quaternion();
            mine.extend_from_slice(p.pos[i].as_slice());
            mine.extend_from_slice(p.vel[i].as_slice());
            mine.extend_from_slice(&[q.w, q.i, q.j, q.k]);
            mine.extend_from_slice(p.angvel[i].as_slice());
        }
        for s in &sums[self.chunks.clone()] {
            mine.extend_from_slice(s);
        }
        let at = self.exchange.all_gather(bytemuck::cast_slice(mine), all);
        let n = p.len();
        for (rank, bytes) in at.into_iter().enumerate() {
            if rank == self.rank() {
                continue;
            }
            let (chunks, owned) = share_of(rank, self.size(), n);
            let mut values = all[bytes].chunks_exact(8).map(read_f64);
            for i in owned {
                let mut v = [0.0; STATE];
                v.iter_mut()
                    .for_each(|x| *x = values.next().expect("a whole state"));
                let v3 = |k: usize| Vector3::new(v[k], v[k + 1], v[k + 2]);
                p.pos[i] = v3(0);
                p.vel[i] = v3(3);
                p.ori[i] = UnitQuaternion::new_unchecked(Quaternion::new(v[6], v[7], v[8], v[9]));
                p.angvel[i] = v3(10);
            }
            for s in &mut sums[chunks] {
                s.iter_mut()
                    .for_each(|x| *x = values.next().expect("whole sums"));
            }
        }
    }

    /// Gives every rank the force and torque of every particle (each rank sends those it
    /// summed), for the outputs that write them.
    pub fn share_forces(&self, p: &mut Particles) {
        let mine: Vec<f64> = self
            .owned
            .clone()
            .flat_map(|i| {
                let (f, t) = (p.force[i], p.torque[i]);
                [f.x, f.y, f.z, t.x, t.y, t.z]
            })
            .collect();
        let mut all = Vec::new();
        let at = self
            .exchange
            .all_gather(bytemuck::cast_slice(&mine), &mut all);
        for (rank, bytes) in at.into_iter().enumerate() {
            if rank == self.rank() {
                continue;
            }
            let (_, owned) = share_of(rank, self.size(), p.len());
            let values: Vec<f64> = all[bytes].chunks_exact(8).map(read_f64).collect();
            for (i, v) in owned.zip(values.chunks_exact(6)) {
                p.force[i] = Vector3::new(v[0], v[1], v[2]);
                p.torque[i] = Vector3::new(v[3], v[4], v[5]);
            }
        }
    }

    /// Every contact of the simulation, each from its owner, as one process would hold
    /// them over the candidate `pairs` of all particles, with what the last step computed
    /// of them (for the outputs).
    pub fn all_contacts(
        &self,
        contacts: &Contacts,
        pairs: &[(u32, u32)],
        p: &Particles,
        d: &Dispatch,
    ) -> Result<Contacts, DemError> {
        let mine: Vec<(SavedContact, [f64; 18])> = contacts
            .save()
            .into_iter()
            .enumerate()
            .filter(|(_, c)| self.owned.contains(&(c.a as usize)))
            .map(|(k, c)| (c, contacts.outputs(k)))
            .collect();
        let bytes = postcard::to_stdvec(&mine).expect("contacts always encode");
        let mut received = Vec::new();
        let at = self.exchange.all_gather(&bytes, &mut received);
        let mut all: Vec<(SavedContact, [f64; 18])> = Vec::new();
        for (rank, b) in at.into_iter().enumerate() {
            let theirs: Vec<(SavedContact, [f64; 18])> = postcard::from_bytes(&received[b])
                .map_err(|e| DemError::Rank {
                    rank,
                    message: format!("sent contacts that do not decode: {e}"),
                })?;
            all.extend(theirs);
        }
        let (saved, outputs): (Vec<SavedContact>, Vec<[f64; 18]>) = all.into_iter().unzip();
        let mut c = Contacts::restore(pairs, p, d, &saved).map_err(|message| DemError::Rank {
            rank: self.rank(),
            message: format!("cannot take the contacts of the other ranks: {message}"),
        })?;
        // `restore` keeps the saved order.
        for (k, v) in outputs.iter().enumerate() {
            c.set_outputs(k, v);
        }
        Ok(c)
    }
}

/// The chunks and the storage indices rank `rank` of `size` owns among `n` particles.
fn share_of(rank: usize, size: usize, n: usize) -> (Range<usize>, Range<usize>) {
    let count = n.div_ceil(CHUNK);
    let (q, r) = (count / size, count % size);
    let first = rank * q + rank.min(r);
    let chunks = first..first + q + usize::from(rank < r);
    let owned = (chunks.start * CHUNK).min(n)..(chunks.end * CHUNK).min(n);
    (chunks, owned)
}

fn read_f64(b: &[u8]) -> f64 {
    f64::from_ne_bytes(b.try_into().expect("8 bytes"))
}
