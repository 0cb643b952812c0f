//! A particle field as a scene writes it: the capacity of each material, the initial
//! value, and the values set on some bodies (see [`crate::engines::exchange`]).

use crate::engines::region::Region;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One particle field (`fields: { "temperature": (...) }`).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    /// Capacity of each material, in the field's capacity unit (a specific heat,
    /// J/(kg K)): every material of a body of finite mass needs one.
    #[serde(default)]
    pub capacity: BTreeMap<String, f64>,
    /// Value of every body at t = 0, in the field's unit.
    pub initial: f64,
    /// Values set on some bodies at t = 0, in order (a later one wins where two select a
    /// body). A body of infinite mass (a wall, a mesh) keeps its value for the whole run.
    #[serde(default)]
    pub set: Vec<FieldSet>,
}

/// A value given to the bodies a selection picks: those of a material, those whose
/// reference point (a sphere's centre, a wall's point, a mesh's origin) is in a region,
/// or those both pick.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct FieldSet {
    /// Only bodies of this material.
    #[serde(default)]
    pub material: Option<String>,
    /// Only bodies in this region (`Box` or `Cylinder`).
    #[serde(default)]
    pub region: Option<Region>,
    /// The value, in the field's unit.
    pub value: f64,
}
