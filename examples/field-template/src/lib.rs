//! A particle field as a plugin, written from `docs/writing-plugins.md` alone: the
//! moisture content of grains (`moisture`, kg of water per kg of solid) and its transfer
//! through the contacts, `Exchange_Moisture`.
//!
//! Water held in a grain's surface film passes to a drier grain it touches, through the
//! contact, at a rate proportional to the contact's radius and to the difference of the
//! two grains' moisture contents: `flow = g a (w1 - w2)`, kg/s, with `a = sqrt(R* delta)`
//! the contact radius from the overlap and `g` a transfer coefficient in kg/(m s). The
//! field's quantity is the water a grain holds, `m w` (kg): its capacity is 1 kg of water
//! per kg of solid per unit of moisture content, the same for every material.
//!
//! Build: `cargo build --release` here; load: `dem run scene.ron --plugin
//! target/release/libfield_template.so`; a scene writes
//! `fields: {"moisture": (capacity: {"grain": 1}, initial: 0.02)}` and
//! `exchanges: [(materials: ("grain", "grain"), exchange: "Exchange_Moisture", params: (g: 1e-3))]`.

use dem_api::sdk::{Exchange, Field, Param};
use dem_api::{ExchangeInput, ExchangeOutput};
use serde::{Deserialize, Serialize};

/// Parameters of [`Moisture`].
#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Transfer coefficient `g`, kg/(m s): the flow per metre of contact radius per unit
    /// of moisture difference.
    pub g: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { g: 1e-3 }
    }
}

/// Moisture transfer through a contact: `flow = g a (w1 - w2)`, `a = sqrt(R* delta)`.
pub struct Moisture {
    g: f64,
}

impl Exchange for Moisture {
    type Params = Params;
    const NAME: &'static str = "Exchange_Moisture";
    const FIELD: Field = Field {
        name: "moisture",
        unit: "kg/kg",
        capacity_unit: "-",
        flow_unit: "kg/s",
    };
    const DESCRIPTION: &'static str = "Moisture passing through the contact between two grains: \
        flow g a (w1 - w2), a = sqrt(R* delta) the contact radius from the overlap; no \
        transfer without overlap.";
    const PARAMS: &'static [Param] = &[Param {
        name: "g",
        unit: "kg/(m s)",
        doc: "transfer coefficient: flow per metre of contact radius per unit moisture difference",
    }];

    fn new(p: Params) -> Result<Self, String> {
        if !(p.g >= 0.0 && p.g.is_finite()) {
            return Err(format!("g must be finite and >= 0, kg/(m s), got {}", p.g));
        }
        Ok(Moisture { g: p.g })
    }

    fn exchange(&self, input: &ExchangeInput) -> ExchangeOutput {
        let c = &input.contact;
        let overlap = (-c.geom.u.x).max(0.0);
        let a = (c.pair.effective_radius() * overlap).sqrt();
        let conductance = self.g * a;
        ExchangeOutput {
            flow: conductance * (input.value[0] - input.value[1]),
            conductance,
        }
    }
}

dem_api::export_plugin! { geometry: [], laws: [], exchanges: [Moisture] }
