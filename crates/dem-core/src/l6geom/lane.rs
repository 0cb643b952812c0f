//! The number types the L6Geom update is written over: `f64` for one contact, [`F64x4`]
//! for four contacts at once. Every operation is the IEEE operation lane by lane, so that
//! four contacts updated together give bitwise what each gives alone; the compiler turns
//! the four-lane loops into vector instructions (SSE2, or AVX2 and AVX-512 in the versions
//! chosen at run time, see [`super::update`]).

use std::ops::{Add, Div, Mul, Neg, Sub};

/// A number, or a lane of numbers, with lane-wise arithmetic, square root and selection.
pub(crate) trait Lane:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A truth value per lane.
    type Mask: Copy;
    /// Every lane `x`.
    fn splat(x: f64) -> Self;
    /// Lane-wise square root.
    fn sqrt(self) -> Self;
    /// Lane-wise `self > other`.
    fn gt(self, other: Self) -> Self::Mask;
    /// Lane-wise `self < other`.
    fn lt(self, other: Self) -> Self::Mask;
    /// Lane-wise "finite".
    fn finite(self) -> Self::Mask;
    /// Lane-wise `a && b`.
    fn and(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// Lane-wise `m ? a : b`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
}

impl Lane for f64 {
    type Mask = bool;
    #[inline(always)]
    fn splat(x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn gt(self, o: f64) -> bool {
        self > o
    }
    #[inline(always)]
    fn lt(self, o: f64) -> bool {
        self < o
    }
    #[inline(always)]
    fn finite(self) -> bool {
        self.is_finite()
    }
    #[inline(always)]
    fn and(a: bool, b: bool) -> bool {
        a && b
    }
    #[inline(always)]
    fn select(m: bool, a: f64, b: f64) -> f64 {
        if m {
            a
        } else {
            b
        }
    }
}

/// Four `f64` lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct F64x4(pub [f64; 4]);

macro_rules! lanewise {
    ($tr:ident, $f:ident, $op:tt) => {
        impl $tr for F64x4 {
            type Output = F64x4;
            #[inline(always)]
            fn $f(self, o: F64x4) -> F64x4 {
                let (a, b) = (self.0, o.0);
                F64x4([a[0] $op b[0], a[1] $op b[1], a[2] $op b[2], a[3] $op b[3]])
            }
        }
    };
}
lanewise!(Add, add, +);
lanewise!(Sub, sub, -);
lanewise!(Mul, mul, *);
lanewise!(Div, div, /);

impl Neg for F64x4 {
    type Output = F64x4;
    #[inline(always)]
    fn neg(self) -> F64x4 {
        F64x4(self.0.map(|x| -x))
    }
}

impl Lane for F64x4 {
    type Mask = [bool; 4];
    #[inline(always)]
    fn splat(x: f64) -> F64x4 {
        F64x4([x; 4])
    }
    #[inline(always)]
    fn sqrt(self) -> F64x4 {
        F64x4(self.0.map(f64::sqrt))
    }
    #[inline(always)]
    fn gt(self, o: F64x4) -> [bool; 4] {
        std::array::from_fn(|i| self.0[i] > o.0[i])
    }
    #[inline(always)]
    fn lt(self, o: F64x4) -> [bool; 4] {
        std::array::from_fn(|i| self.0[i] < o.0[i])
    }
    #[inline(always)]
    fn finite(self) -> [bool; 4] {
        self.0.map(f64::is_finite)
    }
    #[inline(always)]
    fn and(a: [bool; 4], b: [bool; 4]) -> [bool; 4] {
        std::array::from_fn(|i| a[i] & b[i])
    }
    #[inline(always)]
    fn select(m: [bool; 4], a: F64x4, b: F64x4) -> F64x4 {
        F64x4(std::array::from_fn(|i| if m[i] { a.0[i] } else { b.0[i] }))
    }
}
