//! What a scene chooses per pair: the geometry functor of a pair of shape kinds, the
//! contact law and the field exchanges of a pair of materials.

use ron::value::RawValue;
use serde::Deserialize;

/// Which geometry functor serves a pair of shape kinds (only needed when several do).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct GeometryChoice {
    /// Shape kind names, e.g. `("Wall", "Sphere")`.
    pub shapes: (String, String),
    /// Functor name.
    pub functor: String,
    /// Parameters, passed verbatim to the plugin.
    #[serde(default)]
    pub params: Option<Box<RawValue>>,
}

/// The contact law of a pair of materials (`"*"` matches any material).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct LawChoice {
    /// Material names.
    pub materials: (String, String),
    /// Law name.
    pub law: String,
    /// Parameters, passed verbatim to the plugin.
    #[serde(default)]
    pub params: Option<Box<RawValue>>,
}

/// The exchange of a particle field between two materials in contact (`"*"` matches any
/// material; see [`crate::engines::exchange`]).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ExchangeChoice {
    /// Material names.
    pub materials: (String, String),
    /// Exchange name (its plugin declares the field it carries).
    pub exchange: String,
    /// Parameters, passed verbatim to the plugin.
    #[serde(default)]
    pub params: Option<Box<RawValue>>,
}
