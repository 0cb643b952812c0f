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

impl<V: Copy> LaneOutput<V> {
    /// The nine outputs in the order of [`crate::LawOutColumns`]: force, torque, elastic
    /// energy, friction, damping.
    #[inline(always)]
    fn values(&self) -> [V; 9] {
        let (f, t) = (self.force, self.torque);
        [
            f[0],
            f[1],
            f[2],
            t[0],
            t[1],
            t[2],
            self.elastic,
            self.friction,
            self.damping,
        ]
    }
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

    /// The state slots [`LaneLaw::law_lanes`] reads or writes with this law's parameters:
    /// bit `j` for slot `j` of `state` (after the constants). The SDK's loop over columns
    /// loads and stores only these: a slot outside the mask keeps its value, and
    /// `law_lanes` must neither read nor change it ([`lanes_agree`] checks both). Slots
    /// beyond the first 64 are always in use.
    ///
    /// The default, every slot, is always right. A law whose options switch parts off
    /// (rolling resistance, a tangential dashpot) saves their memory traffic by leaving
    /// their slots out: on a bed of a hundred thousand contacts that traffic is what the
    /// step waits on.
    fn state_in_use(&self) -> u64 {
        u64::MAX
    }
}

/// Is state slot `j` (after the constants) in the mask of [`LaneLaw::state_in_use`]?
#[inline(always)]
fn in_use(mask: u64, j: usize) -> bool {
    j >= 64 || mask >> j & 1 == 1
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

// AVX-512 first: `multiversion` runs the first target the CPU has.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
fn lanes_of<L: LaneLaw>(
    law: &L,
    view: &LawView<'_>,
    state: &mut StateColumns<'_>,
    out: &mut LawOutColumns<'_>,
    current: &Cell<usize>,
) {
    let len = view.len();
    // Every column cut to `len` here, so that one test of an index covers them all.
    let view = &view.recut();
    let (f, t) = (&mut out.force, &mut out.torque);
    let (fx, fy, fz) = (&mut f.x[..len], &mut f.y[..len], &mut f.z[..len]);
    let (tx, ty, tz) = (&mut t.x[..len], &mut t.y[..len], &mut t.z[..len]);
    let mut out: Outs<'_> = [
        fx,
        fy,
        fz,
        tx,
        ty,
        tz,
        &mut out.elastic[..len],
        &mut out.friction[..len],
        &mut out.damping[..len],
    ];
    let mut first = 0;
    // Columns (how the solver stores state): all lanes but the last read and write every
    // column with vector loads and stores, each slot's column cut once to the batch (the
    // view checked that the layout fits: `StateColumns::fits`).
    if state.item_stride == 1 && len >= 4 {
        let n = L::Constants::LEN + L::STATE_LEN;
        let stride = state.slot_stride as usize;
        // One test for every slot of every contact of the batch (the view checked the
        // layout, `StateColumns::fits`): a test per column and lane cost 20 of the loop's
        // 110 instructions per contact.
        assert!(n == 0 || (n - 1) * stride + len <= state.values.len());
        let slots = SlotColumns {
            base: state.values.as_mut_ptr(),
            stride,
            used: law.state_in_use(),
        };
        while first + 4 <= len {
            current.set(first);
            lane_of_columns(law, view, &slots, &mut out, first);
            first += 4;
        }
    }
    while first < len {
        current.set(first);
        // A short last lane repeats its last contact: the same values, written twice.
        let at = [
            first,
            (first + 1).min(len - 1),
            (first + 2).min(len - 1),
            (first + 3).min(len - 1),
        ];
        lane_of(law, view, state, &mut out, &at);
        first += 4;
    }
}

/// The output columns of [`lanes_of`], cut to the batch's length: force (3), torque (3),
/// elastic energy, friction and damping.
type Outs<'a> = [&'a mut [f64]; 9];

/// Column `c` of the contacts `at`: one vector load when `WHOLE` (four consecutive
/// contacts). A function, not a closure, so that it is inlined into each CPU level's copy
/// of the loop.
#[inline(always)]
fn col<const WHOLE: bool>(c: &[f64], at: &[usize; 4]) -> F64x4 {
    if WHOLE {
        F64x4::load(c, at[0])
    } else {
        F64x4([c[at[0]], c[at[1]], c[at[2]], c[at[3]]])
    }
}

/// Three columns (see [`col`]).
#[inline(always)]
fn col3<const WHOLE: bool>(c: &[&[f64]; 3], at: &[usize; 4]) -> [F64x4; 3] {
    [
        col::<WHOLE>(c[0], at),
        col::<WHOLE>(c[1], at),
        col::<WHOLE>(c[2], at),
    ]
}

/// A flag of the contacts `at` as a mask.
#[inline(always)]
fn flag(flags: &[u8], at: &[usize; 4], f: u8) -> M64x4 {
    let m = |i: usize| 0u64.wrapping_sub(u64::from(flags[i] & f != 0));
    M64x4([m(at[0]), m(at[1]), m(at[2]), m(at[3])])
}

/// Stores `v` into column `c` for the contacts `at` (see [`col`]).
#[inline(always)]
fn put<const WHOLE: bool>(c: &mut [f64], at: &[usize; 4], v: F64x4) {
    if WHOLE {
        v.store(c, at[0]);
    } else {
        for (l, &i) in at.iter().enumerate() {
            c[i] = v.0[l];
        }
    }
}

/// What a lane of contacts reads of the batch's columns (`WHOLE`: the four from `at[0]`).
#[inline(always)]
fn lane_input<const WHOLE: bool>(view: &LawView<'_>, at: &[usize; 4]) -> LaneInput<F64x4> {
    LaneInput {
        u: col3::<WHOLE>(&view.u, at),
        u_dot: col3::<WHOLE>(&view.u_dot, at),
        phi: col3::<WHOLE>(&view.phi, at),
        phi_dot: col3::<WHOLE>(&view.phi_dot, at),
        lens: [
            col::<WHOLE>(view.lens[0], at),
            col::<WHOLE>(view.lens[1], at),
        ],
        area: col::<WHOLE>(view.area, at),
        onset_normal_velocity: col::<WHOLE>(view.onset_normal_velocity, at),
        dt: view.dt,
        new: flag(view.flags, at, FLAG_NEW),
        last: flag(view.flags, at, FLAG_LAST),
    }
}

/// The slots of a batch in columns, as [`lanes_of`] reads them: slot `j` of contact `i`
/// at `base + j stride + i`, every one of the batch inside the slice `base` points into
/// (tested once, in [`lanes_of`]).
struct SlotColumns {
    base: *mut f64,
    stride: usize,
    /// [`LaneLaw::state_in_use`].
    used: u64,
}

impl SlotColumns {
    /// Slot `j` of the four contacts from `first`.
    #[inline(always)]
    fn load(&self, j: usize, first: usize) -> F64x4 {
        // SAFETY: a slot of a contact of the batch (the caller's `first + 4 <= len`), inside
        // the values (tested in `lanes_of`), read while no reference to them is held.
        F64x4(unsafe { std::ptr::read_unaligned(self.base.add(j * self.stride + first).cast()) })
    }

    /// Writes slot `j` of the four contacts from `first`.
    #[inline(always)]
    fn store(&self, j: usize, first: usize, v: F64x4) {
        // SAFETY: as in `load`.
        unsafe { std::ptr::write_unaligned(self.base.add(j * self.stride + first).cast(), v.0) }
    }
}

/// One lane of [`lanes_of`] of four consecutive contacts from `first`, their slots in
/// `columns`: the constants and the state slots in use.
#[inline(always)]
fn lane_of_columns<L: LaneLaw>(
    law: &L,
    view: &LawView<'_>,
    columns: &SlotColumns,
    out: &mut Outs<'_>,
    first: usize,
) {
    let k = L::Constants::LEN;
    let n = k + L::STATE_LEN;
    let at = [first, first + 1, first + 2, first + 3];
    let input = lane_input::<true>(view, &at);
    let mut slots = [F64x4::default(); MAX_SLOTS];
    for (j, s) in slots[..n].iter_mut().enumerate() {
        if j < k || in_use(columns.used, j - k) {
            *s = columns.load(j, first);
        }
    }
    let (consts, own) = slots[..n].split_at_mut(k);
    let o = law.law_lanes(&input, consts, own);
    for (j, s) in own.iter().enumerate() {
        if in_use(columns.used, j) {
            columns.store(k + j, first, *s);
        }
    }
    for (c, v) in out.iter_mut().zip(o.values()) {
        put::<true>(c, &at, v);
    }
}

/// One lane of [`lanes_of`] anywhere else: the contacts `at` (a short last lane, or the
/// row layout), their slots read and written one by one.
#[inline(always)]
fn lane_of<L: LaneLaw>(
    law: &L,
    view: &LawView<'_>,
    state: &mut StateColumns<'_>,
    out: &mut Outs<'_>,
    at: &[usize; 4],
) {
    let k = L::Constants::LEN;
    let n = k + L::STATE_LEN;
    let input = lane_input::<false>(view, at);
    let mut slots = [F64x4::default(); MAX_SLOTS];
    for (j, s) in slots[..n].iter_mut().enumerate() {
        *s = F64x4(at.map(|i| state.values[state.index(i, j)]));
    }
    let (consts, own) = slots[..n].split_at_mut(k);
    let o = law.law_lanes(&input, consts, own);
    for (j, s) in slots[..n].iter().enumerate().skip(k) {
        for (l, &i) in at.iter().enumerate() {
            let x = state.index(i, j);
            state.values[x] = s.0[l];
        }
    }
    for (c, v) in out.iter_mut().zip(o.values()) {
        put::<false>(c, at, v);
    }
}

/// For a law's tests: runs four contacts through `steps` (one `LawInput` per contact and
/// step; constants from the first) both ways, one contact at a time through [`Law::law`]
/// and four at a time through [`LaneLaw::law_lanes`] with [`F64x4`], and fails unless the
/// outputs and the state slots in use are bitwise the same at every step. The slots out of
/// use ([`LaneLaw::state_in_use`]) hold NaN on the four-contact side: it fails too if one
/// of them is written, or read into an output.
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
        // Slots out of use hold NaN here (`alone` keeps its values): a law that read one
        // would differ below, and one that wrote one is caught here.
        let used = law.state_in_use();
        let out_of_use = |i: usize| !in_use(used, i);
        let poison = F64x4::splat(f64::NAN);
        for (_, t) in together
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| out_of_use(*i))
        {
            *t = poison;
        }
        let o = law.law_lanes(&g, &c, &mut together);
        for (i, t) in together.iter().enumerate().filter(|(i, _)| out_of_use(*i)) {
            if t.0.map(f64::to_bits) != poison.0.map(f64::to_bits) {
                return Err(format!("step {s}: state slot {i}, out of use, was written"));
            }
        }
        for (j, a) in outs.iter().enumerate() {
            let lanes = o.values().map(|x| x.lane(j).to_bits());
            let one = [
                a.force.x, a.force.y, a.force.z, a.torque.x, a.torque.y, a.torque.z, a.elastic,
                a.friction, a.damping,
            ]
            .map(f64::to_bits);
            if lanes != one {
                return Err(format!("step {s}, contact {j}: {o:?} against {a:?}"));
            }
            for (i, t) in together.iter().enumerate().filter(|(i, _)| !out_of_use(*i)) {
                if t.lane(j).to_bits() != alone[j][i].to_bits() {
                    return Err(format!("step {s}, contact {j}: state slot {i} differs"));
                }
            }
        }
    }
    Ok(())
}
