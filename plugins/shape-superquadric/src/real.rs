//! Numbers the support map is written over: `f64` for the support point, and [`Dual`]
//! (a value and its derivatives along two directions, forward mode) for its Jacobian,
//! which Newton's method needs exactly: differences of support points lose the valleys
//! of a blocky body's support function to round-off.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// The arithmetic the support map uses.
pub trait Real:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A constant.
    fn constant(x: f64) -> Self;
    /// The value.
    fn value(self) -> f64;
    /// `|self|^p`.
    fn abs_pow(self, p: f64) -> Self;
    /// `|self|^p` with the sign of `self`.
    fn signed_pow(self, p: f64) -> Self {
        let m = self.abs_pow(p);
        if self.value() < 0.0 {
            -m
        } else {
            m
        }
    }
}

impl Real for f64 {
    fn constant(x: f64) -> f64 {
        x
    }
    fn value(self) -> f64 {
        self
    }
    fn abs_pow(self, p: f64) -> f64 {
        power(self.abs(), p)
    }
}

/// `a^p` for `a >= 0` (0 at 0, for the `p > 0` of the support map), as `2^(p log2 a)`:
/// within a few units in the last place where `|p log2 a|` is small (the components that
/// matter), and about 1.5 times faster than `powf`, which was two thirds of a blocky
/// heap's run time.
#[inline]
fn power(a: f64, p: f64) -> f64 {
    (p * a.log2()).exp2()
}

/// A value with its derivatives along two directions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dual {
    /// The value.
    pub v: f64,
    /// Its derivatives.
    pub d: [f64; 2],
}

/// Largest derivative factor of a power below 1 at 0, where it is infinite (the flat
/// middle of a blocky face: zero curvature, infinite radius): kept finite.
const STEEPEST: f64 = 1e12;

impl Real for Dual {
    fn constant(x: f64) -> Dual {
        Dual { v: x, d: [0.0; 2] }
    }
    fn value(self) -> f64 {
        self.v
    }
    fn abs_pow(self, p: f64) -> Dual {
        let a = self.v.abs();
        let v = power(a, p);
        // d|x|^p = p |x|^(p-1) sign(x) dx.
        let k = if a > 0.0 {
            (p * v / a).min(STEEPEST)
        } else if p < 1.0 {
            STEEPEST
        } else if p == 1.0 {
            1.0
        } else {
            0.0
        };
        let k = if self.v < 0.0 { -k } else { k };
        Dual {
            v,
            d: [k * self.d[0], k * self.d[1]],
        }
    }
}

impl Add for Dual {
    type Output = Dual;
    fn add(self, o: Dual) -> Dual {
        Dual {
            v: self.v + o.v,
            d: [self.d[0] + o.d[0], self.d[1] + o.d[1]],
        }
    }
}

impl Sub for Dual {
    type Output = Dual;
    fn sub(self, o: Dual) -> Dual {
        Dual {
            v: self.v - o.v,
            d: [self.d[0] - o.d[0], self.d[1] - o.d[1]],
        }
    }
}

impl Mul for Dual {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual {
            v: self.v * o.v,
            d: [
                self.d[0] * o.v + self.v * o.d[0],
                self.d[1] * o.v + self.v * o.d[1],
            ],
        }
    }
}

impl Div for Dual {
    type Output = Dual;
    fn div(self, o: Dual) -> Dual {
        let v = self.v / o.v;
        Dual {
            v,
            d: [
                (self.d[0] - v * o.d[0]) / o.v,
                (self.d[1] - v * o.d[1]) / o.v,
            ],
        }
    }
}

impl Neg for Dual {
    type Output = Dual;
    fn neg(self) -> Dual {
        Dual {
            v: -self.v,
            d: [-self.d[0], -self.d[1]],
        }
    }
}
