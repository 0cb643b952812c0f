//! Contact geometry records: [`RawGeom`], what a geometry (Cg2) functor computes directly
//! each step, and [`L6Geom`], the incrementally tracked local frame a law reads.
//!
//! Conventions, shared by every functor and law:
//! - the contact normal `n` points from body 1 to body 2 (for a wall and a sphere, the wall
//!   is body 1, so `n` points from the wall into the sphere);
//! - the normal gap `u_n` is negative when the bodies overlap (overlap = `-u_n`);
//! - the local frame `T` is orthonormal, rotating global vectors into local coordinates; its
//!   first row is `n`, so local `x` is normal and local `y`, `z` are tangential.

use crate::math::{Mat3, Vec3};
use abi_stable::StableAbi;

/// What a geometry functor reports for one pair of bodies at the current time.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct RawGeom {
    /// `1` if the pair is within the interaction distance it was asked about (the solver
    /// then looks at the other fields), `0` otherwise.
    pub touching: u32,
    /// Contact point, global frame, m. For two spheres, the middle of the overlap.
    pub point: Vec3,
    /// Unit contact normal from body 1 to body 2, global frame.
    pub normal: Vec3,
    /// Normal gap (signed distance between the surfaces along `normal`), m; negative in
    /// overlap.
    pub gap: f64,
    /// Equivalent radius of body 1 at the contact (used for branch vectors with `noRatch`
    /// and by laws, e.g. Hertz), m. `f64::INFINITY` for flat bodies (walls).
    pub radius1: f64,
    /// Equivalent radius of body 2 at the contact, m.
    pub radius2: f64,
    /// Contact area for laws that need one (e.g. area-weighted barriers), m^2; `0` when the
    /// functor does not define it.
    pub area: f64,
    /// Signed weight of this contact term, dimensionless: `1` for an ordinary contact. The
    /// solver multiplies the law's force, torque and energies by it. A functor that splits
    /// a pair into several terms (see [`crate::batch::GeomBatch::features`]) uses it to add or
    /// subtract them, e.g. `-1` for the interior-edge terms of IPC's convergent
    /// formulation. Must be finite and non-zero.
    pub weight: f64,
}

/// The contact's local frame and its six generalized displacements, as the solver's single
/// L6Geom update keeps them (Woo's L6Geom). This is what a contact law reads.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct L6Geom {
    /// Rotation from global to local coordinates at time t (rows are the local axes in the
    /// global frame; row 0 is the normal `n`).
    pub frame: Mat3,
    /// Contact point at time t, global frame, m.
    pub point: Vec3,
    /// Relative displacement of body 2 with respect to body 1 at the contact, local frame,
    /// m. `u.x` is the normal gap (evaluated directly, negative in overlap); `u.y`, `u.z`
    /// are integrated tangential displacements since contact onset.
    pub u: Vec3,
    /// Relative rotation of body 2 with respect to body 1, local frame, rad: `phi.x` is
    /// twist about the normal, `phi.y`, `phi.z` are bending. Integrated since onset.
    pub phi: Vec3,
    /// Rate of `u` at t - dt/2, local frame (mid-step frame), m/s. The normal component is
    /// the approach rate (negative when closing).
    pub u_dot: Vec3,
    /// Rate of `phi` at t - dt/2, local frame, rad/s.
    pub phi_dot: Vec3,
    /// Branch lengths: distance from the body 1 and body 2 reference points to the contact
    /// along the normal (equivalent radii), m. `f64::INFINITY` for a wall.
    pub lens: [f64; 2],
    /// Contact area from the geometry functor, m^2 (0 if not defined).
    pub area: f64,
}
