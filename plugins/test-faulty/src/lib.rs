//! A deliberately faulty contact law, used by the test suite to check that the solver
//! reports plugin failures clearly. Not for scenes.

use dem_api::sdk::{Law, Param};
use dem_api::{LawInput, LawOutput, LawPair, Vec3};
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

dem_api::export_plugin! { geometry: [], laws: [Faulty] }
