//! Heat conduction through the contact area (Batchelor and O'Brien 1977): the field
//! `temperature` (K, specific heat in J/(kg K)) and its exchange `Exchange_HeatConduction`.
//!
//! Two smooth elastic spheres pressed together touch over a disc of radius `a`. When the
//! solid conducts far better than the gas around it, the heat that crosses from one to
//! the other flows through that disc, and the conductance of the contact is
//! `H = 2 k a` (Batchelor and O'Brien 1977), `k` the solid's conductivity. The
//! flow from body 1 to body 2 is `H (T1 - T2)`.
//!
//! The contact radius is taken from the overlap the contact's geometry reports, as
//! Hertz's theory relates them: `a = sqrt(R* delta)`, `R* = R1 R2 / (R1 + R2)` the
//! effective radius (the sphere's own radius against a wall) and `delta` the overlap.
//! With a linear law the overlap is larger than Hertz's for the same load, and so is `a`:
//! the scene's stiffness sets the contact area, as in every DEM model of this kind. A
//! contact within its hysteresis band (touching, no overlap) conducts nothing.

use dem_api::sdk::{Exchange, Field, Param};
use dem_api::{ExchangeInput, ExchangeOutput, LawPair};
use serde::{Deserialize, Serialize};

/// Parameters of [`HeatConduction`].
#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Thermal conductivity of the solid, W/(m K); for two materials of conductivities
    /// `k1`, `k2`, the series value `2 k1 k2 / (k1 + k2)`.
    pub conductivity: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { conductivity: 1.0 }
    }
}

/// Conduction through the contact disc: `Q = 2 k a (T1 - T2)`, `a = sqrt(R* delta)`.
pub struct HeatConduction {
    conductivity: f64,
}

impl HeatConduction {
    /// Conductance of a contact of overlap `overlap` (m) between the bodies of `pair`
    /// (their equivalent radii at the contact: `R*` is `pair.effective_radius()`), W/K.
    pub fn conductance(&self, pair: &LawPair, overlap: f64) -> f64 {
        if overlap <= 0.0 {
            return 0.0;
        }
        2.0 * self.conductivity * (pair.effective_radius() * overlap).sqrt()
    }
}

impl Exchange for HeatConduction {
    type Params = Params;
    const NAME: &'static str = "Exchange_HeatConduction";
    const FIELD: Field = Field {
        name: "temperature",
        unit: "K",
        capacity_unit: "J/(kg K)",
        flow_unit: "W",
    };
    const DESCRIPTION: &'static str = "Heat conduction through the contact disc (Batchelor and \
        O'Brien 1977): conductance H = 2 k a, a = sqrt(R* delta) the contact radius from the \
        overlap; flow H (T1 - T2) from body 1 to body 2. No conduction without overlap.";
    const PARAMS: &'static [Param] = &[Param {
        name: "conductivity",
        unit: "W/(m K)",
        doc: "thermal conductivity k of the solid (two materials: 2 k1 k2 / (k1 + k2))",
    }];

    fn new(p: Params) -> Result<Self, String> {
        if !(p.conductivity >= 0.0 && p.conductivity.is_finite()) {
            return Err(format!(
                "conductivity must be finite and >= 0, W/(m K), got {}",
                p.conductivity
            ));
        }
        Ok(HeatConduction {
            conductivity: p.conductivity,
        })
    }

    /// The contact disc is no wider than the smaller body: `H <= 2 k min(R1, R2)`.
    fn conductance_bound(&self, pair: &LawPair) -> Option<f64> {
        Some(2.0 * self.conductivity * pair.radius[0].min(pair.radius[1]))
    }

    fn exchange(&self, input: &ExchangeInput) -> ExchangeOutput {
        let c = &input.contact;
        let h = self.conductance(&c.pair, -c.geom.u.x);
        ExchangeOutput {
            flow: h * (input.value[0] - input.value[1]),
            conductance: h,
        }
    }
}

dem_api::export_plugin! { geometry: [], laws: [], exchanges: [HeatConduction] }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conductance_is_twice_k_times_the_hertz_contact_radius() {
        let h = HeatConduction::new(Params { conductivity: 3.0 }).unwrap();
        let pair = |radius| LawPair {
            radius,
            ..LawPair::default()
        };
        // Two spheres of 2 mm: R* = 1 mm; overlap 4 um: a = sqrt(1e-3 * 4e-6) = 6.32e-5 m.
        let a = (1e-3f64 * 4e-6).sqrt();
        assert!((h.conductance(&pair([2e-3, 2e-3]), 4e-6) - 6.0 * a).abs() < 1e-15);
        // Against a wall, R* is the sphere's radius.
        let a = (2e-3f64 * 4e-6).sqrt();
        assert!((h.conductance(&pair([f64::INFINITY, 2e-3]), 4e-6) - 6.0 * a).abs() < 1e-15);
        assert_eq!(h.conductance(&pair([2e-3, 2e-3]), -1e-9), 0.0);
    }

    #[test]
    fn heat_flows_from_hot_to_cold() {
        let h = HeatConduction::new(Params { conductivity: 1.0 }).unwrap();
        let mut input = ExchangeInput::default();
        input.contact.pair.radius = [1e-3, 1e-3];
        input.contact.geom.u.x = -1e-6;
        input.value = [400.0, 300.0];
        let out = h.exchange(&input);
        assert!(out.flow > 0.0 && (out.flow - out.conductance * 100.0).abs() < 1e-15);
        assert!(HeatConduction::new(Params { conductivity: -1.0 }).is_err());
    }
}
