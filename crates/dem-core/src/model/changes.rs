//! What was changed of a simulation's laws and materials from outside since its scene was
//! built (the record a checkpoint keeps), and a change of a material asked for. (The
//! changes are made by the simulation's `changes` module, in the step floor.)

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What has been changed since the scene was built (what a resumed run applies again).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Changes {
    /// The parameters (RON text) of each law changed, by its place in the scene's `laws`.
    pub laws: BTreeMap<u16, String>,
    /// The changed materials, by index: Young's modulus (Pa), Poisson's ratio and friction
    /// coefficient.
    pub materials: BTreeMap<u32, [f64; 3]>,
}

/// New values for a material; `None` keeps the present one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MaterialChange {
    /// Young's modulus, Pa (not for a rigid material).
    pub young: Option<f64>,
    /// Poisson's ratio, in (-1, 0.5].
    pub poisson: Option<f64>,
    /// Coulomb friction coefficient, >= 0.
    pub friction: Option<f64>,
}
