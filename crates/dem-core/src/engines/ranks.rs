//! One simulation run by several processes (MPI ranks), with the same answer as one.
//!
//! Every rank holds a copy of every particle and runs the rebuilds of the broad phase and
//! the reorderings on all of them, alike; the work of each step (contacts, forces,
//! integration, the staleness test) is shared, and between rebuilds a rank keeps current
//! only the particles it reads.
//!
//! - **Ownership.** The particles are cut in chunks of [`crate::engines::integrator::CHUNK`]
//!   storage indices (the chunks of the sums over particles), and each rank owns one run
//!   of consecutive chunks, as even as they come. Storage is in Morton order of the
//!   positions (see [`crate::engines::reorder`]), so a run of chunks is a compact piece of space.
//! - **Contacts.** A rank holds and computes the contacts of its own particles and those
//!   of every particle that is not free (walls, mesh facets, moving groups: replicated,
//!   each rank moves them alike and needs their whole force). A contact between two ranks'
//!   particles is computed by both, from the same inputs, to the same bits: no force
//!   travels. The contact's owner is the owner of its particle `a` (the smaller id).
//! - **Each step** a rank sends the new state of its particles that other ranks' pairs
//!   read (their ghosts, [`Ranks::find_ghosts`]), the two largest displacements of its
//!   free particles (the broad phase's staleness test, [`Ranks::stale`]) and its chunks'
//!   energy sums (the integrator's, and the contact energies the gather books to the
//!   particles, [`crate::engines::contacts::Contacts::gather`]). Every particle's force is summed in
//!   slot order, every chunk in storage order and the chunks in order, so the particles
//!   and the ledger are bitwise those of one process, for any number of ranks.
//! - **Before a rebuild** every rank sends its particles' positions, so that all rebuild
//!   alike ([`Ranks::share_positions`]), then the whole state of its new ghosts
//!   ([`Ranks::share_ghosts`]); before a reordering, an output or a check of the whole
//!   state, every particle's whole state ([`Ranks::share_states`]).
//! - **At a reordering** a particle may change owner: the ranks first put all contacts
//!   together (each sends those it owns), so that each can take its new share with their
//!   L6Geom and law state.
//! - **Errors.** After the contacts' pass the ranks tell each other whether it failed: a
//!   plugin's error on one rank stops every rank, with its message.
//!
//! - **The unbalanced force** (a stop on it) is summed per owned chunk, and the chunks'
//!   sums shared ([`Ranks::share_chunks`]; see [`crate::engines::unbalanced`]).
//!
//! - **Inlets and outlets**: a step where the population changes is taken whole by every
//!   rank, as one process, and the simulation shared out anew (see
//!   `Simulation::distribute`).
//!
//! Clump members are not free: every rank holds them and moves every clump alike. Periodic
//! cells and meshes moved by their contacts are refused for now (each needs its own
//! exchange).
//!
//! The transport is given by the caller as an [`Exchange`] (the `dem` executable's uses
//! MPI): one collective operation, every rank's bytes to every rank.

use crate::engines::broadphase::{merge_tops, VerletList};
use crate::engines::contacts::{Contacts, SavedContact};
use crate::engines::dispatch::Dispatch;
use crate::engines::integrator::CHUNK;
use crate::model::particles::Particles;
use crate::support::error::DemError;
use crate::support::team::Team;
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
    /// The particles that are not free (held by every rank), by storage index.
    replicated: Vec<u32>,
    /// Is each storage index one of `replicated`?
    is_replicated: Vec<bool>,
    /// The runs of free particles (storage indices).
    free: Vec<Range<usize>>,
    /// The owned free particles whose state other ranks read (their ghosts): the other
    /// ends of this rank's candidate pairs with a particle it does not own. Sent each step.
    sent: Vec<u32>,
    /// The other ranks' particles this rank's candidate pairs read (its ghosts), received
    /// each step.
    ghosts: Vec<u32>,
    /// The two largest squared displacements (m²) of the free particles, from every
    /// rank's last exchange, for the broad phase's staleness test; `None` while every
    /// rank holds every particle's state (after [`Ranks::share_states`]).
    tops: Option<[f64; 2]>,
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
        let mut is_replicated = vec![true; n];
        for run in free {
            is_replicated[run.clone()].fill(false);
        }
        let replicated = (0..n as u32)
            .filter(|&i| is_replicated[i as usize])
            .collect();
        Ranks {
            exchange,
            local,
            owned,
            chunks,
            moved,
            replicated,
            is_replicated,
            free: free.to_vec(),
            sent: Vec::new(),
            ghosts: Vec::new(),
            tops: None,
            buffers: Mutex::default(),
        }
    }

    /// The exchange, to share the simulation anew (after a step run as one process).
    pub fn into_exchange(self) -> Box<dyn Exchange> {
        self.exchange
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

    /// The chunks this rank moves (see [`crate::engines::integrator::CHUNK`]): its own, and those
    /// holding a particle that is not free.
    pub fn moved(&self) -> &[bool] {
        &self.moved
    }

    /// The other ranks' particles this rank's candidate pairs read (see
    /// [`Ranks::find_ghosts`]), by storage index.
    pub fn ghosts(&self) -> &[u32] {
        &self.ghosts
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

    /// The largest of each of `values` over the ranks, in place.
    pub fn max_each(&self, values: &mut [f64]) {
        let mut all = Vec::new();
        let at = self
            .exchange
            .all_gather(bytemuck::cast_slice(values), &mut all);
        for bytes in at {
            for (v, x) in values
                .iter_mut()
                .zip(all[bytes].chunks_exact(8).map(read_f64))
            {
                *v = v.max(x);
            }
        }
    }

    /// Is `flag` set on any rank?
    pub fn any(&self, flag: bool) -> bool {
        let mut all = Vec::new();
        self.exchange.all_gather(&[u8::from(flag)], &mut all);
        all.contains(&1)
    }

    /// Notes which of its particles this rank sends each step, from its candidate `pairs`
    /// (those of [`Ranks::local_pairs`]): a rank holds every pair of its own particles, so
    /// its particles that another rank's pairs read are those in a pair with a particle
    /// it does not own, or with a replicated one (whose pairs every rank holds, even when
    /// its storage index falls in this rank's share: every rank moves a clump from its
    /// members' whole forces, so their contacts must read current states everywhere).
    /// The particles of `shared` (the spheres of the bonds, which every rank computes)
    /// are read by every rank: each sends its own, and takes the others as ghosts.
    pub fn find_ghosts(&mut self, pairs: &[(u32, u32)], shared: &[u32]) {
        let owned = self.owned.clone();
        let mut send = vec![false; owned.len()];
        let mut ghosts = Vec::new();
        for &(a, b) in pairs {
            for (x, y) in [(a as usize, b as usize), (b as usize, a as usize)] {
                let others_read = !owned.contains(&y) || self.is_replicated[y];
                if owned.contains(&x) && others_read && !self.is_replicated[x] {
                    send[x - owned.start] = true;
                }
                if !self.local[x] {
                    ghosts.push(x as u32);
                }
            }
        }
        for &x in shared {
            let x = x as usize;
            if owned.contains(&x) && !self.is_replicated[x] {
                send[x - owned.start] = true;
            }
            if !self.local[x] {
                ghosts.push(x as u32);
            }
        }
        self.sent = (owned.start as u32..owned.end as u32)
            .filter(|&i| send[i as usize - owned.start])
            .collect();
        ghosts.sort_unstable();
        ghosts.dedup();
        self.ghosts = ghosts;
    }

    /// The broad phase's staleness test for the whole simulation, alike on every rank:
    /// [`VerletList::stale_in`] when every rank holds every state, otherwise from the
    /// free particles' displacements of the last exchange and the replicated particles'
    /// (every rank moves those alike). The two largest displacements of a set are those
    /// of its parts' two largest, so the answer is one process's, bit for bit.
    pub fn stale(&self, verlet: &VerletList, p: &Particles, team: &Team) -> bool {
        match self.tops {
            Some(free) if verlet.built_for(p) => {
                let tops = merge_tops(free, verlet.tops_of(p, &self.replicated));
                verlet.beyond_skin(tops)
            }
            _ => verlet.stale_in(p, team),
        }
    }

    /// Gives every rank the state of every particle (each rank sends its own): position,
    /// velocity, orientation, angular velocity. Before a rebuild of the broad phase, an
    /// output, or a check of the whole state.
    pub fn share_states(&mut self, p: &mut Particles) {
        let owned: Vec<u32> = (self.owned.start as u32..self.owned.end as u32).collect();
        self.send_states(p, &owned, None, &mut [] as &mut [[f64; 0]]);
        self.tops = None;
    }

    /// Gives every rank the position of every particle (each rank sends its own): what a
    /// rebuild of the broad phase reads. The other ranks' particles that the rebuilt pairs
    /// read then need their whole state ([`Ranks::share_ghosts`]).
    pub fn share_positions(&mut self, p: &mut Particles) {
        let mut buffers = self.buffers.lock().expect("one step at a time");
        let (mine, all) = &mut *buffers;
        mine.clear();
        for x in &p.pos[self.owned.clone()] {
            mine.extend_from_slice(x.as_slice());
        }
        let at = self.exchange.all_gather(bytemuck::cast_slice(mine), all);
        for (rank, bytes) in at.into_iter().enumerate() {
            if rank != self.rank() {
                let (_, owned) = share_of(rank, self.size(), p.len());
                let values: &[u8] = &all[bytes];
                for (x, v) in p.pos[owned].iter_mut().zip(values.chunks_exact(24)) {
                    *x = Vector3::new(read_f64(&v[..8]), read_f64(&v[8..16]), read_f64(&v[16..]));
                }
            }
        }
        self.tops = None;
    }

    /// Gives every rank the whole state of its ghosts (see [`Ranks::find_ghosts`]), as the
    /// step's exchange does, without the rest: after a rebuild that found new ghosts.
    pub fn share_ghosts(&mut self, p: &mut Particles) {
        let sent = std::mem::take(&mut self.sent);
        self.send_states(p, &sent, None, &mut [] as &mut [[f64; 0]]);
        self.sent = sent;
    }

    /// The two largest squared displacements (m²) of this rank's free particles since the
    /// last rebuild, for [`Ranks::share_step`].
    pub fn own_tops(&self, verlet: &VerletList, p: &Particles, team: &Team) -> [f64; 2] {
        let own = &self.owned;
        self.free
            .iter()
            .map(|run| run.start.max(own.start)..run.end.min(own.end))
            .filter(|r| !r.is_empty())
            .fold([0.0; 2], |best, r| {
                merge_tops(best, verlet.tops_in(p, team, r))
            })
    }

    /// The step's exchange: gives every rank the new state of the particles it reads but
    /// does not own (its ghosts; see [`Ranks::find_ghosts`]), every rank's two largest
    /// displacements of its free particles (`mine`, from [`Ranks::own_tops`]) for the next
    /// staleness test, and the chunk sums `sums` (`W` values per chunk) of every chunk. The
    /// forces stay where they were summed (see [`Ranks::share_forces`]).
    pub fn share_step<const W: usize>(
        &mut self,
        p: &mut Particles,
        sums: &mut [[f64; W]],
        mine: [f64; 2],
    ) {
        let sent = std::mem::take(&mut self.sent);
        let tops = self.send_states(p, &sent, Some(mine), sums);
        self.sent = sent;
        self.tops = Some(tops);
    }

    /// Sends the state of the particles `ids` (owned), with `tops` and the owned chunks'
    /// `sums`; takes every other rank's. Returns the two largest of all ranks' `tops`.
    fn send_states<const W: usize>(
        &self,
        p: &mut Particles,
        ids: &[u32],
        tops: Option<[f64; 2]>,
        sums: &mut [[f64; W]],
    ) -> [f64; 2] {
        let mut buffers = self.buffers.lock().expect("one step at a time");
        let (mine, all) = &mut *buffers;
        mine.clear();
        let mut best = tops.unwrap_or_default();
        mine.extend_from_slice(&best);
        mine.push(ids.len() as f64);
        for &i in ids {
            let i = i as usize;
            let q = p.ori[i].quaternion();
            mine.push(i as f64);
            mine.extend_from_slice(p.pos[i].as_slice());
            mine.extend_from_slice(p.vel[i].as_slice());
            mine.extend_from_slice(&[q.w, q.i, q.j, q.k]);
            mine.extend_from_slice(p.angvel[i].as_slice());
            mine.extend(p.fields.iter().map(|f| f[i]));
        }
        if W > 0 {
            for s in &sums[self.chunks.clone()] {
                mine.extend_from_slice(s);
            }
        }
        let at = self.exchange.all_gather(bytemuck::cast_slice(mine), all);
        let n = p.len();
        for (rank, bytes) in at.into_iter().enumerate() {
            if rank == self.rank() {
                continue;
            }
            let mut values = all[bytes].chunks_exact(8).map(read_f64);
            let mut next = || values.next().expect("a whole message");
            best = merge_tops(best, [next(), next()]);
            for _ in 0..next() as usize {
                let i = next() as usize;
                let mut v = [0.0; STATE];
                v.iter_mut().for_each(|x| *x = next());
                let v3 = |k: usize| Vector3::new(v[k], v[k + 1], v[k + 2]);
                p.pos[i] = v3(0);
                p.vel[i] = v3(3);
                p.ori[i] = UnitQuaternion::new_unchecked(Quaternion::new(v[6], v[7], v[8], v[9]));
                p.angvel[i] = v3(10);
                for f in p.fields.iter_mut() {
                    f[i] = next();
                }
            }
            if W > 0 {
                let (chunks, _) = share_of(rank, self.size(), n);
                for s in &mut sums[chunks] {
                    s.iter_mut().for_each(|x| *x = next());
                }
            }
        }
        best
    }

    /// Gives every rank the values of every chunk (`W` per chunk of
    /// [`crate::engines::integrator::CHUNK`] particles): each rank sends those of the
    /// chunks it owns and takes the others'.
    pub fn share_chunks<const W: usize>(&self, sums: &mut [[f64; W]]) {
        let mine: Vec<f64> = sums[self.chunks.clone()]
            .iter()
            .flatten()
            .copied()
            .collect();
        let mut all = Vec::new();
        let at = self
            .exchange
            .all_gather(bytemuck::cast_slice(&mine), &mut all);
        let n = self.local.len();
        for (rank, bytes) in at.into_iter().enumerate() {
            if rank == self.rank() {
                continue;
            }
            let (chunks, _) = share_of(rank, self.size(), n);
            let mut values = all[bytes].chunks_exact(8).map(read_f64);
            for s in &mut sums[chunks] {
                s.iter_mut()
                    .for_each(|x| *x = values.next().expect("a whole message"));
            }
        }
    }

    /// The chunks this rank owns.
    pub fn chunks(&self) -> Range<usize> {
        self.chunks.clone()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Rank `0` of 2, with no transport (for what needs none).
    struct Alone;

    impl Exchange for Alone {
        fn rank(&self) -> usize {
            0
        }
        fn size(&self) -> usize {
            2
        }
        fn all_gather(&self, _: &[u8], _: &mut Vec<u8>) -> Vec<Range<usize>> {
            unreachable!("no exchange in these tests")
        }
    }

    #[test]
    fn a_rank_sends_what_the_others_read_and_reads_its_ghosts() {
        // 4 chunks: rank 0 owns 0..128; 250 is a wall (not free).
        let free = [Range { start: 0, end: 250 }];
        let mut r = Ranks::new(Box::new(Alone), 256, &free);
        assert_eq!(r.owned(), 0..128);
        let pairs = [
            (5, 200),
            (10, 20),
            (30, 250),
            (7, 130),
            (140, 250),
            (150, 160),
        ];
        let local = r.local_pairs(&pairs);
        // Every pair with an own or a replicated particle, not the other rank's own.
        assert_eq!(local, [(5, 200), (10, 20), (30, 250), (7, 130), (140, 250)]);
        r.find_ghosts(&local, &[]);
        // 5 and 7 meet rank 1's particles; 30 meets the wall, whose pairs rank 1 holds.
        assert_eq!(r.sent, [5, 7, 30]);
        // Rank 1's particles that rank 0's pairs read, the wall's among them.
        assert_eq!(r.ghosts(), [130, 140, 200]);
    }
}
