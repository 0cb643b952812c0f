//! Law input and output records: what a contact law is given for one contact, and what it
//! returns.
//!
//! Force convention: a law returns the force and torque that body 1 exerts **on body 2**,
//! in the local frame of [`L6Geom`]. The solver applies `-force`, `-torque` to body 1. An
//! elastic law is therefore `force = -K u` component-wise: an overlap (`u.x < 0`) gives a
//! repulsive `force.x > 0`.

use crate::geom::L6Geom;
use crate::math::Vec3;
use abi_stable::StableAbi;

/// Material properties of one body, from the scene.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct Material {
    /// Density, kg/m^3.
    pub density: f64,
    /// Young's modulus, Pa.
    pub young: f64,
    /// Poisson's ratio, dimensionless.
    pub poisson: f64,
    /// Coulomb friction coefficient, dimensionless.
    pub friction: f64,
}

/// The two bodies of a contact as a law sees them (body 1 first, as in the geometry).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct LawPair {
    /// Equivalent radii of body 1 and 2 at the contact, m (`f64::INFINITY` for a wall).
    pub radius: [f64; 2],
    /// Masses of body 1 and 2, kg (`f64::INFINITY` for a body whose translation is fully
    /// blocked, such as a fixed wall).
    pub mass: [f64; 2],
    /// Materials of body 1 and 2.
    pub material: [Material; 2],
}

impl LawPair {
    /// Effective mass `m1 m2 / (m1 + m2)`, kg (the finite mass when the other is infinite).
    pub fn effective_mass(&self) -> f64 {
        harmonic(self.mass[0], self.mass[1])
    }

    /// Effective radius `r1 r2 / (r1 + r2)`, m (the finite radius against a wall).
    pub fn effective_radius(&self) -> f64 {
        harmonic(self.radius[0], self.radius[1])
    }
}

fn harmonic(a: f64, b: f64) -> f64 {
    match (a.is_finite(), b.is_finite()) {
        (true, true) => a * b / (a + b),
        (true, false) => a,
        (false, true) => b,
        (false, false) => f64::INFINITY,
    }
}

/// Data stored once when the contact began, kept for its whole life.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct Onset {
    /// Time at which the contact was created, s.
    pub time: f64,
    /// Normal relative velocity at onset (pre-impact), m/s: negative when approaching.
    pub normal_velocity: f64,
}

/// Everything a law is given for one contact in one step.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct LawInput {
    /// The contact geometry at time t.
    pub geom: L6Geom,
    /// The two bodies.
    pub pair: LawPair,
    /// Data stored at contact onset.
    pub onset: Onset,
    /// Time step, s.
    pub dt: f64,
    /// `1` on the step the contact was created (its state slots are all zero then), else `0`.
    pub is_new: u32,
    /// `1` on the step the contact ends (the gap reached the interaction distance plus
    /// the hysteresis band), else `0`. The law is called this last time with the geometry of
    /// the step so that it can book the dissipation of the final interval (its force is
    /// gone now: e.g. the second half of a trapezoid rule); the solver applies no force or
    /// torque from this call and takes the elastic energy as released.
    pub is_last: u32,
}

/// What a law returns for one contact.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct LawOutput {
    /// Force of body 1 on body 2 at the contact point, local frame, N.
    pub force: Vec3,
    /// Torque of body 1 on body 2 in addition to the moment of `force` (rolling or twisting
    /// resistance), local frame, N m.
    pub torque: Vec3,
    /// Elastic energy stored in the contact now (not an increment), J.
    pub elastic: f64,
    /// Energy dissipated by friction (plastic slip) during this step, J, >= 0.
    pub friction: f64,
    /// Energy dissipated by viscous damping during this step, J. Booked over the step
    /// (e.g. with the trapezoid rule) a single step's value can be slightly negative; the
    /// sum over a contact's life is >= 0.
    pub damping: f64,
}
