//! Potyondy and Cundall's (2004) parallel bond, `Bond_Parallel`: the cement between two
//! grains as a short elastic beam of circular cross-section, which breaks when its
//! largest tensile or shear stress reaches the cement's strength.
//!
//! **The beam.** Its radius is `R = lambda min(r1, r2)` (`radius_multiplier`), its area
//! `A = pi R^2`, its second moment `I = pi R^4 / 4` and polar moment `J = pi R^4 / 2`. Its
//! stiffnesses per unit area are `kn = E / (r1 + r2)` (`modulus` `E`, the cement's
//! Young's modulus) and `ks = kn / stiffness_ratio`, as Potyondy and Cundall set them.
//! Potyondy and Cundall add the increments of force and moment over each step; the
//! solver's frame is carried along with the pair, so the sums of the increments are the
//! displacements since the bond was made, and the law writes them directly (the same
//! numbers for constant stiffnesses):
//!
//! - normal force `Fn = -kn A (u.x - u0)` (`u0` the gap when the bond was made: a bond is
//!   made unloaded), positive in compression;
//! - shear force `Fs = -ks A (u.y, u.z)`;
//! - twisting moment `Mt = -ks J phi.x`; bending moment `Mb = -kn I (phi.y, phi.z)`.
//!
//! **Breakage.** The largest stresses on the beam's rim are
//! `sigma = kn (u.x - u0) + |Mb| R / I` (tension) and `tau = |Fs| / A + |Mt| R / J`; the
//! bond breaks at the first step where `sigma >= tensile_strength` or
//! `tau >= shear_strength`, and nothing of it is applied from then on. An infinite
//! strength (the default) never breaks.
//!
//! **Energy.** The stored energy is `kn A dn^2 / 2 + ks A |us|^2 / 2 + ks J phit^2 / 2 +
//! kn I |phib|^2 / 2`; the bond dissipates nothing (damp a bonded sample with the scene's
//! `damping`).
//!
//! Reference: D. O. Potyondy and P. A. Cundall, A bonded-particle model for rock, Int. J.
//! Rock Mech. Min. Sci. 41 (2004) 1329-1364, section 2.

use dem_api::sdk::{Bond, Param};
use dem_api::{BondInput, BondOutput, BondStiffness, LawPair, Vec3};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Parameters of [`ParallelBond`].
#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The cement's Young's modulus `E`, Pa: normal stiffness per area `E / (r1 + r2)`.
    pub modulus: f64,
    /// Normal over shear stiffness, `kn / ks`, dimensionless.
    pub stiffness_ratio: f64,
    /// The bond's radius over the smaller sphere's, `lambda`, dimensionless.
    pub radius_multiplier: f64,
    /// Tensile strength, Pa (`inf`: never breaks in tension).
    pub tensile_strength: f64,
    /// Shear strength, Pa (`inf`: never breaks in shear).
    pub shear_strength: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            modulus: 1e9,
            stiffness_ratio: 1.0,
            radius_multiplier: 1.0,
            tensile_strength: f64::INFINITY,
            shear_strength: f64::INFINITY,
        }
    }
}

/// The beam of one bond: its radius and section constants, and its stiffnesses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beam {
    /// Radius `R`, m.
    pub radius: f64,
    /// Area `pi R^2`, m^2.
    pub area: f64,
    /// Second moment of area `pi R^4 / 4`, m^4.
    pub inertia: f64,
    /// Polar moment `pi R^4 / 2`, m^4.
    pub polar: f64,
    /// Normal stiffness per area `kn`, Pa/m.
    pub kn: f64,
    /// Shear stiffness per area `ks`, Pa/m.
    pub ks: f64,
}

/// Potyondy and Cundall's parallel bond (see the crate docs).
pub struct ParallelBond {
    p: Params,
}

impl ParallelBond {
    /// The beam between spheres of radii `r1`, `r2` (m).
    pub fn beam(&self, r1: f64, r2: f64) -> Beam {
        let radius = self.p.radius_multiplier * r1.min(r2);
        let r2_ = radius * radius;
        let kn = self.p.modulus / (r1 + r2);
        Beam {
            radius,
            area: PI * r2_,
            inertia: PI * r2_ * r2_ / 4.0,
            polar: PI * r2_ * r2_ / 2.0,
            kn,
            ks: kn / self.p.stiffness_ratio,
        }
    }
}

fn positive(x: f64) -> bool {
    x > 0.0 && x.is_finite()
}

impl Bond for ParallelBond {
    type Params = Params;
    const NAME: &'static str = "Bond_Parallel";
    const DESCRIPTION: &'static str = "Potyondy and Cundall's (2004) parallel bond: a cement \
        beam of radius lambda min(r1, r2) with normal and shear stiffness per area kn = E / \
        (r1 + r2), ks = kn / stiffness_ratio, carrying normal and shear force, twisting and \
        bending moment; breaks when the largest tensile stress on its rim reaches \
        tensile_strength or the largest shear stress reaches shear_strength.";
    const PARAMS: &'static [Param] = &[
        Param {
            name: "modulus",
            unit: "Pa",
            doc: "the cement's Young's modulus E: normal stiffness per area E / (r1 + r2)",
        },
        Param {
            name: "stiffness_ratio",
            unit: "-",
            doc: "normal over shear stiffness, kn / ks",
        },
        Param {
            name: "radius_multiplier",
            unit: "-",
            doc: "the bond's radius over the smaller sphere's, lambda",
        },
        Param {
            name: "tensile_strength",
            unit: "Pa",
            doc: "the largest tensile stress on the rim it bears (inf: unbreakable)",
        },
        Param {
            name: "shear_strength",
            unit: "Pa",
            doc: "the largest shear stress on the rim it bears (inf: unbreakable)",
        },
    ];
    const STATE: &'static [&'static str] = &["gap0"];

    fn new(p: Params) -> Result<Self, String> {
        let checks = [
            ("modulus", p.modulus, "Pa"),
            ("stiffness_ratio", p.stiffness_ratio, "-"),
            ("radius_multiplier", p.radius_multiplier, "-"),
        ];
        for (name, x, unit) in checks {
            if !positive(x) {
                return Err(format!(
                    "{name} must be positive and finite, {unit}, got {x}"
                ));
            }
        }
        for (name, x) in [
            ("tensile_strength", p.tensile_strength),
            ("shear_strength", p.shear_strength),
        ] {
            if x.is_nan() || x <= 0.0 {
                return Err(format!(
                    "{name} must be positive (inf: unbreakable), Pa, got {x}"
                ));
            }
        }
        Ok(ParallelBond { p })
    }

    fn stiffness(&self, pair: &LawPair) -> BondStiffness {
        let b = self.beam(pair.radius[0], pair.radius[1]);
        BondStiffness {
            normal: b.kn * b.area,
            shear: b.ks * b.area,
            twist: b.ks * b.polar,
            bending: b.kn * b.inertia,
        }
    }

    fn bond(&self, input: &BondInput, state: &mut [f64]) -> BondOutput {
        let g = &input.geom;
        if input.is_new != 0 {
            state[0] = g.u.x;
        }
        let b = self.beam(input.pair.radius[0], input.pair.radius[1]);
        let dn = g.u.x - state[0];
        let (us, phi) = (Vec3::new(0.0, g.u.y, g.u.z), g.phi);
        let force = Vec3::new(
            -b.kn * b.area * dn,
            -b.ks * b.area * us.y,
            -b.ks * b.area * us.z,
        );
        let torque = Vec3::new(
            -b.ks * b.polar * phi.x,
            -b.kn * b.inertia * phi.y,
            -b.kn * b.inertia * phi.z,
        );
        let bending = (torque.y * torque.y + torque.z * torque.z).sqrt();
        let sigma = b.kn * dn + bending * b.radius / b.inertia;
        let tau = (force.y * force.y + force.z * force.z).sqrt() / b.area
            + torque.x.abs() * b.radius / b.polar;
        let elastic = 0.5
            * (b.kn * b.area * dn * dn
                + b.ks * b.area * (us.y * us.y + us.z * us.z)
                + b.ks * b.polar * phi.x * phi.x
                + b.kn * b.inertia * (phi.y * phi.y + phi.z * phi.z));
        let broken = sigma >= self.p.tensile_strength || tau >= self.p.shear_strength;
        BondOutput {
            force,
            torque,
            elastic,
            damping: 0.0,
            broken: broken as u32,
        }
    }
}

dem_api::export_plugin! { geometry: [], laws: [], bonds: [ParallelBond] }

#[cfg(test)]
mod tests {
    use super::*;

    fn law(tensile: f64, shear: f64) -> ParallelBond {
        ParallelBond::new(Params {
            modulus: 2e9,
            stiffness_ratio: 2.0,
            radius_multiplier: 0.5,
            tensile_strength: tensile,
            shear_strength: shear,
        })
        .unwrap()
    }

    fn input(u: [f64; 3], phi: [f64; 3], is_new: u32) -> BondInput {
        let mut i = BondInput::default();
        i.pair.radius = [1e-3, 2e-3];
        i.geom.u = Vec3::new(u[0], u[1], u[2]);
        i.geom.phi = Vec3::new(phi[0], phi[1], phi[2]);
        i.is_new = is_new;
        i
    }

    #[test]
    fn the_beam_has_the_section_constants_of_a_disc() {
        let b = law(1.0, 1.0).beam(1e-3, 2e-3);
        let r = 0.5e-3;
        assert_eq!(b.radius, r);
        assert!((b.area / (PI * r * r) - 1.0).abs() < 1e-15);
        assert!((b.inertia / (PI * r.powi(4) / 4.0) - 1.0).abs() < 1e-15);
        assert!((b.polar / (2.0 * b.inertia) - 1.0).abs() < 1e-15);
        assert!((b.kn - 2e9 / 3e-3).abs() < 1e-3 && (b.ks - b.kn / 2.0).abs() < 1e-3);
    }

    #[test]
    fn forces_moments_and_energy_are_those_of_the_displacements_since_creation() {
        let l = law(f64::INFINITY, f64::INFINITY);
        let b = l.beam(1e-3, 2e-3);
        let mut s = [0.0];
        l.bond(&input([1e-6, 0.0, 0.0], [0.0; 3], 1), &mut s);
        assert_eq!(s[0], 1e-6, "made unloaded at its first gap");
        let o = l.bond(&input([1.5e-6, 2e-7, -1e-7], [1e-3, 2e-3, 0.0], 0), &mut s);
        let an = b.kn * b.area;
        assert!(
            (o.force.x + an * 0.5e-6).abs() < 1e-12 * an,
            "a stretched bond pulls back"
        );
        assert!((o.force.y + b.ks * b.area * 2e-7).abs() < 1e-15);
        assert!((o.torque.x + b.ks * b.polar * 1e-3).abs() < 1e-18);
        assert!((o.torque.y + b.kn * b.inertia * 2e-3).abs() < 1e-18);
        let e = 0.5 * an * 0.25e-12
            + 0.5 * b.ks * b.area * 5e-14
            + 0.5 * b.ks * b.polar * 1e-6
            + 0.5 * b.kn * b.inertia * 4e-6;
        assert!((o.elastic / e - 1.0).abs() < 1e-12);
        assert_eq!(o.broken, 0);
    }

    #[test]
    fn it_breaks_at_its_tensile_and_at_its_shear_strength() {
        let l = law(1e6, 2e6);
        let b = l.beam(1e-3, 2e-3);
        let at = |u: [f64; 3], phi: [f64; 3]| {
            let mut s = [0.0];
            l.bond(&input(u, phi, 0), &mut s).broken
        };
        // Tension: kn dn against 1 MPa.
        let dn = 1e6 / b.kn;
        assert_eq!(at([dn * 0.999, 0.0, 0.0], [0.0; 3]), 0);
        assert_eq!(at([dn * 1.001, 0.0, 0.0], [0.0; 3]), 1);
        // Bending alone: kn I phi R / I = kn R phi.
        let phi = 1e6 / (b.kn * b.radius);
        assert_eq!(at([0.0; 3], [0.0, phi * 0.999, 0.0]), 0);
        assert_eq!(at([0.0; 3], [0.0, 0.0, phi * 1.001]), 1);
        // Shear: ks |us| against 2 MPa; twist: ks J phi R / J = ks R phi.
        let us = 2e6 / b.ks;
        assert_eq!(at([0.0, us * 0.6 * 0.999, us * 0.8 * 0.999], [0.0; 3]), 0);
        assert_eq!(at([0.0, us * 0.6 * 1.001, us * 0.8 * 1.001], [0.0; 3]), 1);
        let phit = 2e6 / (b.ks * b.radius);
        assert_eq!(at([0.0; 3], [phit * 1.001, 0.0, 0.0]), 1);
        // A compressed bond does not break in tension.
        assert_eq!(at([-10.0 * dn, 0.0, 0.0], [0.0; 3]), 0);
    }

    #[test]
    fn bad_parameters_are_refused_with_their_name() {
        let bad = |p: Params| ParallelBond::new(p).err().unwrap();
        let d = Params::default();
        assert!(bad(Params { modulus: 0.0, ..d }).contains("modulus"));
        assert!(bad(Params {
            stiffness_ratio: f64::NAN,
            ..d
        })
        .contains("stiffness_ratio"));
        assert!(bad(Params {
            tensile_strength: -1.0,
            ..d
        })
        .contains("tensile_strength"));
        let text = dem_api::sdk::parse_params::<Params>("(tensile_strength: inf)");
        assert_eq!(text.unwrap().tensile_strength, f64::INFINITY);
    }
}
