//! `#[repr(C)]` math types that cross the plugin boundary, with zero-copy views as
//! nalgebra types. Every type is plain old data (`bytemuck::Pod`) of `f64` components.
//!
//! Storage orders match nalgebra exactly, which the compile-time checks at the bottom of
//! this file verify: [`Vec3`] is `[x, y, z]`, [`Quat`] is `[i, j, k, w]` (nalgebra's
//! `Quaternion::coords` order, *not* `[w, x, y, z]`), and [`Mat3`] is column-major.

use abi_stable::StableAbi;
use bytemuck::{Pod, Zeroable};
use nalgebra as na;

/// A 3-vector of `f64`. Units are those of the quantity it holds (documented at each use).
#[repr(C)]
#[derive(StableAbi, Pod, Zeroable, Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    /// First component.
    pub x: f64,
    /// Second component.
    pub y: f64,
    /// Third component.
    pub z: f64,
}

/// A quaternion stored `[i, j, k, w]` (nalgebra's order). Orientations are unit quaternions
/// rotating body-frame vectors into the global frame.
#[repr(C)]
#[derive(StableAbi, Pod, Zeroable, Clone, Copy, Debug, PartialEq)]
pub struct Quat {
    /// Imaginary part, first component.
    pub i: f64,
    /// Imaginary part, second component.
    pub j: f64,
    /// Imaginary part, third component.
    pub k: f64,
    /// Real part.
    pub w: f64,
}

/// A 3x3 matrix of `f64`, stored column-major (`cols[c]` is column `c`), as nalgebra does.
#[repr(C)]
#[derive(StableAbi, Pod, Zeroable, Clone, Copy, Debug, Default, PartialEq)]
pub struct Mat3 {
    /// The three columns.
    pub cols: [Vec3; 3],
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Vec3 = Vec3::new(0.0, 0.0, 0.0);

    /// Builds a vector from its components.
    #[inline]
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Vec3 { x, y, z }
    }

    /// Zero-copy view as a nalgebra vector.
    #[inline]
    pub fn na(&self) -> &na::Vector3<f64> {
        bytemuck::cast_ref(self)
    }

    /// Zero-copy mutable view as a nalgebra vector.
    #[inline]
    pub fn na_mut(&mut self) -> &mut na::Vector3<f64> {
        bytemuck::cast_mut(self)
    }

    /// True when every component is finite.
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
}

impl Quat {
    /// The identity rotation.
    pub const IDENTITY: Quat = Quat {
        i: 0.0,
        j: 0.0,
        k: 0.0,
        w: 1.0,
    };

    /// Zero-copy view as a nalgebra quaternion (not checked to be of unit norm).
    #[inline]
    pub fn na(&self) -> &na::Quaternion<f64> {
        bytemuck::cast_ref(self)
    }

    /// The rotation as a nalgebra unit quaternion (copied; the caller asserts unit norm).
    #[inline]
    pub fn unit(&self) -> na::UnitQuaternion<f64> {
        na::UnitQuaternion::new_unchecked(*self.na())
    }
}

impl Default for Quat {
    #[inline]
    fn default() -> Self {
        Quat::IDENTITY
    }
}

impl Mat3 {
    /// The identity matrix.
    pub const IDENTITY: Mat3 = Mat3 {
        cols: [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ],
    };

    /// Zero-copy view as a nalgebra matrix.
    #[inline]
    pub fn na(&self) -> &na::Matrix3<f64> {
        bytemuck::cast_ref(self)
    }

    /// Zero-copy mutable view as a nalgebra matrix.
    #[inline]
    pub fn na_mut(&mut self) -> &mut na::Matrix3<f64> {
        bytemuck::cast_mut(self)
    }

    /// Row `r` (0, 1 or 2) as a vector.
    #[inline]
    pub fn row(&self, r: usize) -> Vec3 {
        Vec3::new(self.cols[0].at(r), self.cols[1].at(r), self.cols[2].at(r))
    }
}

impl Vec3 {
    #[inline]
    fn at(&self, r: usize) -> f64 {
        match r {
            0 => self.x,
            1 => self.y,
            _ => self.z,
        }
    }
}

impl From<na::Vector3<f64>> for Vec3 {
    #[inline]
    fn from(v: na::Vector3<f64>) -> Self {
        bytemuck::cast(v)
    }
}

impl From<Vec3> for na::Vector3<f64> {
    #[inline]
    fn from(v: Vec3) -> Self {
        bytemuck::cast(v)
    }
}

impl From<na::Quaternion<f64>> for Quat {
    #[inline]
    fn from(q: na::Quaternion<f64>) -> Self {
        bytemuck::cast(q)
    }
}

impl From<na::UnitQuaternion<f64>> for Quat {
    #[inline]
    fn from(q: na::UnitQuaternion<f64>) -> Self {
        bytemuck::cast(q.into_inner())
    }
}

impl From<Quat> for na::Quaternion<f64> {
    #[inline]
    fn from(q: Quat) -> Self {
        bytemuck::cast(q)
    }
}

impl From<na::Matrix3<f64>> for Mat3 {
    #[inline]
    fn from(m: na::Matrix3<f64>) -> Self {
        bytemuck::cast(m)
    }
}

impl From<Mat3> for na::Matrix3<f64> {
    #[inline]
    fn from(m: Mat3) -> Self {
        bytemuck::cast(m)
    }
}

// Compile-time layout checks: the zero-copy casts above rely on these.
const _: () = {
    use core::mem::{align_of, size_of};
    assert!(size_of::<Vec3>() == size_of::<na::Vector3<f64>>());
    assert!(align_of::<Vec3>() == align_of::<na::Vector3<f64>>());
    assert!(size_of::<Quat>() == size_of::<na::Quaternion<f64>>());
    assert!(size_of::<Mat3>() == size_of::<na::Matrix3<f64>>());
    assert!(size_of::<Vec3>() == 24 && size_of::<Quat>() == 32 && size_of::<Mat3>() == 72);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_orders_match_nalgebra() {
        let q = na::UnitQuaternion::from_axis_angle(&na::Vector3::z_axis(), 0.3);
        let ours = Quat::from(q);
        assert_eq!(ours.w, q.w);
        assert_eq!(ours.k, q.k);
        let m = na::Matrix3::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);
        let ours = Mat3::from(m);
        assert_eq!(ours.row(0), Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(ours.cols[0], Vec3::new(1.0, 4.0, 7.0));
        assert_eq!(*ours.na(), m);
    }
}
