//! What each contact pushed onto its bodies in the last step: the law's output and the
//! global force and torques made of it, [`FORCES`] values per contact, stored beside the
//! contact list in groups of four contacts, field by field (`[f64; 4]` per field): the law
//! pass writes a group with one vector store per field (see [`super::global`]), and the
//! gather, which reads the contacts one by one in slot order, finds all of a contact's
//! values in one short stretch of memory (one bounds test). The outputs between steps
//! read them too.

use crate::model::blocks::CHUNK;
use dem_api::{LawOutput, Vec3};
use nalgebra::Vector3;

// Fields 0 to 5: the law's force on body 2 and its extra torque (local frame, unweighted).

/// Field: elastic energy, friction and damping of the step, times the term's weight (J).
pub(crate) const ENERGY: usize = 6;
/// Field: force on body 2 (global, weighted), N, 3 fields.
pub(crate) const FORCE: usize = 9;
/// Field: torque on body 1 (global), N m, 3 fields; the torque on body 2 follows.
pub(crate) const TORQUE: usize = 12;
/// Fields per contact.
pub(crate) const FORCES: usize = 18;

/// What a contact pushed onto its bodies in the last step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Forces {
    /// The law's last output (local frame; energies times the term's weight). For a
    /// contact that ended in the step, only its friction and damping.
    pub out: LawOutput,
    /// Force on body 2 (global), N; on body 1 its opposite.
    pub force: Vector3<f64>,
    /// Torques on body 1 and body 2 (global), N m.
    pub torque: [Vector3<f64>; 2],
}

impl Forces {
    /// The [`FORCES`] values in field order.
    pub fn values(&self) -> [f64; FORCES] {
        let (o, f, t) = (&self.out, &self.force, &self.torque);
        [
            o.force.x, o.force.y, o.force.z, o.torque.x, o.torque.y, o.torque.z, o.elastic,
            o.friction, o.damping, f.x, f.y, f.z, t[0].x, t[0].y, t[0].z, t[1].x, t[1].y, t[1].z,
        ]
    }

    /// The forces of [`Forces::values`].
    pub fn from_values(v: &[f64; FORCES]) -> Forces {
        Forces {
            out: LawOutput {
                force: Vec3::new(v[0], v[1], v[2]),
                torque: Vec3::new(v[3], v[4], v[5]),
                elastic: v[6],
                friction: v[7],
                damping: v[8],
            },
            force: Vector3::new(v[9], v[10], v[11]),
            torque: [
                Vector3::new(v[12], v[13], v[14]),
                Vector3::new(v[15], v[16], v[17]),
            ],
        }
    }
}

/// Values per group of four contacts.
pub(crate) const GROUP: usize = 4 * FORCES;

/// Values per chunk of [`CHUNK`] contacts (the law pass's unit).
const PER_CHUNK: usize = CHUNK / 4 * GROUP;

/// Where field `f` of contact `k` is, counted from the start of its group's chunk (or of
/// the store).
#[inline(always)]
pub(crate) fn index(k: usize, f: usize) -> usize {
    (k / 4) * GROUP + f * 4 + k % 4
}

/// The values of every contact, in groups of four (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct ForceStore {
    values: Vec<f64>,
    /// Contacts stored.
    len: usize,
}

impl ForceStore {
    /// The group of contact `k` and its lane in it.
    #[inline(always)]
    pub(crate) fn group(&self, k: usize) -> (&[f64; GROUP], usize) {
        let at = (k / 4) * GROUP;
        let g = self.values[at..at + GROUP].try_into().expect("a group");
        (g, k % 4)
    }

    /// Field `f` of contact `k`.
    pub(crate) fn get(&self, k: usize, f: usize) -> f64 {
        self.values[index(k, f)]
    }

    /// The forces of contact `k`.
    pub(crate) fn load(&self, k: usize) -> Forces {
        Forces::from_values(&std::array::from_fn(|f| self.get(k, f)))
    }

    /// Sets the forces of contact `k`.
    pub(crate) fn store(&mut self, k: usize, forces: &Forces) {
        store(&mut self.values, k, forces);
    }

    /// Room for `more` contacts beyond the stored ones.
    pub(crate) fn reserve(&mut self, more: usize) {
        let need = (self.len + more).div_ceil(4) * GROUP;
        self.values.reserve(need.saturating_sub(self.values.len()));
    }

    /// Appends a contact whose values are all zero.
    pub(crate) fn push_zero(&mut self) {
        if self.len.is_multiple_of(4) {
            self.values.resize(self.values.len() + GROUP, 0.0);
        } else {
            self.store(self.len, &Forces::default());
        }
        self.len += 1;
    }

    /// Copies the values of contact `from` to contact `to`.
    pub(crate) fn copy(&mut self, from: usize, to: usize) {
        for f in 0..FORCES {
            self.values[index(to, f)] = self.values[index(from, f)];
        }
    }

    /// Keeps the first `len` contacts.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
        self.values.truncate(self.len.div_ceil(4) * GROUP);
    }

    /// Sets every contact's values to zero (as pushed by a contact that pushed nothing).
    pub(crate) fn zero(&mut self) {
        self.values.fill(0.0);
    }

    /// Puts the contacts in a new order, given as runs (as
    /// [`crate::model::blocks::Fields::permute`]), one field at a time through `column`.
    pub(crate) fn permute(&mut self, runs: &[(u32, u32, u32)], column: &mut Vec<f64>) {
        // Not cleared: the runs write every place of the column.
        column.resize(self.len, 0.0);
        for f in 0..FORCES {
            for &(from, to, len) in runs {
                for j in 0..len as usize {
                    column[to as usize + j] = self.values[index(from as usize + j, f)];
                }
            }
            for (k, &v) in column.iter().enumerate() {
                self.values[index(k, f)] = v;
            }
        }
    }

    /// The values of each chunk of [`CHUNK`] contacts, to be split among workers.
    pub(crate) fn chunks_mut(&mut self) -> std::slice::ChunksMut<'_, f64> {
        self.values.chunks_mut(PER_CHUNK)
    }

    /// Bytes stored per contact.
    pub(crate) fn bytes_per_contact(&self) -> usize {
        FORCES * std::mem::size_of::<f64>()
    }
}

/// Sets the forces of contact `k` of a store's values, or of the values of its chunk
/// (then `k` counted in the chunk).
#[inline(always)]
pub(crate) fn store(values: &mut [f64], k: usize, forces: &Forces) {
    let at = (k / 4) * GROUP;
    let g = &mut values[at..at + GROUP];
    for (f, v) in forces.values().into_iter().enumerate() {
        g[f * 4 + k % 4] = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forces_survive_the_list_operations_across_groups() {
        let v = |i: usize| -> [f64; FORCES] { std::array::from_fn(|f| (100 * i + f) as f64) };
        let mut s = ForceStore::default();
        for i in 0..11 {
            s.push_zero();
            s.store(i, &Forces::from_values(&v(i)));
        }
        assert_eq!(s.load(6).values(), v(6));
        assert_eq!(s.get(9, FORCE + 1), v(9)[FORCE + 1]);
        s.copy(10, 2);
        assert_eq!(s.load(2).values(), v(10));
        s.truncate(8);
        s.push_zero();
        assert_eq!(s.load(8), Forces::default());
        assert_eq!(s.load(7).values(), v(7));
        let (g, lane) = s.group(5);
        assert_eq!((g[ENERGY * 4 + lane], lane), (v(5)[ENERGY], 1));
        // Contacts 0-1 and 2-8 traded places (two runs).
        s.permute(&[(2, 0, 7), (0, 7, 2)], &mut Vec::new());
        assert_eq!(s.load(0).values(), v(10));
        assert_eq!(s.load(1).values(), v(3));
        assert_eq!(s.load(6), Forces::default());
        assert_eq!(s.load(7).values(), v(0));
        assert_eq!(s.load(8).values(), v(1));
        s.zero();
        assert!((0..9).all(|i| s.load(i) == Forces::default()));
    }

    #[test]
    fn a_group_holds_a_field_of_four_contacts_side_by_side() {
        assert_eq!(index(5, 0), GROUP + 1);
        assert_eq!(index(5, TORQUE), GROUP + 4 * TORQUE + 1);
        assert_eq!(index(CHUNK, 0), PER_CHUNK);
    }
}
