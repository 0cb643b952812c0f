//! The plugin's root module: what the solver reads first from a loaded library.

use crate::functor::{Cg2Box, LawBox};
use crate::log::HostLogger;
use abi_stable::library::RootModule;
use abi_stable::std_types::{RResult, RStr, RString, RVec};
use abi_stable::{declare_root_module_statics, package_version_strings, StableAbi};

/// Version of this API crate, also checked by abi_stable at load time: under `0.x`, a
/// plugin built against another minor version is refused.
pub const API_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What a functor does.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctorRole {
    /// A geometry functor (`Cg2_A_B_L6Geom`) for the shape pair in [`FunctorInfo::shapes`].
    Geometry,
    /// A contact law, chosen per material pair by the scene.
    Law,
}

/// Documentation of one parameter a functor accepts.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct ParamDoc {
    /// Field name in the RON `params` block.
    pub name: RString,
    /// Unit (SI), or `"-"` for dimensionless, or `"flag"`.
    pub unit: RString,
    /// What the parameter means.
    pub doc: RString,
}

/// A functor a plugin offers.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct FunctorInfo {
    /// Unique name, e.g. `Cg2_Sphere_Sphere_L6Geom`, `Law2_L6Geom_LinearElPl`.
    pub name: RString,
    /// Geometry functor or law.
    pub role: FunctorRole,
    /// For a geometry functor, the names of the two shape kinds it serves, in the order
    /// body 1, body 2 (see [`crate::ShapeKind::name`]); empty strings for a law.
    pub shapes: [RString; 2],
    /// One-paragraph description.
    pub description: RString,
    /// Every parameter, with unit and meaning.
    pub params: RVec<ParamDoc>,
    /// The default parameters as RON text (what an empty `params` block means).
    pub default_params: RString,
}

/// The root module every plugin exports (through [`crate::export_plugin!`]).
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginRootRef)))]
#[sabi(missing_field(panic))]
pub struct PluginRoot {
    /// The version of dem-api the plugin was built against ([`API_VERSION`] there).
    pub api_version: extern "C" fn() -> RStr<'static>,
    /// The plugin's name (its crate name).
    pub name: extern "C" fn() -> RStr<'static>,
    /// The plugin's own version.
    pub version: extern "C" fn() -> RStr<'static>,
    /// The functors the plugin offers.
    pub functors: extern "C" fn() -> RVec<FunctorInfo>,
    /// Installs the host's log sink; the plugin's `tracing` events are forwarded to it.
    pub set_logger: extern "C" fn(HostLogger),
    /// Builds a geometry functor by name from RON parameter text.
    pub new_geometry: extern "C" fn(RStr<'_>, RStr<'_>) -> RResult<Cg2Box, RString>,
    /// Builds a contact law by name from RON parameter text.
    #[sabi(last_prefix_field)]
    pub new_law: extern "C" fn(RStr<'_>, RStr<'_>) -> RResult<LawBox, RString>,
}

impl RootModule for PluginRootRef {
    declare_root_module_statics! {PluginRootRef}
    const BASE_NAME: &'static str = "dem_plugin";
    const NAME: &'static str = "dem_plugin";
    const VERSION_STRINGS: abi_stable::sabi_types::VersionStrings = package_version_strings!();
}
