//! The plugin SDK: write a functor as plain per-contact Rust, export it with one macro.
//!
//! A geometry functor implements [`Geometry`], a contact law implements [`Law`]; then
//!
//! ```ignore
//! dem_api::export_plugin! { geometry: [MyCg2], laws: [MyLaw] }
//! ```
//!
//! in the cdylib's `lib.rs` exports the root module. The SDK turns the per-contact methods
//! into the batched ABI calls, catches panics (a panic becomes an error naming the item,
//! never a process abort), parses the scene's RON `params` text into `Params`, and forwards
//! `tracing` events to the host.
//!
//! `Params` should carry `#[serde(default, deny_unknown_fields)]`, so that omitted fields
//! take their default and a misspelled field is an error with line and column.
//!
//! A plugin may also offer particle shapes ([`Shape`], exported under `shapes:`; see
//! [`crate::plugin_shape`]).
//!
//! A plugin may also declare a per-particle field and the exchange of it through
//! contacts ([`Exchange`], exported under `exchanges:`; see [`crate::exchange`]).
//!
//! A plugin may also offer bond laws: pair interactions that outlive contact ([`Bond`],
//! exported under `bonds:`; see [`crate::bond`]).
//!
//! A law may also write its step once over lanes ([`LaneLaw`]) and be exported under
//! `lane_laws:`; the SDK then runs its batches four contacts at a time.

mod adapters;
mod bond;
mod exchange;
mod export;
mod lanes;
mod logging;
mod params;
pub mod parts;
mod prefetch;
mod shape;
mod slots;

pub use adapters::{geometry_info, law_info, new_geometry, new_lane_law, new_law, slot_names};
pub use bond::{bond_info, new_bond, Bond};
pub use exchange::{exchange_info, new_exchange, Exchange, Field};
pub use lanes::{lanes_agree, one_lane, LaneInput, LaneLaw, LaneOutput};
pub use logging::install_forwarder;
pub use params::parse_params;
pub use prefetch::prefetch;
pub use shape::{new_shape, plugin_shape, scale_shape, shape_info, Shape};
pub use slots::Slots;

use crate::geom::RawGeom;
use crate::law::{LawInput, LawOutput, LawPair};
use crate::reads::{GeomReads, LawReads};
use crate::shape::{BodyView, ShapeKind};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Documentation of one parameter, for the catalogue `dem plugins` prints.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// Field name in `Params`.
    pub name: &'static str,
    /// SI unit, `"-"` for dimensionless, `"flag"` for booleans.
    pub unit: &'static str,
    /// Meaning.
    pub doc: &'static str,
}

/// A per-pair geometry functor ("Cg2"). Pure: no interior mutability, no global state.
pub trait Geometry: Send + Sync + Sized + 'static {
    /// Parameters, deserialized from the scene's RON text.
    type Params: Serialize + DeserializeOwned + Default;
    /// Unique functor name, e.g. `Cg2_Sphere_Sphere_L6Geom`.
    const NAME: &'static str;
    /// Shape kinds of body 1 and body 2; [`ShapeKind::NAMED`] for a shape offered by a
    /// plugin, which [`Geometry::SHAPE_NAMES`] then names.
    const SHAPES: [ShapeKind; 2];
    /// The names of the two shapes as the solver dispatches on them: by default those of
    /// [`Geometry::SHAPES`]; a functor serving a plugin shape writes its name here
    /// (`["Superquadric", "Sphere"]`).
    const SHAPE_NAMES: [&'static str; 2] = [Self::SHAPES[0].name(), Self::SHAPES[1].name()];
    /// One-paragraph description.
    const DESCRIPTION: &'static str;
    /// One entry per field of `Params`.
    const PARAMS: &'static [Param];

    /// Builds the functor; an `Err` is reported to the user with the functor's name.
    fn new(params: Self::Params) -> Result<Self, String>;

    /// Geometry of one pair at the current time, or `None` when the gap is not below
    /// `distance` (m). `b1` has shape `SHAPES[0]`, `b2` has `SHAPES[1]`. The returned
    /// `weight` is normally `1`.
    fn geom(&self, b1: &BodyView<'_>, b2: &BodyView<'_>, distance: f64) -> Option<RawGeom>;

    /// Contact terms per pair (see [`crate::Cg2Functor::features`]); 1 for most functors.
    fn features(&self) -> u32 {
        1
    }

    /// Geometry of term `feature` (`0..features()`) of one pair. The default serves
    /// one-term functors: term 0 is [`Geometry::geom`].
    #[inline(always)]
    fn term(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        feature: u32,
    ) -> Option<RawGeom> {
        if feature == 0 {
            self.geom(b1, b2, distance)
        } else {
            None
        }
    }

    /// [`Geometry::term`] for functors whose computation can fail: an `Err` stops the
    /// run with the functor's name, the pair and the message, instead of a silent "no
    /// contact" (log the details with `tracing` first). The default never fails.
    #[inline(always)]
    fn try_term(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        feature: u32,
    ) -> Result<Option<RawGeom>, String> {
        Ok(self.term(b1, b2, distance, feature))
    }

    /// Slots of the pair cache (see [`crate::Cg2Functor::cache_len`]): `f64` values kept
    /// per candidate pair and term from call to call. Default 0 (no cache).
    const CACHE_LEN: usize = 0;

    /// Slots of the contact state (see [`crate::Cg2Functor::state_len`]): `f64` values
    /// kept per contact for its life, saved in checkpoints. Default 0 (none).
    const STATE_LEN: usize = 0;

    /// What the functor reads of its bodies besides position and shape (see
    /// [`GeomReads`]). Default: everything. A functor that reads no sphere's orientation
    /// (e.g. a wall-sphere functor reading the wall's alone: [`GeomReads::ORIENTATION_1`])
    /// lets the solver skip integrating the orientation of spheres.
    const READS: GeomReads = GeomReads::ALL;

    /// [`Geometry::try_term`] with the pair's cache (`CACHE_LEN` values, all zero for a
    /// new pair or whenever the solver has dropped the cache). It must return bitwise
    /// what `try_term` returns, whatever `cache` holds: the cache may only make it faster.
    /// The default ignores the cache.
    #[inline(always)]
    fn try_term_cached(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        feature: u32,
        cache: &mut [f64],
    ) -> Result<Option<RawGeom>, String> {
        let _ = cache;
        self.try_term(b1, b2, distance, feature)
    }

    /// [`Geometry::try_term_cached`] with the contact's state too (`STATE_LEN` values,
    /// zero on the first call of a contact, and for a pair that is not a contact yet,
    /// whose values are then dropped). With the state all zero it must return what
    /// `try_term_cached` returns. The default ignores the state.
    #[inline(always)]
    fn try_term_kept(
        &self,
        b1: &BodyView<'_>,
        b2: &BodyView<'_>,
        distance: f64,
        feature: u32,
        cache: &mut [f64],
        state: &mut [f64],
    ) -> Result<Option<RawGeom>, String> {
        let _ = state;
        self.try_term_cached(b1, b2, distance, feature, cache)
    }
}

/// A per-contact law. Pure: all memory between steps lives in the `state` slots.
pub trait Law: Send + Sync + Sized + 'static {
    /// Parameters, deserialized from the scene's RON text.
    type Params: Serialize + DeserializeOwned + Default;
    /// Unique functor name, e.g. `Law2_L6Geom_LinearElPl`.
    const NAME: &'static str;
    /// One-paragraph description.
    const DESCRIPTION: &'static str;
    /// One entry per field of `Params`.
    const PARAMS: &'static [Param];
    /// Number of `f64` state slots per contact (zero at contact onset), besides the
    /// constants.
    const STATE_LEN: usize;
    /// A name for each of the `STATE_LEN` state slots, in order (shown with the contacts'
    /// state in Python, after the constants' field names); missing names read `state_<j>`.
    /// Default: none.
    const STATE_NAMES: &'static [&'static str] = &[];
    /// Per-contact constants (effective moduli, stiffnesses, damping coefficients...):
    /// computed once when the contact is created, by [`Law::constants`], and kept for the
    /// contact's life (the material-pair step, Yade's Ip2 or Woo's Cp2). Declare them with
    /// [`slots!`](crate::slots); `()` for none.
    type Constants: Slots;
    /// What the law reads of a batch besides the L6Geom's displacements, rates, branch
    /// lengths and area (see [`LawReads`]). Default: everything. A law that reads the
    /// bodies' masses and materials only through [`Law::constants`] (at onset) leaves out
    /// [`LawReads::PAIR`], and the solver then fills them only for new contacts; one that
    /// never reads `input.geom.frame`, `input.geom.point` or `input.onset` leaves out
    /// [`LawReads::FRAME`] or [`LawReads::ONSET`]. A law exported under `lane_laws:` reads
    /// at most [`LawReads::ONSET`] in its lane step.
    const READS: LawReads = LawReads::ALL;

    /// Builds the law; an `Err` is reported to the user with the law's name.
    fn new(params: Self::Params) -> Result<Self, String>;

    /// The constants of a contact, from its first step's input (the two bodies, the
    /// geometry and the onset data). Called once per contact, before the first
    /// [`Law::law`] call; and again, with that step's input, on the first step after the
    /// law's parameters or the scene's materials were changed between two steps
    /// ([`crate::FLAG_REFRESH`]; the state slots are kept then).
    fn constants(&self, input: &LawInput) -> Self::Constants;

    /// Gap below which a contact should exist, m (default 0: overlap only).
    fn interaction_distance(&self) -> f64 {
        0.0
    }

    /// Largest stiffness of a contact of this pair, N/m (for the critical time step).
    fn stiffness(&self, pair: &LawPair) -> f64;

    /// Force, torque and energy of one contact in one step, with its constants `c`;
    /// `state` has `STATE_LEN` slots.
    fn law(&self, input: &LawInput, c: &Self::Constants, state: &mut [f64]) -> LawOutput;

    /// The largest time step that is stable for this contact now, s (default: no limit).
    /// Called after [`Law::law`] with the state it left; when the scene's step is larger
    /// the run stops with an error naming the law and the contact and both steps (the
    /// solver does not adapt the step: a resumed or repeated run must take the same
    /// steps). Laws whose stiffness grows without bound (a barrier) implement it.
    fn stable_step(&self, _input: &LawInput, _c: &Self::Constants, _state: &[f64]) -> f64 {
        f64::INFINITY
    }
}
