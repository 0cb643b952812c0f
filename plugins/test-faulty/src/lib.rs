//! A deliberately faulty contact law, field exchanges and bond law, used by the test suite to check
//! that the solver reports plugin failures clearly. Not for scenes.

use dem_api::sdk::Law;
use dem_api::sdk::{Bond, Exchange, Field, Param};
use dem_api::{
    BondInput, BondOutput, BondStiffness, ExchangeInput, ExchangeOutput, LawInput, LawOutput,
    LawPair, Vec3,
};
use serde::{Deserialize, Serialize};

/// How to misbehave.
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// `"panic"`: panic on the first contact; `"nan"`: return a NaN force; `"stiffness"`:
    /// panic when asked for the stiffness; else behave.
    pub fault: String,
}

/// The faulty law: a plain linear spring unless told to fail.
pub struct Faulty(Params);

impl Law for Faulty {
    type Params = Params;
    const NAME: &'static str = "Law2_Test_Faulty";
    const DESCRIPTION: &'static str = "Test fixture: panics or returns NaN on demand.";
    const PARAMS: &'static [Param] = &[Param {
        name: "fault",
        unit: "-",
        doc: "\"panic\", \"nan\" or \"stiffness\"",
    }];
    const STATE_LEN: usize = 0;
    type Constants = ();

    fn new(p: Params) -> Result<Self, String> {
        Ok(Faulty(p))
    }

    fn stiffness(&self, _: &LawPair) -> f64 {
        if self.0.fault == "stiffness" {
            panic!("deliberate failure in stiffness");
        }
        1e3
    }

    fn constants(&self, _: &LawInput) {}

    fn law(&self, input: &LawInput, _: &(), _: &mut [f64]) -> LawOutput {
        match self.0.fault.as_str() {
            "panic" => panic!("deliberate failure for the test suite"),
            "nan" => LawOutput {
                force: Vec3::new(f64::NAN, 0.0, 0.0),
                ..Default::default()
            },
            _ => LawOutput {
                force: Vec3::new(-1e3 * input.geom.u.x.min(0.0), 0.0, 0.0),
                ..Default::default()
            },
        }
    }
}

/// An exchange of the field `faulty_value` that panics (`fault: "panic"`) or returns a
/// NaN flow (`fault: "nan"`) on the first contact, else exchanges nothing.
pub struct FaultyExchange(Params);

impl Exchange for FaultyExchange {
    type Params = Params;
    const NAME: &'static str = "Exchange_Test_Faulty";
    const FIELD: Field = Field {
        name: "faulty_value",
        unit: "-",
        capacity_unit: "-",
        flow_unit: "1/s",
    };
    const DESCRIPTION: &'static str = "Test fixture: panics or returns NaN on demand.";
    const PARAMS: &'static [Param] = &[Param {
        name: "fault",
        unit: "-",
        doc: "\"panic\" or \"nan\"",
    }];

    fn new(p: Params) -> Result<Self, String> {
        Ok(FaultyExchange(p))
    }

    fn exchange(&self, _: &ExchangeInput) -> ExchangeOutput {
        match self.0.fault.as_str() {
            "panic" => panic!("deliberate failure for the test suite"),
            "nan" => ExchangeOutput {
                flow: f64::NAN,
                conductance: 0.0,
            },
            _ => ExchangeOutput::default(),
        }
    }
}

/// An exchange whose field name is not a word (`bad name`): refused by the solver.
pub struct BadlyNamed;

impl Exchange for BadlyNamed {
    type Params = Params;
    const NAME: &'static str = "Exchange_Test_BadlyNamed";
    const FIELD: Field = Field {
        name: "bad name",
        unit: "-",
        capacity_unit: "-",
        flow_unit: "1/s",
    };
    const DESCRIPTION: &'static str = "Test fixture: a field whose name is not a word.";
    const PARAMS: &'static [Param] = &[];

    fn new(_: Params) -> Result<Self, String> {
        Ok(BadlyNamed)
    }

    fn exchange(&self, _: &ExchangeInput) -> ExchangeOutput {
        ExchangeOutput::default()
    }
}

/// A bond law that panics (`fault: "panic"`) or returns a NaN force (`fault: "nan"`) on
/// its second call, or reports a NaN stiffness (`fault: "stiffness"`); else a plain
/// spring that holds.
pub struct FaultyBond(Params);

impl Bond for FaultyBond {
    type Params = Params;
    const NAME: &'static str = "Bond_Test_Faulty";
    const DESCRIPTION: &'static str = "Test fixture: panics or returns NaN on demand.";
    const PARAMS: &'static [Param] = &[Param {
        name: "fault",
        unit: "-",
        doc: "\"panic\", \"nan\" or \"stiffness\"",
    }];
    const STATE: &'static [&'static str] = &[];

    fn new(p: Params) -> Result<Self, String> {
        Ok(FaultyBond(p))
    }

    fn stiffness(&self, _: &LawPair) -> BondStiffness {
        BondStiffness {
            normal: if self.0.fault == "stiffness" {
                f64::NAN
            } else {
                1e3
            },
            ..BondStiffness::default()
        }
    }

    fn bond(&self, input: &BondInput, _: &mut [f64]) -> BondOutput {
        let fault = input.is_new == 0;
        match self.0.fault.as_str() {
            "panic" if fault => panic!("deliberate failure for the test suite"),
            "nan" if fault => BondOutput {
                force: Vec3::new(f64::NAN, 0.0, 0.0),
                ..Default::default()
            },
            _ => BondOutput::default(),
        }
    }
}

dem_api::export_plugin! {
    geometry: [], laws: [Faulty], lane_laws: [], shapes: [],
    exchanges: [FaultyExchange, BadlyNamed], bonds: [FaultyBond]
}
