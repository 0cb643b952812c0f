//! Laws written once over lanes ([`LaneLaw`]), which the SDK runs four contacts at a time.
//!
//! A law written per contact ([`Law::law`]) is called once per contact with a `LawInput`
//! record built for it. A [`LaneLaw`] writes its step once, generic over a
//! [`Lane`] type: the SDK calls it with [`F64x4`] for four contacts of a batch at a time,
//! straight from the batch's columns, in a loop compiled for AVX2 and AVX-512 as well as
//! the baseline and chosen at run time; and the law's own [`Law::law`] calls it with `f64`
//! through [`one_lane`], so that there is one implementation and the two agree bitwise.
//!
//! Export such a law under `lane_laws:` in [`export_plugin!`](crate::export_plugin). The
//! law's constants are computed per contact by [`Law::constants`], as for any law.
//! [`Law::stable_step`] is not called for a law exported this way: a law that limits the
//! time step is exported per contact.

use super::{Law, Slots};
use crate::batch::{LawOutColumns, StateColumns, FLAG_LAST, FLAG_NEW};
use crate::lane::{F64x4, Lane, M64x4};
use crate::law::{LawInput, LawOutput};
use crate::law_view::LawView;
use crate::math::Vec3;
use std::cell::Cell;

/// What a law written over lanes reads of a lane of contacts (the fields of
/// [`crate::L6Geom`] that laws use, in the local frame, and the contacts' flags).
#[derive(Clone, Copy, Debug)]
pub struct LaneInput<V: Lane> {
    /// Relative displacement, m (`u[0]` is the normal gap, negative in overlap).
    pub u: [V; 3],
    /// Rate of `u` at t - dt/2, m/s.
    pub u_dot: [V; 3],
    /// Relative rotation, rad (`phi[0]` is twist).
    pub phi: [V; 3],
    /// Rate of `phi` at t - dt/2, rad/s.
    pub phi_dot: [V; 3],
    /// Branch lengths of body 1 and body 2, m (`f64::INFINITY` for a wall).
    pub lens: [V; 2],
    /// Contact area, m^2.
    pub area: V,
    /// Normal relative velocity at onset, m/s.
    pub onset_normal_velocity: V,
    /// Time step, s.
    pub dt: f64,
    /// Contacts created this step.
    pub new: V::Mask,
    /// Contacts on their last call (see [`crate::FLAG_LAST`]).
    pub last: V::Mask,
}

/// What a law written over lanes returns for a lane of contacts (see
/// [`crate::LawOutput`] for the meaning and units of each field).
#[derive(Clone, Copy, Debug)]
pub struct LaneOutput<V> {
    /// Force on body 2, local frame, N.
    pub force: [V; 3],
    /// Torque on body 2 besides the moment of `force`, local frame, N m.
    pub torque: [V; 3],
    /// Elastic energy stored now, J.
    pub elastic: V,
    /// Friction dissipation of this step, J.
    pub friction: V,
    /// Viscous dissipation of this step, J.
    pub damping: V,
}

/// A law whose step is written once over lanes (see the module docs).
pub trait LaneLaw: Law {
    /// Force, torque and energy of a lane of contacts in one step, with their constants
    /// `c` (`Constants::LEN` values, in declaration order: read them with the `slots!`
    /// struct's `from_slots`) and their `STATE_LEN` state slots, which it updates. It must
    /// not depend on which lane a contact is in.
    ///
    /// Mark the implementation `#[inline(always)]`, as the SDK's parts are: the SDK's loop
    /// is compiled once per CPU level (AVX2, AVX-512 and the baseline), and a step the
    /// compiler leaves out of line is compiled for the baseline only, which costs the
    /// vector width and a call per lane of contacts.
    fn law_lanes<V: Lane>(&self, input: &LaneInput<V>, c: &[V], state: &mut [V]) -> LaneOutput<V>;
}

/// Most slots (constants and state) a law may have to run four contacts at a time; a law
/// with more runs per contact.
pub(crate) const MAX_SLOTS: usize = 64;

/// [`Law::law`] of a [`LaneLaw`]: its lane step for one contact.
pub fn one_lane<L: LaneLaw>(
    law: &L,
    input: &LawInput,
    c: &L::Constants,
    state: &mut [f64],
) -> LawOutput {
    let mut consts = [0.0; MAX_SLOTS];
    let consts = &mut consts[..L::Constants::LEN];
    c.store(consts);
    let g = &input.geom;
    let v = |x: Vec3| [x.x, x.y, x.z];
    let lanes = LaneInput {
        u: v(g.u),
        u_dot: v(g.u_dot),
        phi: v(g.phi),
        phi_dot: v(g.phi_dot),
        lens: g.lens,
        area: g.area,
        onset_normal_velocity: input.onset.normal_velocity,
        dt: input.dt,
        new: input.is_new != 0,
        last: input.is_last != 0,
    };
    let o = law.law_lanes(&lanes, consts, state);
    LawOutput {
        force: Vec3::new(o.force[0], o.force[1], o.force[2]),
        torque: Vec3::new(o.torque[0], o.torque[1], o.torque[2]),
        elastic: o.elastic,
        friction: o.friction,
        damping: o.damping,
    }
}

/// Runs `law` on every contact of a checked batch, four at a time; `current` is set to
/// the first contact of the lane being computed (for a panic's message). The constants of
/// new contacts must be in their slots already.
pub(crate) fn run_lanes<L: LaneLaw>(
    law: &L,
    view: &LawView<'_>,
    state: &mut StateColumns<'_>,
    out: &mut LawOutColumns<'_>,
    current: &Cell<usize>,
) {
    lanes_of(law, view, state, out, current);
}

#[multiversion::multiversion(targets("x86_64+avx2+fma", "x86_64+avx512f+avx512vl+avx2+fma"))]
fn lanes_of<L: LaneLaw>(
    law: &L,
    view: &LawView<'_>,
    state: &mut StateColumns<'_>,
    out: &mut LawOutColumns<'_>,
    current: &Cell<usize>,
) {
    let len = view.len();
    let k = L::Constants::LEN;
    let n = k + L::STATE_LEN;
    let mut slots = [F64x4::default(); MAX_SLOTS];
    let mut first = 0;
    while first < len {
        current.set(first);
        // A short last lane repeats its last contact: the same values, written twice.
        let at: [usize; 4] = std::array::from_fn(|j| (first + j).min(len - 1));
        // Four whole contacts (all lanes but the last) are read as vectors.
        let whole = first + 4 <= len;
        let col = |c: &[f64]| {
            if whole {
                F64x4::load(c, first)
            } else {
                F64x4::from_fn(|j| c[at[j]])
            }
        };
        let col3 = |c: &[&[f64]; 3]| [col(c[0]), col(c[1]), col(c[2])];
        let flag = |f: u8| M64x4::from_fn(|j| view.flags[at[j]] & f != 0);
        let input = LaneInput {
            u: col3(&view.u),
            u_dot: col3(&view.u_dot),
            phi: col3(&view.phi),
            phi_dot: col3(&view.phi_dot),
            lens: [col(view.lens[0]), col(view.lens[1])],
            area: col(view.area),
            onset_normal_velocity: col(view.onset_normal_velocity),
            dt: view.dt,
            new: flag(FLAG_NEW),
            last: flag(FLAG_LAST),
        };
        // Columns (how the solver stores state): a slot of four whole contacts is one
        // vector.
        let columns = whole && state.item_stride == 1;
        if columns {
            for (j, s) in slots[..n].iter_mut().enumerate() {
                let x = state.index(first, j);
                *s = F64x4::load(&state.values, x);
            }
        } else if state.slot_stride == 1 {
            // Rows: each contact's slots are one slice.
            let rows: [&[f64]; 4] = at.map(|i| {
                let start = state.index(i, 0);
                &state.values[start..start + n]
            });
            for (j, s) in slots[..n].iter_mut().enumerate() {
                *s = F64x4([rows[0][j], rows[1][j], rows[2][j], rows[3][j]]);
            }
        } else {
            for (j, s) in slots[..n].iter_mut().enumerate() {
                *s = F64x4::from_fn(|l| state.values[state.index(at[l], j)]);
            }
        }
        let (consts, own) = slots[..n].split_at_mut(k);
        let o = law.law_lanes(&input, consts, own);
        if columns {
            for (j, s) in slots[..n].iter().enumerate().skip(k) {
                let x = state.index(first, j);
                s.store(&mut state.values, x);
            }
        } else {
            for (l, &i) in at.iter().enumerate() {
                if state.slot_stride == 1 {
                    let start = state.index(i, k);
                    let row = &mut state.values[start..start + (n - k)];
                    for (x, s) in row.iter_mut().zip(&slots[k..n]) {
                        *x = s.lane(l);
                    }
                } else {
                    for (j, s) in slots[..n].iter().enumerate().skip(k) {
                        let x = state.index(i, j);
                        state.values[x] = s.lane(l);
                    }
                }
            }
        }
        if whole {
            let r = first..first + 4;
            let put = |c: &mut [f64], v: F64x4| c[r.clone()].copy_from_slice(&v.0);
            for (k, v) in o.force.into_iter().enumerate() {
                put([&mut out.force.x, &mut out.force.y, &mut out.force.z][k], v);
            }
            for (k, v) in o.torque.into_iter().enumerate() {
                put(
                    [&mut out.torque.x, &mut out.torque.y, &mut out.torque.z][k],
                    v,
                );
            }
            put(&mut out.elastic, o.elastic);
            put(&mut out.friction, o.friction);
            put(&mut out.damping, o.damping);
        } else {
            for (l, &i) in at.iter().enumerate() {
                let v = |x: [F64x4; 3]| Vec3::new(x[0].lane(l), x[1].lane(l), x[2].lane(l));
                out.set(
                    i,
                    &LawOutput {
                        force: v(o.force),
                        torque: v(o.torque),
                        elastic: o.elastic.lane(l),
                        friction: o.friction.lane(l),
                        damping: o.damping.lane(l),
                    },
                );
            }
        }
        first += 4;
    }
}

/// For a law's tests: runs four contacts through `steps` (one `LawInput` per contact and
/// step; constants from the first) both ways, one contact at a time through [`Law::law`]
/// and four at a time through [`LaneLaw::law_lanes`] with [`F64x4`], and fails unless the
/// outputs and the state are bitwise the same at every step.
pub fn lanes_agree<L: LaneLaw>(law: &L, steps: &[[LawInput; 4]]) -> Result<(), String> {
    let (k, n) = (L::Constants::LEN, L::STATE_LEN);
    let Some(first) = steps.first() else {
        return Ok(());
    };
    let consts: [L::Constants; 4] = std::array::from_fn(|j| law.constants(&first[j]));
    let mut alone = vec![vec![0.0; n]; 4];
    let mut together = vec![F64x4::default(); n];
    let mut c = vec![[0.0; 4]; k];
    for (j, cj) in consts.iter().enumerate() {
        let mut slots = vec![0.0; k];
        cj.store(&mut slots);
        for (i, v) in slots.into_iter().enumerate() {
            c[i][j] = v;
        }
    }
    let c: Vec<F64x4> = c.into_iter().map(F64x4).collect();
    for (s, inputs) in steps.iter().enumerate() {
        let outs: Vec<LawOutput> = (0..4)
            .map(|j| law.law(&inputs[j], &consts[j], &mut alone[j]))
            .collect();
        let x = |f: &dyn Fn(&LawInput) -> f64| F64x4::from_fn(|j| f(&inputs[j]));
        let v = |f: &dyn Fn(&LawInput) -> Vec3| [x(&|i| f(i).x), x(&|i| f(i).y), x(&|i| f(i).z)];
        let g = LaneInput {
            u: v(&|i| i.geom.u),
            u_dot: v(&|i| i.geom.u_dot),
            phi: v(&|i| i.geom.phi),
            phi_dot: v(&|i| i.geom.phi_dot),
            lens: [x(&|i| i.geom.lens[0]), x(&|i| i.geom.lens[1])],
            area: x(&|i| i.geom.area),
            onset_normal_velocity: x(&|i| i.onset.normal_velocity),
            dt: inputs[0].dt,
            new: M64x4::from_fn(|j| inputs[j].is_new != 0),
            last: M64x4::from_fn(|j| inputs[j].is_last != 0),
        };
        let o = law.law_lanes(&g, &c, &mut together);
        for (j, a) in outs.iter().enumerate() {
            let lanes = [
                o.force[0],
                o.force[1],
                o.force[2],
                o.torque[0],
                o.torque[1],
                o.torque[2],
                o.elastic,
                o.friction,
                o.damping,
            ]
            .map(|x| x.lane(j).to_bits());
            let one = [
                a.force.x, a.force.y, a.force.z, a.torque.x, a.torque.y, a.torque.z, a.elastic,
                a.friction, a.damping,
            ]
            .map(f64::to_bits);
            if lanes != one {
                return Err(format!("step {s}, contact {j}: {o:?} against {a:?}"));
            }
            for (i, t) in together.iter().enumerate() {
                if t.lane(j).to_bits() != alone[j][i].to_bits() {
                    return Err(format!("step {s}, contact {j}: state slot {i} differs"));
                }
            }
        }
    }
    Ok(())
}
