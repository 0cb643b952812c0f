//! The column buffers of one law call: the per-contact data that the contacts' blocks do
//! not hold (the bodies' masses and materials, the flags) and the columns the law writes;
//! and, for a call on some of a chunk's contacts only, copies of their L6Geom, onset data
//! and law state. One set per worker, reused from call to call.
//!
//! A call on a whole chunk (the common case) reads the L6Geom and onset columns and the law
//! state straight from the chunk's blocks (see [`super::blocks`]).
//!
//! Every value of a call's columns is written before it is read (by the solver, or by the
//! law, which writes every output), so a resize keeps what the last call left instead of
//! zeroing the columns first.

use crate::engines::l6geom::L6State;
use crate::model::blocks::{AREA, FRAME, LENS, ONSET, PHI, PHI_DOT, PITCH, POINT, U, U_DOT};
use abi_stable::std_types::RSlice;
use dem_api::{
    Columns3, Columns3Mut, L6Columns, LawBatch, LawOutColumns, LawOutput, Material, Onset,
    StateColumns, Vec3,
};

/// Three columns of a vector field.
#[derive(Default)]
struct Cols3 {
    x: Vec<f64>,
    y: Vec<f64>,
    z: Vec<f64>,
}

impl Cols3 {
    fn resize(&mut self, n: usize) {
        for c in [&mut self.x, &mut self.y, &mut self.z] {
            c.resize(n, 0.0);
        }
    }

    #[inline(always)]
    fn set(&mut self, k: usize, x: f64, y: f64, z: f64) {
        self.x[k] = x;
        self.y[k] = y;
        self.z[k] = z;
    }

    #[inline(always)]
    fn get(&self, k: usize) -> Vec3 {
        Vec3::new(self.x[k], self.y[k], self.z[k])
    }

    fn view(&self) -> Columns3<'_> {
        Columns3::new(&self.x, &self.y, &self.z)
    }

    fn view_mut(&mut self) -> Columns3Mut<'_> {
        Columns3Mut::new(&mut self.x, &mut self.y, &mut self.z)
    }
}

/// What the contacts' blocks do not hold: the bodies' masses and material indices, and
/// the flags.
#[derive(Default)]
struct Pairs {
    mass: [Vec<f64>; 2],
    material: [Vec<u32>; 2],
    flags: Vec<u8>,
}

impl Pairs {
    fn resize(&mut self, n: usize) {
        for c in &mut self.mass {
            c.resize(n, 0.0);
        }
        for c in &mut self.material {
            c.resize(n, 0);
        }
        self.flags.resize(n, 0);
    }

    /// The batch of these pairs, with the geometry and onset columns given.
    fn batch<'a>(
        &'a self,
        dt: f64,
        materials: &'a [Material],
        geom: L6Columns<'a>,
        onset: [RSlice<'a, f64>; 2],
    ) -> LawBatch<'a> {
        let [m0, m1] = &self.mass;
        let [i0, i1] = &self.material;
        LawBatch {
            dt,
            geom,
            mass: [m0.as_slice().into(), m1.as_slice().into()],
            material: [i0.as_slice().into(), i1.as_slice().into()],
            materials: materials.into(),
            onset_time: onset[0],
            onset_normal_velocity: onset[1],
            flags: self.flags.as_slice().into(),
        }
    }
}

/// The columns a law writes.
#[derive(Default)]
struct Outputs {
    force: Cols3,
    torque: Cols3,
    elastic: Vec<f64>,
    friction: Vec<f64>,
    damping: Vec<f64>,
}

impl Outputs {
    fn resize(&mut self, n: usize) {
        self.force.resize(n);
        self.torque.resize(n);
        for c in [&mut self.elastic, &mut self.friction, &mut self.damping] {
            c.resize(n, 0.0);
        }
    }

    fn view_mut(&mut self) -> LawOutColumns<'_> {
        LawOutColumns {
            force: self.force.view_mut(),
            torque: self.torque.view_mut(),
            elastic: self.elastic.as_mut_slice().into(),
            friction: self.friction.as_mut_slice().into(),
            damping: self.damping.as_mut_slice().into(),
        }
    }
}

/// Copies of the geometry, onset data and law state of contacts, for a call on some of a
/// chunk's contacts.
#[derive(Default)]
struct Copies {
    frame: [Cols3; 3],
    point: Cols3,
    u: Cols3,
    phi: Cols3,
    u_dot: Cols3,
    phi_dot: Cols3,
    lens: [Vec<f64>; 2],
    area: Vec<f64>,
    onset: [Vec<f64>; 2],
}

impl Copies {
    fn resize(&mut self, n: usize) {
        for c in [
            &mut self.point,
            &mut self.u,
            &mut self.phi,
            &mut self.u_dot,
            &mut self.phi_dot,
        ]
        .into_iter()
        .chain(self.frame.iter_mut())
        {
            c.resize(n);
        }
        let [l0, l1] = &mut self.lens;
        let [o0, o1] = &mut self.onset;
        for c in [l0, l1, &mut self.area, o0, o1] {
            c.resize(n, 0.0);
        }
    }

    fn geometry(&self) -> L6Columns<'_> {
        L6Columns {
            frame: [
                self.frame[0].view(),
                self.frame[1].view(),
                self.frame[2].view(),
            ],
            point: self.point.view(),
            u: self.u.view(),
            phi: self.phi.view(),
            u_dot: self.u_dot.view(),
            phi_dot: self.phi_dot.view(),
            lens: [
                self.lens[0].as_slice().into(),
                self.lens[1].as_slice().into(),
            ],
            area: self.area.as_slice().into(),
        }
    }
}

/// Everything one law call reads and writes, as columns (see the module docs).
#[derive(Default)]
pub(super) struct LawColumns {
    pairs: Pairs,
    out: Outputs,
    copies: Copies,
    /// Copies of the law state, `slots` values per contact (rows).
    state: Vec<f64>,
    len: usize,
    slots: usize,
}

impl LawColumns {
    /// Room for `n` contacts of a law with `slots` state values each (contents unset),
    /// with the copies of the geometry, onset data and state when `copies` is set.
    pub(super) fn resize(&mut self, n: usize, slots: usize, copies: bool) {
        self.pairs.resize(n);
        self.out.resize(n);
        let m = if copies { n } else { 0 };
        self.copies.resize(m);
        self.state.resize(m * slots, 0.0);
        (self.len, self.slots) = (n, slots);
    }

    /// Writes what the blocks do not hold of the contacts of the batch, in order: their
    /// bodies' masses and materials (left as they are where not given: a law that does not
    /// read them then), and their flags (`FLAG_NEW`, `FLAG_LAST`, `FLAG_REFRESH`).
    #[inline(always)]
    pub(super) fn write_pairs(
        &mut self,
        pairs: impl Iterator<Item = (Option<([f64; 2], [u32; 2])>, u8)>,
    ) {
        let n = self.len;
        let p = &mut self.pairs;
        let [m0, m1] = &mut p.mass;
        let [i0, i1] = &mut p.material;
        let columns = m0[..n]
            .iter_mut()
            .zip(&mut m1[..n])
            .zip(i0[..n].iter_mut().zip(&mut i1[..n]))
            .zip(&mut p.flags[..n]);
        for ((((m0, m1), (i0, i1)), flags), (pair, f)) in columns.zip(pairs) {
            if let Some((mass, material)) = pair {
                (*m0, *m1, *i0, *i1) = (mass[0], mass[1], material[0], material[1]);
            }
            *flags = f;
        }
    }

    /// Writes the copies of contact `k` of the batch: its geometry, onset data and law
    /// state (`slots` values of a state block in the column layout, contact `at` of it).
    #[inline(always)]
    pub(super) fn write_copies(
        &mut self,
        k: usize,
        l6: &L6State,
        onset: &Onset,
        state: &[f64],
        at: usize,
    ) {
        let c = &mut self.copies;
        for (r, row) in c.frame.iter_mut().enumerate() {
            row.set(k, l6.frame[(r, 0)], l6.frame[(r, 1)], l6.frame[(r, 2)]);
        }
        c.point.set(k, l6.point.x, l6.point.y, l6.point.z);
        c.u.set(k, l6.u.x, l6.u.y, l6.u.z);
        c.phi.set(k, l6.phi.x, l6.phi.y, l6.phi.z);
        c.u_dot.set(k, l6.u_dot.x, l6.u_dot.y, l6.u_dot.z);
        c.phi_dot.set(k, l6.phi_dot.x, l6.phi_dot.y, l6.phi_dot.z);
        c.lens[0][k] = l6.lens[0];
        c.lens[1][k] = l6.lens[1];
        c.area[k] = l6.area;
        c.onset[0][k] = onset.time;
        c.onset[1][k] = onset.normal_velocity;
        let n = self.slots;
        for (j, x) in self.state[k * n..(k + 1) * n].iter_mut().enumerate() {
            *x = state[j * PITCH + at];
        }
    }

    /// The law's state of copied contact `k` after the call, into contact `at` of a state
    /// block in the column layout.
    #[inline(always)]
    pub(super) fn read_state(&self, k: usize, state: &mut [f64], at: usize) {
        let n = self.slots;
        for (j, &x) in self.state[k * n..(k + 1) * n].iter().enumerate() {
            state[j * PITCH + at] = x;
        }
    }

    /// The law's output columns (for every contact of the call).
    pub(super) fn local(&self) -> super::global::Local<'_> {
        let o = &self.out;
        super::global::Local {
            force: [&o.force.x, &o.force.y, &o.force.z],
            torque: [&o.torque.x, &o.torque.y, &o.torque.z],
            energy: [&o.elastic, &o.friction, &o.damping],
        }
    }

    /// The law's output for contact `k`.
    #[inline(always)]
    pub(super) fn output(&self, k: usize) -> LawOutput {
        let o = &self.out;
        LawOutput {
            force: o.force.get(k),
            torque: o.torque.get(k),
            elastic: o.elastic[k],
            friction: o.friction[k],
            damping: o.damping[k],
        }
    }

    /// The batch, the state and the output columns of a call on every contact of a chunk
    /// (`hot` and `state` are its blocks, both in the column layout), in order: geometry,
    /// onset data and state as the blocks hold them.
    pub(super) fn call_in_place<'a>(
        &'a mut self,
        dt: f64,
        materials: &'a [Material],
        hot: &'a [f64],
        state: &'a mut [f64],
    ) -> (LawBatch<'a>, StateColumns<'a>, LawOutColumns<'a>) {
        let n = self.len;
        let col = |f: usize| -> RSlice<'a, f64> { hot[f * PITCH..f * PITCH + n].into() };
        let col3 = |f: usize| Columns3 {
            x: col(f),
            y: col(f + 1),
            z: col(f + 2),
        };
        let geom = L6Columns {
            frame: [col3(FRAME), col3(FRAME + 3), col3(FRAME + 6)],
            point: col3(POINT),
            u: col3(U),
            phi: col3(PHI),
            u_dot: col3(U_DOT),
            phi_dot: col3(PHI_DOT),
            lens: [col(LENS), col(LENS + 1)],
            area: col(AREA),
        };
        let batch = self
            .pairs
            .batch(dt, materials, geom, [col(ONSET), col(ONSET + 1)]);
        // Slot `j` of contact `i` at `j * PITCH + i`: a slot of the chunk's contacts is one
        // column, which a law written over lanes reads four at a time.
        let state = StateColumns {
            values: state.into(),
            item_stride: 1,
            slot_stride: PITCH as u64,
        };
        (batch, state, self.out.view_mut())
    }

    /// The batch, the state and the output columns of a call on the copied contacts.
    pub(super) fn call<'a>(
        &'a mut self,
        dt: f64,
        materials: &'a [Material],
    ) -> (LawBatch<'a>, StateColumns<'a>, LawOutColumns<'a>) {
        let c = &self.copies;
        let onset = [c.onset[0].as_slice().into(), c.onset[1].as_slice().into()];
        let batch = self.pairs.batch(dt, materials, c.geometry(), onset);
        let state = StateColumns {
            values: self.state.as_mut_slice().into(),
            item_stride: self.slots as u64,
            slot_stride: 1,
        };
        (batch, state, self.out.view_mut())
    }
}
