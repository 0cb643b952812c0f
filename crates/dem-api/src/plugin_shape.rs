//! Shapes as plugins (dem-api 0.5.2): a plugin may offer new kinds of particle shape,
//! beside the four built in ([`crate::ShapeKind`]).
//!
//! A plugin shape is a rigid body whose body frame is its **principal frame with the
//! centroid at the origin**: the solver places it by the centroid's position and the
//! orientation of its principal axes, and integrates it as any aspherical rigid body.
//! What the solver needs of one body of the shape is a [`ShapeModel`]: its
//! [`ShapeProperties`] (volume, inertia per unit density, bounding radius and box), a
//! triangulated [`Surface`] for output, a support function, and the **record**: the
//! pointer the solver hands to geometry functors in the body's
//! [`ShapeView`](crate::ShapeView) (see [`ShapeView::plugin_record`](crate::ShapeView::plugin_record)).
//! The record's layout is the shape plugin's own contract with the functors that serve
//! it (normally in the same plugin; a functor in another plugin must be built against
//! the same `#[repr(C)]` record type).
//!
//! The solver gives each shape name it loads a [`ShapeKind`](crate::ShapeKind) from
//! [`ShapeKind::FIRST_PLUGIN`](crate::ShapeKind::FIRST_PLUGIN) on, and dispatches
//! geometry functors on the names they declare in [`crate::FunctorInfo::shapes`].
//! Two plugins offering one shape name are refused.
//!
//! The shapes a plugin offers cross through two symbols of their own, beside the root
//! module, so that the root module keeps the layout of dem-api 0.5.0:
//! [`SHAPE_LIST_SYMBOL`] ([`ShapeListFn`]) and [`NEW_SHAPE_SYMBOL`] ([`NewShapeFn`]).
//! [`crate::export_plugin!`] writes both; plugin authors implement
//! [`crate::sdk::Shape`] and list it under `shapes:`.

use crate::math::Vec3;
use crate::root::ParamDoc;
use abi_stable::sabi_trait;
use abi_stable::std_types::{RBox, RResult, RStr, RString, RVec};
use abi_stable::StableAbi;

/// What the solver needs to know of one body of a plugin shape, in its body frame
/// (principal axes, centroid at the origin).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct ShapeProperties {
    /// Volume, m^3 (the mass is the material's density times this).
    pub volume: f64,
    /// Principal moments of inertia about the body axes x, y, z through the centroid, per
    /// unit density, m^5 (the moments in kg m^2 are the density times these).
    pub inertia: Vec3,
    /// Largest distance of a surface point from the centroid, m: the broad phase's
    /// bounding sphere.
    pub bounding_radius: f64,
    /// Half-extents of the shape's axis-aligned box in the body frame, m (each at most
    /// `bounding_radius`).
    pub half_extents: Vec3,
}

/// A triangulated surface in the body frame, for output (VTK).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// Vertices, body frame, m.
    pub vertices: RVec<Vec3>,
    /// Triangles as indices into `vertices`, counter-clockwise seen from outside.
    pub triangles: RVec<[u32; 3]>,
}

/// One body of a plugin shape, built by its plugin from the scene's parameters.
#[sabi_trait]
pub trait ShapeModel: Send + Sync {
    /// Volume, inertia and bounds; asked once, when the body is built.
    fn properties(&self) -> ShapeProperties;

    /// The record handed to geometry functors in this body's
    /// [`ShapeView`](crate::ShapeView): valid, and unchanged, as long as this object
    /// lives (the solver keeps the object as long as the body).
    fn record(&self) -> *const core::ffi::c_void;

    /// A triangulation of the surface for output; `detail` is the number of divisions
    /// of a half turn (at least 4), the solver's wish for the resolution.
    fn surface(&self, detail: u32) -> Surface;

    /// The support point of the shape in body-frame direction `direction` (a unit
    /// vector): the surface point farthest along it, body frame, m. The solver checks
    /// the reported bounds against it when a body is built; functors read the shape
    /// through the record, not through this method.
    #[sabi(last_prefix_field)]
    fn support(&self, direction: Vec3) -> Vec3;
}

/// A plugin-shape body owned by the solver.
pub type ShapeBox = ShapeModel_TO<'static, RBox<()>>;

/// A shape a plugin offers, for the catalogue and the scene's checks.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct ShapeInfo {
    /// Unique shape name as scenes and functor declarations write it (`"Superquadric"`).
    pub name: RString,
    /// One-paragraph description.
    pub description: RString,
    /// Every parameter, with unit and meaning.
    pub params: RVec<ParamDoc>,
    /// The default parameters as RON text.
    pub default_params: RString,
}

/// The shapes a plugin offers: `extern "C" fn() -> RVec<ShapeInfo>`.
pub type ShapeListFn = extern "C" fn() -> RVec<ShapeInfo>;

/// Builds one body of shape `name` from RON parameter text: `extern "C" fn(name, params)`.
/// An `RErr` carries the reason (out-of-range parameter, parse error with line and column).
pub type NewShapeFn = extern "C" fn(RStr<'_>, RStr<'_>) -> RResult<ShapeBox, RString>;

/// Rewrites the parameters of a body of shape `name` for the same shape `factor` times
/// larger (every length times `factor`, dimensionless, positive): `extern "C" fn(name,
/// params, factor)` gives the new RON parameter text. An `RErr` says why not (a shape
/// that cannot be scaled, a parse error). Inlets use it to make bodies of a drawn size
/// from a template (dem-api 0.5.3 on; optional: a plugin without it offers shapes of
/// one size).
pub type ScaleShapeFn = extern "C" fn(RStr<'_>, RStr<'_>, f64) -> RResult<RString, RString>;

/// Symbol of the plugin's [`ScaleShapeFn`] (NUL-terminated).
pub const SCALE_SHAPE_SYMBOL: &[u8] = b"dem_plugin_scale_shape_v1\0";

/// Symbol of the plugin's [`ShapeListFn`] (NUL-terminated).
pub const SHAPE_LIST_SYMBOL: &[u8] = b"dem_plugin_shapes_v1\0";

/// Symbol of the plugin's [`NewShapeFn`] (NUL-terminated).
pub const NEW_SHAPE_SYMBOL: &[u8] = b"dem_plugin_new_shape_v1\0";
