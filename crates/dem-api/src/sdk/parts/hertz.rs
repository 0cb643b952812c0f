//! The Hertz normal force of two elastic spheres.

use super::material::effective_young;
use crate::lane::Lane;
use crate::law::LawPair;

/// Hertz contact: `F = kh delta^(3/2)`, `kh = (4/3) E* sqrt(R*)`; the tangent stiffness is
/// `S_n = dF/d delta = 2 E* sqrt(R* delta)` and the stored energy `(2/5) kh delta^(5/2)`.
/// `delta` is the overlap (m, positive in contact).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hertz<V: Lane = f64> {
    /// `(4/3) E* sqrt(R*)`, N/m^(3/2).
    pub kh: V,
}

impl Hertz {
    /// The Hertz coefficient of a pair (a wall has infinite radius: `R*` is the sphere's).
    pub fn of(pair: &LawPair) -> Hertz {
        Hertz {
            kh: 4.0 / 3.0 * effective_young(pair) * pair.effective_radius().sqrt(),
        }
    }
}

impl<V: Lane> Hertz<V> {
    /// Force at overlap `delta`, N (0 when `delta <= 0`).
    #[inline(always)]
    pub fn force(&self, delta: V) -> V {
        let zero = V::splat(0.0);
        V::select(delta.gt(zero), self.kh * delta * delta.sqrt(), zero)
    }

    /// Tangent stiffness `S_n` at overlap `delta`, N/m.
    #[inline(always)]
    pub fn stiffness(&self, delta: V) -> V {
        V::splat(1.5) * self.kh * delta.max(V::splat(0.0)).sqrt()
    }

    /// Stored elastic energy at overlap `delta`, J.
    #[inline(always)]
    pub fn energy(&self, delta: V) -> V {
        V::splat(0.4) * self.force(delta) * delta.max(V::splat(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stiffness_and_energy_are_consistent_with_the_force() {
        let h = Hertz { kh: 3.0e9 };
        let d = 2.0e-4;
        let eps = 1e-9;
        let slope = (h.force(d + eps) - h.force(d - eps)) / (2.0 * eps);
        assert!((slope / h.stiffness(d) - 1.0).abs() < 1e-8);
        let de = (h.energy(d + eps) - h.energy(d - eps)) / (2.0 * eps);
        assert!((de / h.force(d) - 1.0).abs() < 1e-8);
        assert_eq!(h.force(-1e-6), 0.0);
        assert_eq!(h.energy(-1e-6), 0.0);
    }
}
