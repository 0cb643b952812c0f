//! Bonds as a scene writes them: which pairs of spheres are bonded at t = 0, and by which
//! bond law (see [`crate::engines::bond`]).

use ron::value::RawValue;
use serde::Deserialize;

/// One rule of the scene's `bonds`: the pairs of spheres of two materials it bonds, and
/// the bond law that joins them.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct BondSpec {
    /// The materials of the two spheres (`"*"`: any material).
    pub materials: (String, String),
    /// The bond law, as a plugin offers it (`dem plugins` lists them).
    pub bond: String,
    /// The law's parameters, passed verbatim to its plugin.
    #[serde(default)]
    pub params: Option<Box<RawValue>>,
    /// Which pairs of those materials it bonds.
    pub between: BondRule,
    /// Every this many steps (0, the default: never), bond anew the pairs its `Within`
    /// rule picks then that hold no bond, those whose bond broke among them: sintering,
    /// agglomeration. A bond made during the run is unloaded at its gap then.
    #[serde(default)]
    pub reform: u64,
}

/// The pairs a rule bonds, chosen once at t = 0.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub enum BondRule {
    /// Every pair of spheres whose surfaces are at most this far apart, m (`0`: those
    /// that touch or overlap).
    Within(f64),
    /// The pairs a CSV file lists, relative to the scene file: a header `a,b` and one row
    /// per bond, the two spheres' scene ids (their place in the scene's bodies, from 0).
    File(String),
}
