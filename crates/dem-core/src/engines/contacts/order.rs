//! The contact list kept in slot order, that is in the order of the contacts' particles.
//!
//! The law pass walks the list and reads each contact's particles; the gather walks the
//! slots and reads each contact's forces. In slot order both read memory nearly as it is
//! stored. Between two rebuilds of the broad phase the order decays: an ended contact's
//! place is taken by the last one, and new contacts are appended. On the dense bed at
//! N = 10,000 (`dem bench --sections dense`) half the list was out of order a few hundred
//! steps after a rebuild, and the gather took 1.6 times as long as in order. So the list
//! is put back in order whenever more than 1 / [`DISORDER`] of it is out of order (looked
//! at every [`EVERY`] steps), not only at rebuilds.
//!
//! The order of the list changes no result: forces and energies are summed in slot order
//! (see `Contacts::gather`). Whether the list is sorted is decided from the list and
//! the step number alone, so a run resumed from a checkpoint sorts at the same steps as
//! the run that wrote it.

use super::contact::{Contact, NONE};
use super::forces::ForceStore;
use super::held::Held;
use crate::model::blocks::{self, Blocks};
use crate::support::team::Team;
use crate::support::workers::PerWorker;

/// The list is sorted when more than one contact in `DISORDER` follows a contact of a
/// later slot.
const DISORDER: usize = 64;

/// Steps between two looks at the order. On the dense bed a sort costs about half a
/// step (it moves every contact's hot and state values, 52 there, twice) and the list
/// drifts by about 1.5 % of its contacts a step: there, looking every 8 steps made the run
/// 10 % faster (median of 8 side-by-side pairs); looking every step sorted about every
/// fourth step and saved little more than it cost.
const EVERY: u64 = 8;

/// The contacts and what is stored beside them, in the list's order: what a sort moves.
pub(super) struct Stores<'a> {
    pub list: &'a mut Vec<Contact>,
    /// The contact of each slot.
    pub held: &'a mut Held,
    /// L6Geom and onset data.
    pub hot: &'a mut Blocks,
    /// Law and functor state.
    pub state: &'a mut Blocks,
    /// What each contact pushed in the last step.
    pub forces: &'a mut ForceStore,
}

/// The sort of the list into slot order, with its buffers kept from sort to sort: new
/// memory the size of the list costs a page fault per 4 kB, which took longer than the
/// sort itself (4 µs a page in this machine's sandbox).
#[derive(Clone, Default)]
pub(super) struct Reorder {
    /// The list's contacts in slot order.
    order: Vec<u32>,
    /// The runs of `order` (see [`blocks::runs`]).
    runs: Vec<(u32, u32, u32)>,
    /// One field of every contact in the new order.
    column: Vec<f64>,
    /// The same, one per member of the step's team.
    columns: PerWorker<Vec<f64>>,
    /// The new list.
    list: Vec<Contact>,
}

impl Reorder {
    /// Is the sort due at the start of step `step`'s contact pass (after the ended
    /// contacts are removed)? On every [`EVERY`]-th step, if more than 1 / [`DISORDER`]
    /// of `list` is out of slot order.
    pub(super) fn due(step: u64, list: &[Contact]) -> bool {
        if !step.is_multiple_of(EVERY) {
            return false;
        }
        let descents = list.windows(2).filter(|w| w[1].slot < w[0].slot).count();
        descents * DISORDER > list.len()
    }

    /// Puts the contacts (their L6Geom and state with them) in the order of their slots;
    /// contacts without a slot (dropped at a rebuild) go last, in list order. What they
    /// pushed in the last step goes along with `forces`, else it is set to zero (for a
    /// caller about to compute it anew for every contact: 18 values a contact less to
    /// move). The members of `team` share the fields of the L6Geom and state.
    pub(super) fn sort(&mut self, s: Stores<'_>, forces: bool, team: Option<&Team>) {
        let n = s.list.len();
        let Reorder {
            order,
            runs,
            column,
            columns,
            list,
        } = self;
        order.clear();
        s.held.each(|k| order.push(k));
        if order.len() < n {
            let mut placed = vec![false; n];
            for &k in order.iter() {
                placed[k as usize] = true;
            }
            order.extend((0..n as u32).filter(|&k| !placed[k as usize]));
        }
        list.clear();
        list.extend(order.iter().map(|&k| s.list[k as usize].clone()));
        std::mem::swap(list, s.list);
        blocks::runs(order, runs);
        let runs = &runs[..];
        let (hot, state) = (s.hot.fields_mut(), s.state.fields_mut());
        let (h, jobs) = (hot.count(), hot.count() + state.count());
        let field = |j: usize, column: &mut Vec<f64>| {
            // SAFETY: each field is permuted by one call (one member) only.
            unsafe {
                if j < h {
                    hot.permute(j, runs, column)
                } else {
                    state.permute(j - h, runs, column)
                }
            }
        };
        match team {
            Some(team) if team.active() > 1 => {
                columns.prepare();
                team.run(|t| {
                    columns.with(|column| team.range(jobs, t).for_each(|j| field(j, column)))
                });
            }
            _ => (0..jobs).for_each(|j| field(j, column)),
        }
        if forces {
            s.forces.permute(runs, column);
        } else {
            s.forces.zero();
        }
        for (k, c) in s.list.iter().enumerate() {
            if c.slot != NONE {
                s.held.set(c.slot as usize, k as u32);
            }
        }
    }
}
