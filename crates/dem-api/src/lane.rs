//! Lanes: the number types that code written once for one contact and for several contacts
//! at a time is written over. `f64` is one contact; [`F64x4`] is four. Every operation is
//! the IEEE operation lane by lane, so that four contacts computed together give bitwise
//! what each gives alone; a loop over [`F64x4`] compiles to vector instructions (SSE2, or
//! AVX2 and AVX-512 in a function compiled for them and chosen at run time).
//!
//! The solver's L6Geom update and the SDK's law parts ([`crate::sdk::parts`]) are written
//! over [`Lane`]; so is a law that implements [`crate::sdk::LaneLaw`]. Branches of scalar
//! code become selections: `if c { a } else { b }` is `V::select(cond, a, b)`, both sides
//! computed (a side that is not taken may hold NaN or infinity; it is never selected).

use std::ops::{Add, Div, Mul, Neg, Sub};

/// A number, or a lane of numbers, with lane-wise arithmetic, comparison and selection.
pub trait Lane:
    Copy
    + Send
    + Sync
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A truth value per lane.
    type Mask: Copy;
    /// Number of lanes.
    const LANES: usize;
    /// Every lane `x`.
    fn splat(x: f64) -> Self;
    /// Lane `i` is `f(i)`.
    fn from_fn(f: impl FnMut(usize) -> f64) -> Self;
    /// Lane `i` (`i < LANES`).
    fn lane(self, i: usize) -> f64;
    /// Lane-wise square root.
    fn sqrt(self) -> Self;
    /// Lane-wise `f64::max` (a NaN lane takes the other value).
    fn max(self, o: Self) -> Self;
    /// Lane-wise `f64::min`.
    fn min(self, o: Self) -> Self;
    /// Lane-wise absolute value.
    fn abs(self) -> Self;
    /// Lane-wise `self > o`.
    fn gt(self, o: Self) -> Self::Mask;
    /// Lane-wise `self < o`.
    fn lt(self, o: Self) -> Self::Mask;
    /// Lane-wise `self != o`.
    fn ne(self, o: Self) -> Self::Mask;
    /// Lane-wise "finite".
    fn finite(self) -> Self::Mask;
    /// Every lane `b`.
    fn mask(b: bool) -> Self::Mask;
    /// Lane-wise `a && b`.
    fn and(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// Lane-wise `a || b`.
    fn or(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// Lane-wise `!m`.
    fn not(m: Self::Mask) -> Self::Mask;
    /// Lane-wise `m ? a : b`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// Is `m` true in any lane? (To skip work that no lane selects.)
    fn any(m: Self::Mask) -> bool;
    /// Sum of `f(i)` for `i < n`, left to right from `-0.0` (as `Iterator::sum` of `f64`).
    #[inline(always)]
    fn sum(n: usize, mut f: impl FnMut(usize) -> Self) -> Self {
        let mut s = Self::splat(-0.0);
        for i in 0..n {
            s = s + f(i);
        }
        s
    }
}

impl Lane for f64 {
    type Mask = bool;
    const LANES: usize = 1;
    #[inline(always)]
    fn splat(x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> f64) -> f64 {
        f(0)
    }
    #[inline(always)]
    fn lane(self, _: usize) -> f64 {
        self
    }
    #[inline(always)]
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn max(self, o: f64) -> f64 {
        f64::max(self, o)
    }
    #[inline(always)]
    fn min(self, o: f64) -> f64 {
        f64::min(self, o)
    }
    #[inline(always)]
    fn abs(self) -> f64 {
        f64::abs(self)
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
    fn ne(self, o: f64) -> bool {
        self != o
    }
    #[inline(always)]
    fn finite(self) -> bool {
        self.is_finite()
    }
    #[inline(always)]
    fn mask(b: bool) -> bool {
        b
    }
    #[inline(always)]
    fn and(a: bool, b: bool) -> bool {
        a && b
    }
    #[inline(always)]
    fn or(a: bool, b: bool) -> bool {
        a || b
    }
    #[inline(always)]
    fn not(m: bool) -> bool {
        !m
    }
    #[inline(always)]
    fn select(m: bool, a: f64, b: f64) -> f64 {
        if m {
            a
        } else {
            b
        }
    }
    #[inline(always)]
    fn any(m: bool) -> bool {
        m
    }
}

/// Four `f64` lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub struct F64x4(pub [f64; 4]);

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

impl F64x4 {
    /// The four values of `s` from `at`: one vector load (one bounds test, no length check
    /// of a conversion).
    #[inline(always)]
    pub fn load(s: &[f64], at: usize) -> F64x4 {
        let v = &s[at..at + 4];
        F64x4([v[0], v[1], v[2], v[3]])
    }

    /// Stores the four lanes into `s` from `at`.
    #[inline(always)]
    pub fn store(self, s: &mut [f64], at: usize) {
        let v = &mut s[at..at + 4];
        v[0] = self.0[0];
        v[1] = self.0[1];
        v[2] = self.0[2];
        v[3] = self.0[3];
    }

    #[inline(always)]
    fn zip(self, o: F64x4, f: impl Fn(f64, f64) -> f64) -> F64x4 {
        F64x4(std::array::from_fn(|i| f(self.0[i], o.0[i])))
    }

    #[inline(always)]
    fn test(self, o: F64x4, f: impl Fn(f64, f64) -> bool) -> M64x4 {
        M64x4::from_fn(|i| f(self.0[i], o.0[i]))
    }
}

/// The truth values of four lanes, as vector comparisons give them: each lane all ones
/// (true) or all zeros (false), so that selecting by them is a bitwise blend and code over
/// [`F64x4`] stays in vector registers. (A mask of four `bool`s was taken apart lane by
/// lane: half the instructions of the solver's L6Geom update were moves.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct M64x4(pub [u64; 4]);

impl M64x4 {
    /// Lane `i` is `f(i)`.
    #[inline(always)]
    pub fn from_fn(mut f: impl FnMut(usize) -> bool) -> M64x4 {
        M64x4(std::array::from_fn(|i| 0u64.wrapping_sub(u64::from(f(i)))))
    }

    /// Lane `i` (`i < 4`).
    #[inline(always)]
    pub fn lane(self, i: usize) -> bool {
        self.0[i] != 0
    }
}

impl Lane for F64x4 {
    type Mask = M64x4;
    const LANES: usize = 4;
    #[inline(always)]
    fn splat(x: f64) -> F64x4 {
        F64x4([x; 4])
    }
    #[inline(always)]
    fn from_fn(f: impl FnMut(usize) -> f64) -> F64x4 {
        F64x4(std::array::from_fn(f))
    }
    #[inline(always)]
    fn lane(self, i: usize) -> f64 {
        self.0[i]
    }
    #[inline(always)]
    fn sqrt(self) -> F64x4 {
        F64x4(self.0.map(f64::sqrt))
    }
    #[inline(always)]
    fn max(self, o: F64x4) -> F64x4 {
        self.zip(o, f64::max)
    }
    #[inline(always)]
    fn min(self, o: F64x4) -> F64x4 {
        self.zip(o, f64::min)
    }
    #[inline(always)]
    fn abs(self) -> F64x4 {
        F64x4(self.0.map(f64::abs))
    }
    #[inline(always)]
    fn gt(self, o: F64x4) -> M64x4 {
        self.test(o, |a, b| a > b)
    }
    #[inline(always)]
    fn lt(self, o: F64x4) -> M64x4 {
        self.test(o, |a, b| a < b)
    }
    #[inline(always)]
    fn ne(self, o: F64x4) -> M64x4 {
        self.test(o, |a, b| a != b)
    }
    #[inline(always)]
    fn finite(self) -> M64x4 {
        // |x| < inf is false for NaN and for both infinities: one compare per lane.
        self.abs().test(F64x4::splat(f64::INFINITY), |a, b| a < b)
    }
    #[inline(always)]
    fn mask(b: bool) -> M64x4 {
        M64x4::from_fn(|_| b)
    }
    #[inline(always)]
    fn and(a: M64x4, b: M64x4) -> M64x4 {
        M64x4(std::array::from_fn(|i| a.0[i] & b.0[i]))
    }
    #[inline(always)]
    fn or(a: M64x4, b: M64x4) -> M64x4 {
        M64x4(std::array::from_fn(|i| a.0[i] | b.0[i]))
    }
    #[inline(always)]
    fn not(m: M64x4) -> M64x4 {
        M64x4(m.0.map(|x| !x))
    }
    #[inline(always)]
    fn select(m: M64x4, a: F64x4, b: F64x4) -> F64x4 {
        // A bitwise blend: the selected lane's bits, whatever they are (NaN included).
        F64x4(std::array::from_fn(|i| {
            f64::from_bits((m.0[i] & a.0[i].to_bits()) | (!m.0[i] & b.0[i].to_bits()))
        }))
    }
    #[inline(always)]
    fn any(m: M64x4) -> bool {
        (m.0[0] | m.0[1] | m.0[2] | m.0[3]) != 0
    }
}
