//! Writing a shape: implement [`Shape`] and list it under `shapes:` in
//! [`crate::export_plugin!`]. The SDK parses the scene's parameters, builds the
//! [`ShapeModel`] the solver keeps per body, and makes the shape's own value the record
//! its functors read ([`plugin_shape`]).

use super::adapters::{docs, instantiate};
use super::params::{default_text, parse_params};
use super::Param;
use crate::math::Vec3;
use crate::plugin_shape::{
    ShapeBox, ShapeInfo, ShapeModel, ShapeModel_TO, ShapeProperties, Surface,
};
use crate::shape::ShapeView;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RBox, RResult, RString};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A particle shape offered by a plugin. The value built from a body's parameters is the
/// body: its frame must be the principal frame with the centroid at the origin, and it
/// must not change after [`Shape::new`]. Functors of the same plugin read it back with
/// [`plugin_shape`]; write it `#[repr(C)]` if functors of other plugins are to read it.
pub trait Shape: Send + Sync + Sized + 'static {
    /// Parameters, deserialized from the body's `params` in the scene.
    type Params: Serialize + DeserializeOwned + Default;
    /// Unique shape name, as scenes and functor declarations write it.
    const NAME: &'static str;
    /// One-paragraph description.
    const DESCRIPTION: &'static str;
    /// One entry per field of `Params`.
    const PARAMS: &'static [Param];

    /// Builds one body; an `Err` (a parameter out of range) is reported with the body.
    fn new(params: Self::Params) -> Result<Self, String>;

    /// Volume, inertia per unit density and bounds (see [`ShapeProperties`]).
    fn properties(&self) -> ShapeProperties;

    /// A triangulation for output, `detail` divisions of a half turn (see
    /// [`ShapeModel::surface`]).
    fn surface(&self, detail: u32) -> Surface;

    /// The surface point farthest along the unit body-frame direction `d`, m.
    fn support(&self, d: Vec3) -> Vec3;

    /// `params` for the same shape `factor` times larger (every length times `factor`,
    /// positive), so that inlets can make bodies of a drawn size from one template.
    /// The default: `None`, the shape cannot be scaled (an inlet using it is refused).
    fn scaled(params: &Self::Params, factor: f64) -> Option<Self::Params> {
        let _ = (params, factor);
        None
    }
}

/// The shape `S` of a body a functor was handed, or `None` when the view is of a
/// built-in kind.
///
/// # Safety
/// The functor must have declared `S::NAME` for this body in its
/// [`SHAPE_NAMES`](super::Geometry::SHAPE_NAMES), and `S` must be the type the shape's
/// plugin exports under that name (true when both are in one plugin crate).
#[inline(always)]
pub unsafe fn plugin_shape<'a, S: Shape>(view: &ShapeView<'a>) -> Option<&'a S> {
    // SAFETY: the SDK's record of a shape is a pointer to its `S` (see `ShapeAdapter`).
    unsafe { view.plugin_record::<S>() }
}

/// The solver's handle on one body of `S`. A panic in the shape's code never crosses the
/// ABI: it is logged and becomes a value the solver refuses with the shape's name (NaN
/// properties or support point) or an empty surface.
struct ShapeAdapter<S>(S);

/// Runs `f`, turning a panic into `fallback` with an error naming the method.
fn shielded<S: Shape, T>(method: &str, fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        tracing::error!("{}::{method} panicked", S::NAME);
        fallback
    })
}

impl<S: Shape> ShapeModel for ShapeAdapter<S> {
    fn properties(&self) -> ShapeProperties {
        let nan = Vec3::new(f64::NAN, f64::NAN, f64::NAN);
        let failed = ShapeProperties {
            volume: f64::NAN,
            inertia: nan,
            bounding_radius: f64::NAN,
            half_extents: nan,
        };
        shielded::<S, _>("properties", failed, || self.0.properties())
    }

    fn record(&self) -> *const core::ffi::c_void {
        &self.0 as *const S as *const _
    }

    fn surface(&self, detail: u32) -> Surface {
        let empty = Surface {
            vertices: Default::default(),
            triangles: Default::default(),
        };
        shielded::<S, _>("surface", empty, || self.0.surface(detail.max(4)))
    }

    fn support(&self, direction: Vec3) -> Vec3 {
        let nan = Vec3::new(f64::NAN, f64::NAN, f64::NAN);
        shielded::<S, _>("support", nan, || self.0.support(direction))
    }
}

/// Scales the RON parameter text of a body of `S` by `factor` (see [`Shape::scaled`]).
pub fn scale_shape<S: Shape>(params: &str, factor: f64) -> RResult<RString, RString> {
    let run = || -> Result<String, String> {
        let p = parse_params::<S::Params>(params)?;
        let scaled = S::scaled(&p, factor)
            .ok_or_else(|| format!("the shape `{}` cannot be scaled", S::NAME))?;
        ron::to_string(&scaled).map_err(|e| format!("cannot write the scaled parameters: {e}"))
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(text)) => RResult::ROk(text.into()),
        Ok(Err(e)) => RResult::RErr(e.into()),
        Err(_) => RResult::RErr(format!("{}::scaled panicked", S::NAME).into()),
    }
}

/// Catalogue entry of a shape.
pub fn shape_info<S: Shape>() -> ShapeInfo {
    ShapeInfo {
        name: S::NAME.into(),
        description: S::DESCRIPTION.into(),
        params: docs(S::PARAMS),
        default_params: default_text::<S::Params>().into(),
    }
}

/// Builds one body of `S` from RON parameter text.
pub fn new_shape<S: Shape>(params: &str) -> RResult<ShapeBox, RString> {
    instantiate(params, |t| {
        let s = S::new(parse_params::<S::Params>(t)?)?;
        Ok(ShapeModel_TO::from_ptr(
            RBox::new(ShapeAdapter(s)),
            TD_Opaque,
        ))
    })
}
