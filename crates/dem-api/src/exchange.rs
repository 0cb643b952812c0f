//! Particle fields and exchanges (dem-api 0.5.4): a plugin may declare a per-particle
//! scalar field (a temperature, a moisture, a charge) and the law by which a contact
//! exchanges it between its two bodies.
//!
//! The solver stores one value of each declared field per particle, integrates it
//! explicitly from the exchanges of the particle's contacts, checkpoints it, and writes it
//! to the particle outputs. A field's **capacity** is given per material in the scene, in
//! the field's [`FieldInfo::capacity_unit`] (for a temperature in K, a specific heat in
//! J/(kg K)): a particle of mass `m` and capacity `c` holds `m c value` of the field's
//! quantity (for a temperature: heat, J), and a flow `Q` into it changes its value at the
//! rate `Q / (m c)`. A body of infinite mass (a wall, a mesh) holds its value fixed: it
//! is a source or sink of the quantity at the value the scene gives it. A pair of
//! materials with no exchange in the scene exchanges nothing (an insulated contact).
//!
//! An exchange is chosen per material pair, beside the pair's contact law, and called
//! once per live contact and step with the contact as its law sees it ([`LawInput`]) and
//! the field's values of the two bodies ([`ExchangeInput`]); it returns the flow from
//! body 1 to body 2 and its conductance ([`ExchangeOutput`]). The solver applies
//! `-flow` to body 1 and `+flow` to body 2, so the quantity is conserved to round-off.
//!
//! The exchanges a plugin offers cross through two symbols of their own, beside the root
//! module (so that the root module keeps the layout of dem-api 0.5.0):
//! [`EXCHANGE_LIST_SYMBOL`] ([`ExchangeListFn`]) and [`NEW_EXCHANGE_SYMBOL`]
//! ([`NewExchangeFn`]). [`crate::export_plugin!`] writes both; plugin authors implement
//! [`crate::sdk::Exchange`] and list it under `exchanges:`.

use crate::law::{LawInput, LawPair};
use crate::root::ParamDoc;
use abi_stable::sabi_trait;
use abi_stable::std_types::{RBox, RResult, RStr, RString, RVec};
use abi_stable::StableAbi;

/// A per-particle scalar field, as the exchange that declares it describes it.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct FieldInfo {
    /// The field's name as scenes and outputs write it (`"temperature"`): a word of
    /// letters, digits and underscores. Several exchanges may declare one field; they must
    /// agree on its units.
    pub name: RString,
    /// Unit of the field's value (`"K"`).
    pub unit: RString,
    /// Unit of the per-material capacity: the field's quantity per kg per unit of value
    /// (`"J/(kg K)"` for a temperature, whose quantity is heat in J).
    pub capacity_unit: RString,
    /// Unit of the flow an exchange returns: the field's quantity per second (`"W"`).
    pub flow_unit: RString,
}

/// What an exchange is given for one contact in one step.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct ExchangeInput {
    /// The contact as its law sees it (geometry at time t, the two bodies, onset data,
    /// time step, new and last flags).
    pub contact: LawInput,
    /// The field's values of body 1 and body 2 at time t, in the field's unit.
    pub value: [f64; 2],
}

/// What an exchange returns for one contact.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct ExchangeOutput {
    /// Flow of the field's quantity from body 1 to body 2 over this step, per second, in
    /// the field's flow unit (W for heat): positive when body 2 gains. Must be finite.
    pub flow: f64,
    /// The flow's sensitivity to the difference of the values, `d flow / d(value1 -
    /// value2)`, in flow unit per value unit (W/K for heat), >= 0: the contact's
    /// conductance. The solver checks the explicit step's stability with it (a particle's
    /// `m c / sum of its conductances` must exceed the time step).
    pub conductance: f64,
}

/// A contact's exchange of one field, built by its plugin from the scene's parameters.
#[sabi_trait]
pub trait ExchangeLaw: Send + Sync {
    /// The flow between the two bodies of one contact (see [`ExchangeOutput`]).
    #[sabi(last_prefix_field)]
    fn exchange(&self, input: &ExchangeInput) -> ExchangeOutput;

    /// The largest conductance a contact between the two bodies of `pair` can have, in
    /// flow unit per value unit (W/K for heat), or NaN when there is none (dem-api 0.5.5;
    /// the default, which plugins built before it get). The solver keeps the time step of
    /// `Critical(f)` below `f m c / bound` for every particle and material it can meet, the
    /// field's stability limit for one contact (the step's own check covers the sum of
    /// several).
    fn conductance_bound(&self, pair: &LawPair) -> f64 {
        let _ = pair;
        f64::NAN
    }
}

/// An exchange owned by the solver.
pub type ExchangeBox = ExchangeLaw_TO<'static, RBox<()>>;

/// An exchange a plugin offers, for the catalogue and the scene's checks.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct ExchangeInfo {
    /// Unique exchange name as scenes write it (`"Exchange_HeatConduction"`).
    pub name: RString,
    /// The field it exchanges.
    pub field: FieldInfo,
    /// One-paragraph description.
    pub description: RString,
    /// Every parameter, with unit and meaning.
    pub params: RVec<ParamDoc>,
    /// The default parameters as RON text.
    pub default_params: RString,
}

/// The exchanges a plugin offers: `extern "C" fn() -> RVec<ExchangeInfo>`.
pub type ExchangeListFn = extern "C" fn() -> RVec<ExchangeInfo>;

/// Builds exchange `name` from RON parameter text: `extern "C" fn(name, params)`. An
/// `RErr` carries the reason (out-of-range parameter, parse error with line and column).
pub type NewExchangeFn = extern "C" fn(RStr<'_>, RStr<'_>) -> RResult<ExchangeBox, RString>;

/// Symbol of the plugin's [`ExchangeListFn`] (NUL-terminated).
pub const EXCHANGE_LIST_SYMBOL: &[u8] = b"dem_plugin_exchanges_v1\0";

/// Symbol of the plugin's [`NewExchangeFn`] (NUL-terminated).
pub const NEW_EXCHANGE_SYMBOL: &[u8] = b"dem_plugin_new_exchange_v1\0";
