//! Writing an exchange: implement [`Exchange`] and list it under `exchanges:` in
//! [`crate::export_plugin!`]. The SDK parses the scene's parameters, declares the field
//! the exchange carries, and shields the solver from a panic (see [`crate::exchange`]).

use super::adapters::{docs, instantiate};
use super::params::{default_text, parse_params};
use super::Param;
use crate::exchange::{
    ExchangeBox, ExchangeInfo, ExchangeInput, ExchangeLaw, ExchangeLaw_TO, ExchangeOutput,
    FieldInfo,
};
use crate::law::LawPair;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RBox, RResult};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The field an exchange carries, as its author writes it (see [`FieldInfo`]).
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Name as scenes and outputs write it (`"temperature"`).
    pub name: &'static str,
    /// Unit of the value (`"K"`).
    pub unit: &'static str,
    /// Unit of the per-material capacity (`"J/(kg K)"`).
    pub capacity_unit: &'static str,
    /// Unit of the flow (`"W"`).
    pub flow_unit: &'static str,
}

/// The exchange of a field between the two bodies of a contact: pure, called once per
/// live contact and step.
pub trait Exchange: Send + Sync + Sized + 'static {
    /// Parameters, deserialized from the scene's RON text.
    type Params: Serialize + DeserializeOwned + Default;
    /// Unique exchange name, as scenes write it.
    const NAME: &'static str;
    /// The field it carries.
    const FIELD: Field;
    /// One-paragraph description.
    const DESCRIPTION: &'static str;
    /// One entry per field of `Params`.
    const PARAMS: &'static [Param];

    /// Builds the exchange; an `Err` (a parameter out of range) is reported with its name.
    fn new(params: Self::Params) -> Result<Self, String>;

    /// The flow from body 1 to body 2 and its conductance (see [`ExchangeOutput`]).
    fn exchange(&self, input: &ExchangeInput) -> ExchangeOutput;

    /// The largest conductance a contact between the bodies of `pair` can have (flow unit
    /// per value unit), if the exchange knows one: the solver keeps the time step of
    /// `Critical(f)` below `f m c / bound` (the field's stability limit for one contact).
    /// `None` (the default): no bound, the step's own check alone.
    fn conductance_bound(&self, pair: &LawPair) -> Option<f64> {
        let _ = pair;
        None
    }
}

/// The solver's handle on an [`Exchange`]: a panic is logged and becomes a NaN flow, which
/// the solver refuses with the contact's bodies named.
struct ExchangeAdapter<E>(E);

impl<E: Exchange> ExchangeLaw for ExchangeAdapter<E> {
    fn conductance_bound(&self, pair: &LawPair) -> f64 {
        catch_unwind(AssertUnwindSafe(|| self.0.conductance_bound(pair)))
            .unwrap_or_else(|_| {
                tracing::error!("{}::conductance_bound panicked", E::NAME);
                Some(f64::NEG_INFINITY)
            })
            .unwrap_or(f64::NAN)
    }

    fn exchange(&self, input: &ExchangeInput) -> ExchangeOutput {
        catch_unwind(AssertUnwindSafe(|| self.0.exchange(input))).unwrap_or_else(|_| {
            tracing::error!("{}::exchange panicked", E::NAME);
            ExchangeOutput {
                flow: f64::NAN,
                conductance: f64::NAN,
            }
        })
    }
}

/// Catalogue entry of an exchange.
pub fn exchange_info<E: Exchange>() -> ExchangeInfo {
    ExchangeInfo {
        name: E::NAME.into(),
        field: FieldInfo {
            name: E::FIELD.name.into(),
            unit: E::FIELD.unit.into(),
            capacity_unit: E::FIELD.capacity_unit.into(),
            flow_unit: E::FIELD.flow_unit.into(),
        },
        description: E::DESCRIPTION.into(),
        params: docs(E::PARAMS),
        default_params: default_text::<E::Params>().into(),
    }
}

/// Builds an exchange from RON parameter text.
pub fn new_exchange<E: Exchange>(
    params: &str,
) -> RResult<ExchangeBox, abi_stable::std_types::RString> {
    instantiate(params, |t| {
        let e = E::new(parse_params::<E::Params>(t)?)?;
        Ok(ExchangeLaw_TO::from_ptr(
            RBox::new(ExchangeAdapter(e)),
            TD_Opaque,
        ))
    })
}
