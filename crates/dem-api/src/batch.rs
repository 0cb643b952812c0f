//! Column batches: what one batched call of a geometry functor or a contact law reads and
//! writes (dem-api 0.3).
//!
//! A batch carries one slice per field, not one record per contact, so that the solver can
//! hand over its own storage without copying it into records, and a law can stream a field
//! across contacts (the form SIMD code wants):
//! - a geometry call ([`GeomBatch`]) reads the particles' columns and a list of index pairs;
//! - a law call ([`LawBatch`]) reads the contacts' L6Geom fields and per-contact data as
//!   columns, updates its state in [`StateColumns`] and writes [`LawOutColumns`].
//!
//! Every column of a batch has the batch's length (item `i` of each column belongs to
//! contact `i`), except the particle columns of [`BodyColumns`], which are indexed by
//! particle index, and the materials table. Plugin authors using the SDK never see these
//! types: the SDK reads a batch into per-contact records ([`BodyView`], [`LawInput`]) around
//! the author's per-contact method.

use crate::geom::L6Geom;
use crate::law::{LawInput, LawOutput, LawPair, Material, Onset};
use crate::math::{Mat3, Quat, Vec3};
use crate::shape::{BodyView, ShapeView};
use abi_stable::std_types::{RSlice, RSliceMut};
use abi_stable::StableAbi;

/// A vector field as three columns: item `i` is `(x[i], y[i], z[i])`. Units are those of
/// the field (documented where it is used).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct Columns3<'a> {
    /// First components.
    pub x: RSlice<'a, f64>,
    /// Second components.
    pub y: RSlice<'a, f64>,
    /// Third components.
    pub z: RSlice<'a, f64>,
}

impl<'a> Columns3<'a> {
    /// Columns over three slices of equal length.
    pub fn new(x: &'a [f64], y: &'a [f64], z: &'a [f64]) -> Self {
        Columns3 {
            x: x.into(),
            y: y.into(),
            z: z.into(),
        }
    }

    /// Item `i` as a vector.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Vec3 {
        Vec3::new(self.x[i], self.y[i], self.z[i])
    }

    /// Do all three columns have `len` items?
    pub fn has_len(&self, len: usize) -> bool {
        self.x.len() == len && self.y.len() == len && self.z.len() == len
    }
}

/// A vector field being written, as three columns (see [`Columns3`]).
#[repr(C)]
#[derive(StableAbi, Debug)]
pub struct Columns3Mut<'a> {
    /// First components.
    pub x: RSliceMut<'a, f64>,
    /// Second components.
    pub y: RSliceMut<'a, f64>,
    /// Third components.
    pub z: RSliceMut<'a, f64>,
}

impl<'a> Columns3Mut<'a> {
    /// Columns over three slices of equal length.
    pub fn new(x: &'a mut [f64], y: &'a mut [f64], z: &'a mut [f64]) -> Self {
        Columns3Mut {
            x: x.into(),
            y: y.into(),
            z: z.into(),
        }
    }

    /// Writes item `i`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, v: Vec3) {
        self.x[i] = v.x;
        self.y[i] = v.y;
        self.z[i] = v.z;
    }

    /// Do all three columns have `len` items?
    pub fn has_len(&self, len: usize) -> bool {
        self.x.len() == len && self.y.len() == len && self.z.len() == len
    }
}

/// The particles as a functor reads them: one column per field, indexed by particle index
/// (the indices a batch's `pairs` hold). Positions at time t, velocities at t - dt/2.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct BodyColumns<'a> {
    /// Position of the body's reference point (a sphere's centre, a polyhedron's centroid,
    /// a wall's point, a facet's mesh origin), global frame, m.
    pub pos: RSlice<'a, Vec3>,
    /// Orientation (body to global), unit quaternion.
    pub ori: RSlice<'a, Quat>,
    /// Velocity, global frame, m/s.
    pub vel: RSlice<'a, Vec3>,
    /// Angular velocity, global frame, rad/s.
    pub angvel: RSlice<'a, Vec3>,
    /// Shape of each particle.
    pub shape: RSlice<'a, ShapeView<'a>>,
}

impl<'a> BodyColumns<'a> {
    /// Particle `i` as one record.
    #[inline(always)]
    pub fn view(&self, i: usize) -> BodyView<'a> {
        BodyView {
            pos: self.pos[i],
            ori: self.ori[i],
            vel: self.vel[i],
            angvel: self.angvel[i],
            shape: self.shape[i],
        }
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// Are there no particles?
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// Do all columns have the same length?
    pub fn consistent(&self) -> bool {
        let n = self.pos.len();
        self.ori.len() == n
            && self.vel.len() == n
            && self.angvel.len() == n
            && self.shape.len() == n
    }
}

/// One batch of body pairs for a geometry functor.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct GeomBatch<'a> {
    /// The particles (all of them; `pairs` index into these columns).
    pub bodies: BodyColumns<'a>,
    /// Particle indices of body 1 and body 2 of each pair. Body 1's shape is the functor's
    /// first declared shape kind, body 2's the second.
    pub pairs: RSlice<'a, [u32; 2]>,
    /// Which term of each pair is asked for, `0..features` (see
    /// [`crate::Cg2Functor::features`]); always `0` for a functor with one term per pair.
    /// Each term is a contact of its own, with its own L6Geom and law state.
    pub features: RSlice<'a, u32>,
    /// Report `touching = 1` when the gap is below this distance, m (the contact law's
    /// interaction distance; `f64::INFINITY` for the pairs that are contacts already, whose
    /// geometry is always wanted).
    pub distance: f64,
}

impl<'a> GeomBatch<'a> {
    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Is the batch empty?
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Body 1 and body 2 of pair `i`, or `None` when an index is outside the particle
    /// columns.
    #[inline(always)]
    pub fn bodies(&self, i: usize) -> Option<(BodyView<'a>, BodyView<'a>)> {
        let [b1, b2] = self.pairs[i];
        let n = self.bodies.len();
        ((b1 as usize) < n && (b2 as usize) < n)
            .then(|| (self.bodies.view(b1 as usize), self.bodies.view(b2 as usize)))
    }
}

/// The L6Geom of a batch of contacts as columns (see [`L6Geom`] for the meaning, frames and
/// units of each field).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct L6Columns<'a> {
    /// Rows of the global-to-local rotation at time t: `frame[0]` is the normal `n`,
    /// `frame[1]`, `frame[2]` the tangential axes, each in the global frame.
    pub frame: [Columns3<'a>; 3],
    /// Contact point at time t, global frame, m.
    pub point: Columns3<'a>,
    /// Relative displacement, local frame, m (`u.x` is the normal gap).
    pub u: Columns3<'a>,
    /// Relative rotation, local frame, rad (`phi.x` is twist).
    pub phi: Columns3<'a>,
    /// Rate of `u` at t - dt/2, local frame, m/s.
    pub u_dot: Columns3<'a>,
    /// Rate of `phi` at t - dt/2, local frame, rad/s.
    pub phi_dot: Columns3<'a>,
    /// Branch lengths (equivalent radii) of body 1 and body 2, m (`f64::INFINITY` for a
    /// wall).
    pub lens: [RSlice<'a, f64>; 2],
    /// Contact area, m^2 (0 if the functor does not define it).
    pub area: RSlice<'a, f64>,
}

impl L6Columns<'_> {
    /// The L6Geom of contact `i` as one record.
    #[inline(always)]
    pub fn get(&self, i: usize) -> L6Geom {
        let r = |k: usize| self.frame[k].get(i);
        let (r0, r1, r2) = (r(0), r(1), r(2));
        frame_rows(
            [r0, r1, r2],
            [
                self.point.get(i),
                self.u.get(i),
                self.phi.get(i),
                self.u_dot.get(i),
                self.phi_dot.get(i),
            ],
            [self.lens[0][i], self.lens[1][i], self.area[i]],
        )
    }

    /// Do all columns have `len` items?
    pub fn has_len(&self, len: usize) -> bool {
        self.frame.iter().all(|c| c.has_len(len))
            && [self.point, self.u, self.phi, self.u_dot, self.phi_dot]
                .iter()
                .all(|c| c.has_len(len))
            && self.lens[0].len() == len
            && self.lens[1].len() == len
            && self.area.len() == len
    }
}

/// The L6Geom record of a frame given by rows, the vectors `[point, u, phi, u_dot,
/// phi_dot]` and `[lens[0], lens[1], area]` (fields set one by one, so that the record may
/// gain fields).
#[inline(always)]
#[allow(clippy::field_reassign_with_default)]
pub(crate) fn frame_rows(rows: [Vec3; 3], v: [Vec3; 5], s: [f64; 3]) -> L6Geom {
    let [r0, r1, r2] = rows;
    let mut g = L6Geom::default();
    // `Mat3` is column-major: its columns are read across the rows.
    g.frame = Mat3 {
        cols: [
            Vec3::new(r0.x, r1.x, r2.x),
            Vec3::new(r0.y, r1.y, r2.y),
            Vec3::new(r0.z, r1.z, r2.z),
        ],
    };
    [g.point, g.u, g.phi, g.u_dot, g.phi_dot] = v;
    (g.lens, g.area) = ([s[0], s[1]], s[2]);
    g
}

/// Flag of [`LawBatch::flags`]: the contact was created this step (its state slots are all
/// zero).
pub const FLAG_NEW: u8 = 1;
/// Flag of [`LawBatch::flags`]: the contact ends this step (the gap reached the interaction
/// distance plus the hysteresis band). The law is called this last time with the geometry
/// of the step so that it can book the dissipation of the final interval; the solver
/// applies no force or torque from this call and takes the elastic energy as released.
pub const FLAG_LAST: u8 = 2;
/// Flag of [`LawBatch::flags`] (since dem-api 0.5.1): the law's parameters or the scene's
/// materials were changed between two steps, and this is the contact's first call since.
/// The law computes the contact's constants again from this call's input, as for a new
/// contact (the SDK's adapters do so for [`crate::sdk::Law::constants`]), and keeps its
/// state slots: the contact is not new. The masses and materials of such a contact are
/// given whatever the law declares it reads. A law that keeps no constants ignores it.
pub const FLAG_REFRESH: u8 = 4;

/// One batch of contacts for a contact law.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct LawBatch<'a> {
    /// Time step, s.
    pub dt: f64,
    /// The contacts' geometry at time t.
    pub geom: L6Columns<'a>,
    /// Masses of body 1 and body 2 of each contact, kg (`f64::INFINITY` for a body whose
    /// translation is fully blocked, such as a fixed wall).
    pub mass: [RSlice<'a, f64>; 2],
    /// Materials of body 1 and body 2 of each contact: indices into `materials`.
    pub material: [RSlice<'a, u32>; 2],
    /// The scene's materials.
    pub materials: RSlice<'a, Material>,
    /// Time each contact was created, s.
    pub onset_time: RSlice<'a, f64>,
    /// Normal relative velocity at onset (pre-impact), m/s: negative when approaching.
    pub onset_normal_velocity: RSlice<'a, f64>,
    /// [`FLAG_NEW`] and [`FLAG_LAST`] bits of each contact.
    pub flags: RSlice<'a, u8>,
}

impl LawBatch<'_> {
    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.flags.len()
    }

    /// Is the batch empty?
    pub fn is_empty(&self) -> bool {
        self.flags.is_empty()
    }

    /// Do all per-contact columns have the batch's length, and all material indices a
    /// material?
    pub fn consistent(&self) -> bool {
        let n = self.len();
        let m = self.materials.len();
        self.geom.has_len(n)
            && self.mass.iter().all(|c| c.len() == n)
            && self.material.iter().all(|c| c.len() == n)
            && self
                .material
                .iter()
                .all(|c| c.iter().all(|&k| (k as usize) < m))
            && self.onset_time.len() == n
            && self.onset_normal_velocity.len() == n
    }

    /// The two bodies of contact `i` (radii are the L6Geom branch lengths). The material
    /// indices must be valid ([`LawBatch::consistent`]).
    #[inline(always)]
    pub fn pair(&self, i: usize) -> LawPair {
        LawPair {
            radius: [self.geom.lens[0][i], self.geom.lens[1][i]],
            mass: [self.mass[0][i], self.mass[1][i]],
            material: [
                self.materials[self.material[0][i] as usize],
                self.materials[self.material[1][i] as usize],
            ],
        }
    }

    /// Everything given for contact `i`, as the record a per-contact law reads.
    #[inline(always)]
    pub fn input(&self, i: usize) -> LawInput {
        let flags = self.flags[i];
        LawInput {
            geom: self.geom.get(i),
            pair: self.pair(i),
            onset: Onset {
                time: self.onset_time[i],
                normal_velocity: self.onset_normal_velocity[i],
            },
            dt: self.dt,
            is_new: u32::from(flags & FLAG_NEW != 0),
            is_last: u32::from(flags & FLAG_LAST != 0),
        }
    }
}

/// A law's per-contact state slots: slot `j` of contact `i` is
/// `values[i * item_stride + j * slot_stride]`, for `j < ContactLaw::state_len()` and `i <`
/// the batch length. The solver gives one of two layouts: rows (`slot_stride == 1`: a
/// contact's slots are contiguous, `item_stride >=` the slot count) or columns
/// (`item_stride == 1`: a slot of all contacts is contiguous, `slot_stride >=` the batch
/// length). Slots are zero at contact onset.
#[repr(C)]
#[derive(StableAbi, Debug)]
pub struct StateColumns<'a> {
    /// The slots.
    pub values: RSliceMut<'a, f64>,
    /// Distance between slot `j` of contact `i` and of contact `i + 1`, in values.
    pub item_stride: u64,
    /// Distance between slot `j` and slot `j + 1` of one contact, in values.
    pub slot_stride: u64,
}

impl StateColumns<'_> {
    /// Index in `values` of slot `j` of contact `i`.
    #[inline(always)]
    pub fn index(&self, i: usize, j: usize) -> usize {
        i * self.item_stride as usize + j * self.slot_stride as usize
    }

    /// Is this one of the two layouts, with room for `len` contacts of `slots` slots each
    /// and no value shared by two of them?
    pub fn fits(&self, len: usize, slots: usize) -> bool {
        if len == 0 || slots == 0 {
            return true;
        }
        let (a, b) = (self.item_stride as usize, self.slot_stride as usize);
        let disjoint = (b == 1 && a >= slots) || (a == 1 && b >= len);
        disjoint && self.index(len - 1, slots - 1) < self.values.len()
    }

    /// The `slots` slots of contact `i` as one slice, in the row layout (`None` in the
    /// column layout or out of range).
    #[inline(always)]
    pub fn row_mut(&mut self, i: usize, slots: usize) -> Option<&mut [f64]> {
        if self.slot_stride != 1 {
            return None;
        }
        let start = i * self.item_stride as usize;
        self.values.get_mut(start..start + slots)
    }
}

/// What a law writes for a batch of contacts, as columns.
#[repr(C)]
#[derive(StableAbi, Debug)]
pub struct LawOutColumns<'a> {
    /// Force of body 1 on body 2 at the contact point, local frame, N.
    pub force: Columns3Mut<'a>,
    /// Torque of body 1 on body 2 in addition to the moment of `force` (rolling or
    /// twisting resistance), local frame, N m.
    pub torque: Columns3Mut<'a>,
    /// Elastic energy stored in each contact now (not an increment), J.
    pub elastic: RSliceMut<'a, f64>,
    /// Energy dissipated by friction during this step, J, >= 0.
    pub friction: RSliceMut<'a, f64>,
    /// Energy dissipated by viscous damping during this step, J (see
    /// [`LawOutput::damping`]).
    pub damping: RSliceMut<'a, f64>,
}

impl LawOutColumns<'_> {
    /// Writes the output of contact `i`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, o: &LawOutput) {
        self.force.set(i, o.force);
        self.torque.set(i, o.torque);
        self.elastic[i] = o.elastic;
        self.friction[i] = o.friction;
        self.damping[i] = o.damping;
    }

    /// Do all columns have `len` items?
    pub fn has_len(&self, len: usize) -> bool {
        self.force.has_len(len)
            && self.torque.has_len(len)
            && self.elastic.len() == len
            && self.friction.len() == len
            && self.damping.len() == len
    }
}
