//! Writing a bond law: implement [`Bond`] and list it under `bonds:` in
//! [`crate::export_plugin!`]. The SDK parses the scene's parameters, names the state
//! slots, and shields the solver from a panic (see [`crate::bond`]).

use super::adapters::{docs, instantiate};
use super::params::{default_text, parse_params};
use super::Param;
use crate::bond::{BondBox, BondInfo, BondInput, BondLaw, BondLaw_TO, BondOutput, BondStiffness};
use crate::law::LawPair;
use crate::math::Vec3;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RBox, RResult, RSliceMut, RString};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A bond law: called once per intact bond and step, with the bond's own state slots.
pub trait Bond: Send + Sync + Sized + 'static {
    /// Parameters, deserialized from the scene's RON text.
    type Params: Serialize + DeserializeOwned + Default;
    /// Unique bond law name, as scenes write it.
    const NAME: &'static str;
    /// One-paragraph description.
    const DESCRIPTION: &'static str;
    /// One entry per field of `Params`.
    const PARAMS: &'static [Param];
    /// Names of the per-bond state slots (their number is the slot count).
    const STATE: &'static [&'static str];

    /// Builds the law; an `Err` (a parameter out of range) is reported with its name.
    fn new(params: Self::Params) -> Result<Self, String>;

    /// The stiffnesses of a bond between the two spheres of `pair` (see
    /// [`BondStiffness`]), which the solver's time step must resolve.
    fn stiffness(&self, pair: &LawPair) -> BondStiffness;

    /// The force and torque of one bond, and whether it broke (see [`BondOutput`]);
    /// `state` has `STATE.len()` values, all zero on the bond's first call.
    fn bond(&self, input: &BondInput, state: &mut [f64]) -> BondOutput;
}

/// The solver's handle on a [`Bond`]: a panic is logged and becomes a NaN force, which
/// the solver refuses with the bond's spheres named.
struct BondAdapter<B>(B);

impl<B: Bond> BondLaw for BondAdapter<B> {
    fn stiffness(&self, pair: &LawPair) -> BondStiffness {
        catch_unwind(AssertUnwindSafe(|| self.0.stiffness(pair))).unwrap_or_else(|_| {
            tracing::error!("{}::stiffness panicked", B::NAME);
            BondStiffness {
                normal: f64::NAN,
                ..BondStiffness::default()
            }
        })
    }

    fn bond(&self, input: &BondInput, mut state: RSliceMut<'_, f64>) -> BondOutput {
        let state: &mut [f64] = &mut state;
        catch_unwind(AssertUnwindSafe(|| self.0.bond(input, state))).unwrap_or_else(|_| {
            tracing::error!("{}::bond panicked", B::NAME);
            BondOutput {
                force: Vec3::new(f64::NAN, f64::NAN, f64::NAN),
                ..BondOutput::default()
            }
        })
    }
}

/// Catalogue entry of a bond law.
pub fn bond_info<B: Bond>() -> BondInfo {
    BondInfo {
        name: B::NAME.into(),
        description: B::DESCRIPTION.into(),
        params: docs(B::PARAMS),
        default_params: default_text::<B::Params>().into(),
        state: B::STATE.iter().map(|&s| RString::from(s)).collect(),
    }
}

/// Builds a bond law from RON parameter text.
pub fn new_bond<B: Bond>(params: &str) -> RResult<BondBox, RString> {
    instantiate(params, |t| {
        let b = B::new(parse_params::<B::Params>(t)?)?;
        Ok(BondLaw_TO::from_ptr(RBox::new(BondAdapter(b)), TD_Opaque))
    })
}
