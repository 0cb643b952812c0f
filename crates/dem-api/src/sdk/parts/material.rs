//! The material-pair step: effective properties of the two bodies of a contact.
//!
//! A law computes these once, when a contact is created (in
//! [`Law::constants`](crate::sdk::Law::constants)), not at every step.

use crate::law::LawPair;

/// Effective Young's modulus `E* = 1 / ((1 - nu1^2)/E1 + (1 - nu2^2)/E2)`, Pa.
pub fn effective_young(pair: &LawPair) -> f64 {
    let c = |i: usize| {
        let m = &pair.material[i];
        (1.0 - m.poisson * m.poisson) / m.young
    };
    1.0 / (c(0) + c(1))
}

/// Effective shear modulus `G* = 1 / ((2 - nu1)/G1 + (2 - nu2)/G2)`,
/// `G_i = E_i / (2 (1 + nu_i))`, Pa (the Mindlin combination).
pub fn effective_shear(pair: &LawPair) -> f64 {
    let c = |i: usize| {
        let m = &pair.material[i];
        let g = m.young / (2.0 * (1.0 + m.poisson));
        (2.0 - m.poisson) / g
    };
    1.0 / (c(0) + c(1))
}

/// Friction coefficient of a pair: the smaller of the two materials'.
pub fn pair_friction(pair: &LawPair) -> f64 {
    pair.material[0].friction.min(pair.material[1].friction)
}

/// Effective moment of inertia for the relative rotation of the two bodies,
/// `I1 I2 / (I1 + I2)`, kg m^2, taking both as solid spheres (`I = 2/5 m r^2`; a body of
/// infinite mass or radius, such as a wall, has infinite inertia). Exact for spheres, an
/// estimate for other shapes: laws use it only to keep explicit integration stable.
pub fn effective_inertia(pair: &LawPair) -> f64 {
    let i = |k: usize| 0.4 * pair.mass[k] * pair.radius[k] * pair.radius[k];
    let (a, b) = (i(0), i(1));
    match (a.is_finite(), b.is_finite()) {
        (true, true) => a * b / (a + b),
        (true, false) => a,
        (false, true) => b,
        (false, false) => f64::INFINITY,
    }
}

/// Effective mass for sliding at the contact point of two solid spheres, `(2/7) m*`, kg:
/// the mass that a tangential force at the contact accelerates, rotation included.
pub fn sliding_mass(pair: &LawPair) -> f64 {
    2.0 / 7.0 * pair.effective_mass()
}

/// Viscous coefficient `2 zeta sqrt(m k)` of damping ratio `zeta` for mass `m` (kg) and
/// stiffness `k` (N/m), N s/m; 0 when `zeta` is 0 or the mass infinite (two bodies that
/// cannot be moved by the contact have nothing to damp, e.g. a fixed sphere on a wall).
pub fn viscous_coefficient(zeta: f64, m: f64, k: f64) -> f64 {
    if zeta == 0.0 || !m.is_finite() {
        0.0
    } else {
        2.0 * zeta * (m * k).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::Material;

    #[test]
    fn glass_on_glass() {
        let glass = Material {
            density: 2800.0,
            young: 4.8e10,
            poisson: 0.2,
            friction: 0.3,
        };
        let pair = LawPair {
            radius: [0.01, 0.01],
            mass: [1.0, 1.0],
            material: [glass, glass],
        };
        // E / (2 (1 - nu^2)) = 4.8e10 / 1.92.
        assert!((effective_young(&pair) / 2.5e10 - 1.0).abs() < 1e-14);
        // G = 2e10, G* = G / (2 (2 - nu)).
        assert!((effective_shear(&pair) / (2e10 / 3.6) - 1.0).abs() < 1e-14);
        assert_eq!(viscous_coefficient(0.0, f64::INFINITY, 1.0), 0.0);
        assert_eq!(viscous_coefficient(0.5, f64::INFINITY, 1.0), 0.0);
        assert_eq!(viscous_coefficient(0.5, 4.0, 1.0), 2.0);
    }
}
