//! Bonds (dem-api 0.5.5): pair interactions that outlive contact, such as the cement
//! between the grains of a rock.
//!
//! A bond joins two spheres from the step the scene creates it (at set-up, by a rule of
//! the scene's `bonds`, or during the run where the rule asks) until its law says it
//! broke; only such a rule makes it again. While it
//! holds, it acts **beside** the pair's contact law, whatever the gap: the contact law
//! still pushes the spheres apart where they overlap, as in Potyondy and Cundall's bonded
//! particle model, and after the bond breaks the contact law alone remains.
//!
//! The solver tracks each bond's geometry as it tracks a contact's ([`L6Geom`], with its
//! incremental local frame): `u.x` is the gap between the two surfaces along the line of
//! centres (negative for an overlap), `u.y`, `u.z` the shear displacement and `phi` the
//! relative rotation (twist `phi.x`, bending `phi.y`, `phi.z`), both integrated since the
//! bond was made, in the frame carried along with the pair. A bond law is called once per
//! intact bond and step with them ([`BondInput`]), keeps what it needs in its state slots
//! (all zero on the bond's first call, `is_new = 1`), and returns the force and torque of
//! body 1 on body 2 in the local frame, with the law conventions of [`crate::law`]
//! ([`BondOutput`]). When it returns `broken = 1` the solver removes the bond at once:
//! the force and torque of that call are not applied, and the energy the bond held is
//! booked in the ledger as released by broken bonds.
//!
//! The time step: a bond law reports its stiffnesses for a pair ([`BondStiffness`]); the
//! solver adds those of each sphere's bonds and keeps the step below the shortest period
//! they give (translation `sqrt(m / k)`, rotation `sqrt(I / k)`).
//!
//! The bond laws a plugin offers cross through two symbols of their own, beside the root
//! module: [`BOND_LIST_SYMBOL`] ([`BondListFn`]) and [`NEW_BOND_SYMBOL`] ([`NewBondFn`]).
//! [`crate::export_plugin!`] writes both; plugin authors implement [`crate::sdk::Bond`]
//! and list it under `bonds:`.

use crate::geom::L6Geom;
use crate::law::LawPair;
use crate::math::Vec3;
use crate::root::ParamDoc;
use abi_stable::sabi_trait;
use abi_stable::std_types::{RBox, RResult, RSliceMut, RStr, RString, RVec};
use abi_stable::StableAbi;

/// What a bond law is given for one bond in one step.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct BondInput {
    /// The bond's geometry at time t (see the module docs): `u.x` the surface gap, m;
    /// `u.y`, `u.z` the shear displacement since the bond was made, m; `phi` the relative
    /// rotation since then, rad (`x`: twist about the line of centres; `y`, `z`: bending);
    /// their rates at t - dt/2; `lens` the two radii, m; `area` `pi min(r1, r2)^2`, m^2.
    pub geom: L6Geom,
    /// The two spheres (radii, masses, materials).
    pub pair: LawPair,
    /// Time step, s.
    pub dt: f64,
    /// `1` on the bond's first call (its state slots are all zero then), else `0`.
    pub is_new: u32,
}

/// What a bond law returns for one bond.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct BondOutput {
    /// Force of body 1 on body 2 at the bond's centre point, local frame, N (`-K u`
    /// component-wise for an elastic bond: a stretched bond, `u.x` grown, pulls body 2
    /// back, `force.x < 0`).
    pub force: Vec3,
    /// Torque of body 1 on body 2 in addition to the moment of `force`, local frame, N m.
    pub torque: Vec3,
    /// Elastic energy stored in the bond now, J.
    pub elastic: f64,
    /// Energy dissipated by the bond's own damping during this step, J (0 for none).
    pub damping: f64,
    /// `1`: the bond broke at this step (the solver removes it and applies neither
    /// `force` nor `torque`; `elastic` is then the energy it held, released), else `0`.
    pub broken: u32,
}

/// A bond law's stiffnesses for a pair of spheres, which the time step must resolve.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq)]
pub struct BondStiffness {
    /// Normal (axial) stiffness, N/m.
    pub normal: f64,
    /// Shear stiffness, N/m.
    pub shear: f64,
    /// Twisting stiffness, N m/rad.
    pub twist: f64,
    /// Bending stiffness, N m/rad.
    pub bending: f64,
}

/// A bond law, built by its plugin from the scene's parameters.
#[sabi_trait]
pub trait BondLaw: Send + Sync {
    /// The stiffnesses of a bond between the two spheres of `pair` (for the time step).
    fn stiffness(&self, pair: &LawPair) -> BondStiffness;

    /// The force and torque of one bond (see [`BondOutput`]); `state` holds as many
    /// values as [`BondInfo::state`] names, kept from the bond's previous call.
    #[sabi(last_prefix_field)]
    fn bond(&self, input: &BondInput, state: RSliceMut<'_, f64>) -> BondOutput;
}

/// A bond law owned by the solver.
pub type BondBox = BondLaw_TO<'static, RBox<()>>;

/// A bond law a plugin offers, for the catalogue and the scene's checks.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct BondInfo {
    /// Unique name as scenes write it (`"Bond_Parallel"`).
    pub name: RString,
    /// One-paragraph description.
    pub description: RString,
    /// Every parameter, with unit and meaning.
    pub params: RVec<ParamDoc>,
    /// The default parameters as RON text.
    pub default_params: RString,
    /// Names of the per-bond state slots, in order (their number is the slot count).
    pub state: RVec<RString>,
}

/// The bond laws a plugin offers: `extern "C" fn() -> RVec<BondInfo>`.
pub type BondListFn = extern "C" fn() -> RVec<BondInfo>;

/// Builds bond law `name` from RON parameter text: `extern "C" fn(name, params)`. An
/// `RErr` carries the reason (out-of-range parameter, parse error with line and column).
pub type NewBondFn = extern "C" fn(RStr<'_>, RStr<'_>) -> RResult<BondBox, RString>;

/// Symbol of the plugin's [`BondListFn`] (NUL-terminated).
pub const BOND_LIST_SYMBOL: &[u8] = b"dem_plugin_bonds_v1\0";

/// Symbol of the plugin's [`NewBondFn`] (NUL-terminated).
pub const NEW_BOND_SYMBOL: &[u8] = b"dem_plugin_new_bond_v1\0";
