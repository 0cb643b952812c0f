//! The random draws that generators and inlets share: radii from a size distribution
//! ([`size_distribution`]), materials from a mix ([`material_choice`]), orientations
//! (`random_rotation`). Each draw takes the caller's seeded generator, so a scene's
//! particles are the same on every run and every rank.

pub mod material_choice;
pub mod size_distribution;

use nalgebra::{Quaternion, UnitQuaternion};
use rand::Rng;

/// A rotation drawn uniformly from SO(3) (Shoemake's subgroup algorithm).
pub(crate) fn random_rotation(rng: &mut impl Rng) -> UnitQuaternion<f64> {
    let (u1, u2, u3): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let (t2, t3) = (std::f64::consts::TAU * u2, std::f64::consts::TAU * u3);
    UnitQuaternion::from_quaternion(Quaternion::new(
        b * t3.cos(),
        a * t2.sin(),
        a * t2.cos(),
        b * t3.sin(),
    ))
}
