//! Spatial reordering of particle storage.
//!
//! Every law-pass contact reads eight arrays of each of its two particles. When particles
//! close in space are far apart in storage (a scene filled in random order, or one whose
//! particles have mixed since they were placed), each of those reads is a cache miss. So
//! every so often (scene setting `contacts.reorder`, in steps; at the first broad-phase
//! rebuild and then at the first rebuild after that many steps) the free particles are
//! put in Morton (Z-curve) order of their positions on a grid of the largest particle's
//! diameter, and the contacts are renamed; the contact list then follows, since the
//! rebuild puts it in particle order.
//!
//! Only the free particles move in storage (spheres and polyhedra without a prescribed
//! motion), each within its run of consecutive free particles, so that walls, mesh facets
//! and moving groups keep their indices and a free particle never changes sides with one
//! of them. A particle keeps its scene id (its place in the scene's `bodies`): outputs
//! and errors give scene ids, and [`ParticleOrder`] converts between the two.

use crate::model::particles::Particles;
use std::ops::Range;

/// Which scene particle each storage index holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParticleOrder {
    /// Scene id of the particle at each storage index (empty: storage is in scene order).
    ids: Vec<u32>,
    /// Storage index of each scene id (empty with `ids`; `u32::MAX` for the id of a
    /// particle removed by an outlet).
    index: Vec<u32>,
    /// Step of the last reordering, if any.
    pub last: Option<u64>,
}

/// `ParticleOrder::index` of a removed particle's scene id.
const REMOVED: u32 = u32::MAX;

impl ParticleOrder {
    /// The order given by `ids` (the scene id at each storage index; empty for scene
    /// order) of `n` particles, last reordered at step `last`, with `issued` scene ids
    /// given so far (particles removed since keep theirs: see [`Self::remove`]). `None`
    /// unless `ids` holds `n` distinct ids below `issued` (`n` of them when no particle
    /// was ever removed).
    pub fn from_ids(
        ids: Vec<u32>,
        n: usize,
        issued: usize,
        last: Option<u64>,
    ) -> Option<ParticleOrder> {
        if ids.is_empty() {
            return (issued == n).then_some(ParticleOrder {
                last,
                ..ParticleOrder::default()
            });
        }
        if ids.len() != n || issued < n {
            return None;
        }
        let mut index = vec![REMOVED; issued];
        for (i, &id) in ids.iter().enumerate() {
            let slot = index.get_mut(id as usize)?;
            if *slot != REMOVED {
                return None;
            }
            *slot = i as u32;
        }
        Some(ParticleOrder { ids, index, last })
    }

    /// Scene ids given so far to the `n` stored particles and to those removed: the
    /// next inserted particle gets this one.
    pub fn issued(&self, n: usize) -> usize {
        if self.ids.is_empty() {
            n
        } else {
            self.index.len()
        }
    }

    /// Notes `count` particles appended at the end of storage (which held `n`): they get
    /// the next scene ids, in storage order.
    pub fn append(&mut self, n: usize, count: usize) {
        if self.ids.is_empty() {
            return;
        }
        let first = self.index.len();
        self.ids.extend((first..first + count).map(|id| id as u32));
        self.index.extend((n..n + count).map(|i| i as u32));
    }

    /// Notes that storage kept only the particles `kept` (old storage indices, in their
    /// new order) of the `n` it held: the others were removed, and their scene ids are
    /// not given again.
    pub fn remove(&mut self, n: usize, kept: &[u32]) {
        if self.ids.is_empty() {
            self.ids = (0..n as u32).collect();
            self.index = (0..n as u32).collect();
        }
        for id in &mut self.index {
            *id = REMOVED;
        }
        let ids: Vec<u32> = kept.iter().map(|&old| self.ids[old as usize]).collect();
        for (i, &id) in ids.iter().enumerate() {
            self.index[id as usize] = i as u32;
        }
        self.ids = ids;
    }

    /// `(scene id, storage index)` of every stored particle, by scene id.
    pub fn by_id(&self, n: usize) -> Vec<(usize, usize)> {
        if self.ids.is_empty() {
            return (0..n).map(|i| (i, i)).collect();
        }
        self.index
            .iter()
            .enumerate()
            .filter(|(_, &i)| i != REMOVED)
            .map(|(id, &i)| (id, i as usize))
            .collect()
    }

    /// Scene id of the particle at each storage index (empty: scene order).
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Bytes held per particle: a scene id and a storage index once storage was
    /// reordered, nothing before.
    pub fn bytes_per_particle(&self) -> usize {
        if self.ids.is_empty() {
            0
        } else {
            2 * std::mem::size_of::<u32>()
        }
    }

    /// Scene id of the particle stored at index `i`.
    pub fn id(&self, i: usize) -> usize {
        self.ids.get(i).map_or(i, |&id| id as usize)
    }

    /// Storage index of the particle of scene id `id`.
    pub fn index(&self, id: usize) -> usize {
        self.index.get(id).map_or(id, |&i| i as usize)
    }

    /// Is a reordering due at `step` for a setting of `every` steps (0: never)?
    pub fn due(&self, step: u64, every: u64) -> bool {
        every > 0 && self.last.is_none_or(|last| step >= last + every)
    }

    /// Puts the free particles of each of `runs` in Morton order of their positions on
    /// a grid of cell size `cell` (m), at step `step`. Returns the new index of each old
    /// index, or `None` when storage was already in that order (nothing moved).
    pub fn reorder(
        &mut self,
        p: &mut Particles,
        runs: &[Range<usize>],
        cell: f64,
        step: u64,
    ) -> Option<Vec<u32>> {
        self.last = Some(step);
        let new_to_old = morton_order(p, runs, cell)?;
        p.permute(&new_to_old);
        let n = new_to_old.len();
        let mut old_to_new = vec![0u32; n];
        for (new, &old) in new_to_old.iter().enumerate() {
            old_to_new[old as usize] = new as u32;
        }
        let ids: Vec<u32> = new_to_old
            .iter()
            .map(|&old| self.id(old as usize) as u32)
            .collect();
        let mut index = vec![REMOVED; self.issued(n)];
        for (i, &id) in ids.iter().enumerate() {
            index[id as usize] = i as u32;
        }
        (self.ids, self.index) = (ids, index);
        Some(old_to_new)
    }
}

/// The storage index each index takes its particle from (`new_to_old`) when the
/// particles of each run are sorted by the Morton key of their grid cell (ties by
/// index), or `None` if that changes nothing.
fn morton_order(p: &Particles, runs: &[Range<usize>], cell: f64) -> Option<Vec<u32>> {
    let lo = runs
        .iter()
        .flat_map(|r| &p.pos[r.clone()])
        .fold([f64::INFINITY; 3], |m, x| {
            [m[0].min(x.x), m[1].min(x.y), m[2].min(x.z)]
        });
    // Cells beyond 2^21 per axis (a grid far wider than any scene) share the last one.
    let coordinate =
        |x: f64, lo: f64| ((x - lo) / cell).clamp(0.0, (1u64 << 21) as f64 - 1.0) as u64;
    let mut new_to_old: Vec<u32> = (0..p.len() as u32).collect();
    let mut keyed: Vec<(u64, u32)> = Vec::new();
    for run in runs {
        keyed.clear();
        keyed.extend(run.clone().map(|i| {
            let x = &p.pos[i];
            let key = morton_key([
                coordinate(x.x, lo[0]),
                coordinate(x.y, lo[1]),
                coordinate(x.z, lo[2]),
            ]);
            (key, i as u32)
        }));
        keyed.sort_unstable();
        for (slot, &(_, old)) in new_to_old[run.clone()].iter_mut().zip(&keyed) {
            *slot = old;
        }
    }
    let moved = new_to_old
        .iter()
        .enumerate()
        .any(|(i, &old)| i != old as usize);
    moved.then_some(new_to_old)
}

/// The bits of `x` (21 at most) spread to every third bit.
fn spread(x: u64) -> u64 {
    let mut x = x & 0x1f_ffff;
    x = (x | (x << 32)) & 0x001f_0000_0000_ffff;
    x = (x | (x << 16)) & 0x001f_0000_ff00_00ff;
    x = (x | (x << 8)) & 0x100f_00f0_0f00_f00f;
    x = (x | (x << 4)) & 0x10c3_0c30_c30c_30c3;
    x = (x | (x << 2)) & 0x1249_2492_4924_9249;
    x
}

/// Morton key of a grid cell: the bits of x, y and z interleaved (x lowest).
pub fn morton_key([x, y, z]: [u64; 3]) -> u64 {
    spread(x) | (spread(y) << 1) | (spread(z) << 2)
}

/// The runs of consecutive indices whose particle `free` holds.
pub fn free_runs(n: usize, free: impl Fn(usize) -> bool) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for i in (0..n).filter(|&i| free(i)) {
        match runs.last_mut() {
            Some(r) if r.end == i => r.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::particles::{Dofs, Shape};
    use dem_api::SphereShape;
    use nalgebra::Vector3;

    /// The key, bit by bit.
    fn naive_key(q: [u64; 3]) -> u64 {
        let mut k = 0;
        for bit in 0..21 {
            for (axis, &v) in q.iter().enumerate() {
                k |= ((v >> bit) & 1) << (3 * bit + axis);
            }
        }
        k
    }

    #[test]
    fn key_interleaves_the_bits() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1000 {
            let mut q = [0; 3];
            for v in &mut q {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *v = state & 0x1f_ffff;
            }
            assert_eq!(morton_key(q), naive_key(q), "{q:?}");
        }
        assert_eq!(morton_key([0x1f_ffff; 3]), (1 << 63) - 1);
    }

    fn sphere(p: &mut Particles, x: [f64; 3]) {
        p.push(
            Shape::Sphere(SphereShape { radius: 0.5 }),
            Vector3::from(x),
            Vector3::new(x[0], 0.0, 0.0),
            Vector3::zeros(),
            1.0,
            Vector3::repeat(0.1),
            Dofs::FREE,
            0,
        );
    }

    #[test]
    fn runs_are_sorted_apart_and_ids_follow() {
        let mut p = Particles::default();
        // Run 0..3, a fixed particle at 3, run 4..6.
        for x in [
            [3.0, 0.0, 0.0],
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [9.0, 9.0, 9.0],
        ] {
            sphere(&mut p, x);
        }
        for x in [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]] {
            sphere(&mut p, x);
        }
        let runs = free_runs(p.len(), |i| i != 3);
        assert_eq!(runs, vec![0..3, 4..6]);
        let mut order = ParticleOrder::default();
        let old_to_new = order.reorder(&mut p, &runs, 1.0, 7).expect("moved");
        // Keys: (3,0,0) -> 0b001001 = 9, (0,0,0) -> 0, (1,1,0) -> 3.
        assert_eq!(old_to_new, vec![2, 0, 1, 3, 5, 4]);
        assert_eq!(order.ids(), &[1, 2, 0, 3, 5, 4]);
        assert_eq!(p.pos[0], Vector3::zeros());
        assert_eq!(p.vel[2].x, 3.0);
        for id in 0..6 {
            assert_eq!(order.id(order.index(id)), id);
        }
        assert_eq!(order.last, Some(7));
        // Sorted storage stays as it is; the ids are kept.
        assert_eq!(order.reorder(&mut p, &runs, 1.0, 9), None);
        assert_eq!(order.ids(), &[1, 2, 0, 3, 5, 4]);
        assert!(order.due(1009, 1000) && !order.due(1008, 1000) && !order.due(5000, 0));
    }

    #[test]
    fn ids_must_be_a_permutation() {
        assert!(ParticleOrder::from_ids(vec![1, 0, 2], 3, 3, None).is_some());
        assert!(ParticleOrder::from_ids(vec![1, 1, 2], 3, 3, None).is_none());
        assert!(ParticleOrder::from_ids(vec![0, 3, 1], 3, 3, None).is_none());
        assert!(ParticleOrder::from_ids(vec![0, 1], 3, 3, None).is_none());
        // Ids of removed particles are gaps, never given twice.
        assert!(ParticleOrder::from_ids(vec![0, 3, 1], 3, 4, None).is_some());
        assert!(ParticleOrder::from_ids(vec![0, 3, 1], 3, 3, None).is_none());
        assert!(ParticleOrder::from_ids(Vec::new(), 3, 4, None).is_none());
        assert_eq!(
            ParticleOrder::from_ids(Vec::new(), 3, 3, Some(4)).map(|o| o.id(2)),
            Some(2)
        );
    }

    #[test]
    fn appended_particles_take_new_ids_and_removed_ids_are_never_given_again() {
        let mut o = ParticleOrder::default();
        o.append(3, 2);
        assert_eq!((o.issued(5), o.id(4)), (5, 4), "scene order: id = index");
        // Remove the particles at 1 and 3; keep 4, 0, 2 in that order.
        o.remove(5, &[4, 0, 2]);
        assert_eq!(o.ids(), &[4, 0, 2]);
        assert_eq!(o.issued(3), 5);
        assert_eq!(o.by_id(3), vec![(0, 1), (2, 2), (4, 0)]);
        o.append(3, 1);
        assert_eq!((o.id(3), o.index(5), o.issued(4)), (5, 3, 5 + 1));
        let again = ParticleOrder::from_ids(o.ids().to_vec(), 4, 6, None).unwrap();
        assert_eq!(again.by_id(4), o.by_id(4));
    }
}
