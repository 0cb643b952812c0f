//! The column buffers of one law call: the per-contact data that the contacts' blocks do
//! not hold (the bodies' masses and materials, the flags) and the columns the law writes;
//! and, for a call on some of a chunk's contacts only, copies of their L6Geom, onset data
//! and law state. One set per worker, reused from call to call.
//!
//! A call on a whole chunk (the common case) reads the L6Geom and onset columns and the law
//! state straight from the chunk's blocks (see [`super::blocks`]).

use super::blocks::{AREA, FRAME, LENS, ONSET, PHI, PHI_DOT, PITCH, POINT, U, U_DOT};
use crate::l6geom::L6State;
use abi_stable::std_types::RSlice;
use dem_api::{
    Columns3, Columns3Mut, L6Columns, LawBatch, LawOutColumns, LawOutput, Material, Onset,
    StateColumns, Vec3, FLAG_LAST, FLAG_NEW,
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
            c.clear();
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

/// Everything one law call reads and writes, as columns (see the module docs).
#[derive(Default)]
pub(super) struct LawColumns {
    frame: [Cols3; 3],
    point: Cols3,
    u: Cols3,
    phi: Cols3,
    u_dot: Cols3,
    phi_dot: Cols3,
    lens: [Vec<f64>; 2],
    area: Vec<f64>,
    mass: [Vec<f64>; 2],
    material: [Vec<u32>; 2],
    onset_time: Vec<f64>,
    onset_normal_velocity: Vec<f64>,
    flags: Vec<u8>,
    /// Law state, `slots` values per contact (rows).
    state: Vec<f64>,
    force: Cols3,
    torque: Cols3,
    elastic: Vec<f64>,
    friction: Vec<f64>,
    damping: Vec<f64>,
    len: usize,
    slots: usize,
}

impl LawColumns {
    /// Room for `n` contacts of a law with `slots` state values each (contents unset),
    /// with the copies of the geometry, onset data and state when `copies` is set.
    pub(super) fn resize(&mut self, n: usize, slots: usize, copies: bool) {
        let m = if copies { n } else { 0 };
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
            c.resize(m);
        }
        self.force.resize(n);
        self.torque.resize(n);
        let [l0, l1] = &mut self.lens;
        for c in [
            l0,
            l1,
            &mut self.area,
            &mut self.onset_time,
            &mut self.onset_normal_velocity,
        ] {
            c.clear();
            c.resize(m, 0.0);
        }
        let [m0, m1] = &mut self.mass;
        for c in [
            m0,
            m1,
            &mut self.elastic,
            &mut self.friction,
            &mut self.damping,
        ] {
            c.clear();
            c.resize(n, 0.0);
        }
        for c in &mut self.material {
            c.clear();
            c.resize(n, 0);
        }
        self.flags.clear();
        self.flags.resize(n, 0);
        self.state.clear();
        self.state.resize(m * slots, 0.0);
        (self.len, self.slots) = (n, slots);
    }

    /// Writes what the blocks do not hold of contact `k` of the batch: its bodies' masses
    /// and materials, and its flags.
    #[inline(always)]
    pub(super) fn write_pair(
        &mut self,
        k: usize,
        mass: [f64; 2],
        material: [u32; 2],
        new: bool,
        last: bool,
    ) {
        self.mass[0][k] = mass[0];
        self.mass[1][k] = mass[1];
        self.material[0][k] = material[0];
        self.material[1][k] = material[1];
        self.flags[k] = if new { FLAG_NEW } else { 0 } | if last { FLAG_LAST } else { 0 };
    }

    /// Writes the copies of contact `k` of the batch: its geometry, onset data and law
    /// state (`slots` values of a state block in the row layout of `stride` values per
    /// contact, contact `at` of it).
    #[inline(always)]
    pub(super) fn write_copies(
        &mut self,
        k: usize,
        l6: &L6State,
        onset: &Onset,
        state: &[f64],
        stride: usize,
        at: usize,
    ) {
        for (r, row) in self.frame.iter_mut().enumerate() {
            row.set(k, l6.frame[(r, 0)], l6.frame[(r, 1)], l6.frame[(r, 2)]);
        }
        self.point.set(k, l6.point.x, l6.point.y, l6.point.z);
        self.u.set(k, l6.u.x, l6.u.y, l6.u.z);
        self.phi.set(k, l6.phi.x, l6.phi.y, l6.phi.z);
        self.u_dot.set(k, l6.u_dot.x, l6.u_dot.y, l6.u_dot.z);
        self.phi_dot
            .set(k, l6.phi_dot.x, l6.phi_dot.y, l6.phi_dot.z);
        self.lens[0][k] = l6.lens[0];
        self.lens[1][k] = l6.lens[1];
        self.area[k] = l6.area;
        self.onset_time[k] = onset.time;
        self.onset_normal_velocity[k] = onset.normal_velocity;
        let n = self.slots;
        self.state[k * n..(k + 1) * n].copy_from_slice(&state[at * stride..at * stride + n]);
    }

    /// The law's state of copied contact `k` after the call, into contact `at` of a state
    /// block in the row layout of `stride` values per contact.
    #[inline(always)]
    pub(super) fn read_state(&self, k: usize, state: &mut [f64], stride: usize, at: usize) {
        let n = self.slots;
        state[at * stride..at * stride + n].copy_from_slice(&self.state[k * n..(k + 1) * n]);
    }

    /// The law's output for contact `k`.
    #[inline(always)]
    pub(super) fn output(&self, k: usize) -> LawOutput {
        LawOutput {
            force: self.force.get(k),
            torque: self.torque.get(k),
            elastic: self.elastic[k],
            friction: self.friction[k],
            damping: self.damping[k],
        }
    }

    /// The batch, the state and the output columns of a call on every contact of a chunk
    /// (`hot` and `state` are its blocks, the state's of `stride` values per contact), in
    /// order: geometry, onset data and state as the blocks hold them.
    pub(super) fn call_in_place<'a>(
        &'a mut self,
        dt: f64,
        materials: &'a [Material],
        hot: &'a [f64],
        (state, stride): (&'a mut [f64], usize),
    ) -> (LawBatch<'a>, StateColumns<'a>, LawOutColumns<'a>) {
        let n = self.len;
        let col = |f: usize| -> RSlice<'a, f64> { hot[f * PITCH..f * PITCH + n].into() };
        let col3 = |f: usize| Columns3 {
            x: col(f),
            y: col(f + 1),
            z: col(f + 2),
        };
        let batch = LawBatch {
            dt,
            geom: L6Columns {
                frame: [col3(FRAME), col3(FRAME + 3), col3(FRAME + 6)],
                point: col3(POINT),
                u: col3(U),
                phi: col3(PHI),
                u_dot: col3(U_DOT),
                phi_dot: col3(PHI_DOT),
                lens: [col(LENS), col(LENS + 1)],
                area: col(AREA),
            },
            mass: [
                self.mass[0].as_slice().into(),
                self.mass[1].as_slice().into(),
            ],
            material: [
                self.material[0].as_slice().into(),
                self.material[1].as_slice().into(),
            ],
            materials: materials.into(),
            onset_time: col(ONSET),
            onset_normal_velocity: col(ONSET + 1),
            flags: self.flags.as_slice().into(),
        };
        let state = StateColumns {
            values: state.into(),
            item_stride: stride as u64,
            slot_stride: 1,
        };
        let out = LawOutColumns {
            force: self.force.view_mut(),
            torque: self.torque.view_mut(),
            elastic: self.elastic.as_mut_slice().into(),
            friction: self.friction.as_mut_slice().into(),
            damping: self.damping.as_mut_slice().into(),
        };
        (batch, state, out)
    }

    /// The batch, the state blocks and the output columns of a call on the copied
    /// contacts.
    pub(super) fn call<'a>(
        &'a mut self,
        dt: f64,
        materials: &'a [Material],
    ) -> (LawBatch<'a>, StateColumns<'a>, LawOutColumns<'a>) {
        let batch = LawBatch {
            dt,
            geom: L6Columns {
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
            },
            mass: [
                self.mass[0].as_slice().into(),
                self.mass[1].as_slice().into(),
            ],
            material: [
                self.material[0].as_slice().into(),
                self.material[1].as_slice().into(),
            ],
            materials: materials.into(),
            onset_time: self.onset_time.as_slice().into(),
            onset_normal_velocity: self.onset_normal_velocity.as_slice().into(),
            flags: self.flags.as_slice().into(),
        };
        let state = StateColumns {
            values: self.state.as_mut_slice().into(),
            item_stride: self.slots as u64,
            slot_stride: 1,
        };
        let out = LawOutColumns {
            force: self.force.view_mut(),
            torque: self.torque.view_mut(),
            elastic: self.elastic.as_mut_slice().into(),
            friction: self.friction.as_mut_slice().into(),
            damping: self.damping.as_mut_slice().into(),
        };
        (batch, state, out)
    }
}
