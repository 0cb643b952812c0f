//! A body of a shape offered by a plugin (dem-api 0.5.2, see `dem_api::plugin_shape`):
//! the plugin's object, what it said of itself when built, and the name and parameters it
//! was built from (checkpoints and added bodies build it again from these).

use dem_api::{
    NewShapeFn, ScaleShapeFn, ShapeBox, ShapeKind, ShapeProperties, ShapeView, Surface, Vec3,
};

/// One body of a plugin shape. Shared (`Arc`) between the particle and its clones; the
/// plugin's object lives as long as any of them.
pub struct PluginBody {
    /// The kind the solver gave the shape's name when the plugins were loaded.
    pub kind: ShapeKind,
    /// The shape's name (`"Superquadric"`).
    pub name: String,
    /// The parameters it was built from, RON text.
    pub params: String,
    /// Volume, inertia per unit density and bounds, as the plugin gave them.
    pub properties: ShapeProperties,
    model: ShapeBox,
    record: *const core::ffi::c_void,
    /// The surface for output, asked of the plugin once.
    surface: std::sync::OnceLock<Surface>,
}

/// Divisions of a half turn asked of plugin shapes' surfaces for output.
pub const SURFACE_DETAIL: u32 = 8;

// SAFETY: the record is an immutable value owned by `model`, which is Send + Sync.
unsafe impl Send for PluginBody {}
unsafe impl Sync for PluginBody {}

impl PluginBody {
    /// Wraps a body the plugin built, checking what it says of itself: every property
    /// finite and positive, the box within the bounding sphere, and the support points
    /// along 26 directions within both (a bound too small would let the broad phase miss
    /// contacts).
    pub fn new(kind: ShapeKind, name: &str, params: &str, model: ShapeBox) -> Result<Self, String> {
        let properties = model.properties();
        let ShapeProperties {
            volume,
            inertia,
            bounding_radius,
            half_extents,
        } = properties;
        let good = |x: f64| x.is_finite() && x > 0.0;
        let moments = [inertia.x, inertia.y, inertia.z];
        let box_ = [half_extents.x, half_extents.y, half_extents.z];
        if !(good(volume) && good(bounding_radius) && moments.iter().all(|&j| good(j))) {
            return Err(format!(
                "shape `{name}`: the plugin reports volume {volume:e} m^3, bounding radius \
                 {bounding_radius:e} m, moments per unit density {moments:?} m^5: each must \
                 be finite and positive"
            ));
        }
        if !box_
            .iter()
            .all(|&h| good(h) && h <= bounding_radius * (1.0 + 1e-12))
        {
            return Err(format!(
                "shape `{name}`: the plugin reports half-extents {box_:?} m, which must be \
                 positive and within the bounding radius {bounding_radius:e} m"
            ));
        }
        check_support(name, &model, bounding_radius, half_extents)?;
        let record = model.record();
        Ok(PluginBody {
            kind,
            name: name.to_string(),
            params: params.to_string(),
            properties,
            model,
            record,
            surface: std::sync::OnceLock::new(),
        })
    }

    /// The view handed to geometry functors.
    pub fn view(&self) -> ShapeView<'_> {
        // SAFETY: `kind` is a plugin kind (given by the loader) and the record lives as
        // long as `self.model`, that is as long as `self`.
        unsafe { ShapeView::of_plugin(self.kind, self.record, self.properties.bounding_radius) }
    }

    /// A triangulation of the surface in the body frame at [`SURFACE_DETAIL`] (see
    /// `ShapeModel::surface`), asked of the plugin once.
    pub fn surface(&self) -> &Surface {
        self.surface
            .get_or_init(|| self.model.surface(SURFACE_DETAIL))
    }

    /// The support point along the unit body-frame direction `d`, body frame, m.
    pub fn support(&self, d: Vec3) -> Vec3 {
        self.model.support(d)
    }
}

/// Refuses a body whose support points along the 26 directions to the faces, edges and
/// corners of its box leave the bounds it reported, or do not face their direction (the
/// centroid must be inside).
fn check_support(
    name: &str,
    model: &ShapeBox,
    bounding_radius: f64,
    half_extents: Vec3,
) -> Result<(), String> {
    let slack = 1.0 + 1e-9;
    let h: nalgebra::Vector3<f64> = half_extents.into();
    for i in (0..27).filter(|&i| i != 13) {
        let d = nalgebra::Vector3::new(
            f64::from(i % 3) - 1.0,
            f64::from((i / 3) % 3) - 1.0,
            f64::from(i / 9) - 1.0,
        )
        .normalize();
        let p: nalgebra::Vector3<f64> = model.support(d.into()).into();
        let inside =
            p.norm() <= bounding_radius * slack && (0..3).all(|k| p[k].abs() <= h[k] * slack);
        if !(p.dot(&d) > 0.0 && inside) {
            return Err(format!(
                "shape `{name}`: the plugin's support point along ({:.3}, {:.3}, {:.3}) is \
                 ({:e}, {:e}, {:e}) m, which must be finite, lie ahead of the centroid and \
                 within the bounding radius {bounding_radius:e} m and the half-extents \
                 ({:e}, {:e}, {:e}) m",
                d.x, d.y, d.z, p.x, p.y, p.z, h.x, h.y, h.z
            ));
        }
    }
    Ok(())
}

impl std::fmt::Debug for PluginBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({})", self.name, self.params)
    }
}

impl PartialEq for PluginBody {
    fn eq(&self, other: &PluginBody) -> bool {
        self.name == other.name && self.params == other.params
    }
}

/// Builds plugin-shape bodies by name: the loaded plugins do (the scene's expansion only
/// sees this, so that it needs no plugin loader).
pub trait ShapeSource {
    /// One body of shape `name` built from RON parameter text; `Err` names what is wrong.
    fn make_shape(&self, name: &str, params: &str) -> Result<PluginBody, String>;

    /// The shape `name` of the body `params` give, to make bodies of any size from (an
    /// inlet's template); `Err` if it cannot be built or its plugin cannot scale it.
    fn scalable_shape(&self, name: &str, params: &str) -> Result<ScalableShape, String>;
}

/// A plugin shape that bodies of any size are made from: the body its parameters give,
/// scaled by its plugin (dem-api 0.5.3's `dem_plugin_scale_shape_v1`) to a
/// volume-equivalent radius. The same radius makes the same bits.
#[derive(Clone)]
pub struct ScalableShape {
    /// The kind the solver gave the shape's name.
    pub kind: ShapeKind,
    /// The shape's name.
    pub name: String,
    /// The parameters of the template body, RON text.
    pub params: String,
    /// The template body's volume-equivalent radius, m.
    pub radius: f64,
    /// Its bounding radius over its volume-equivalent radius.
    pub kappa: f64,
    new_shape: NewShapeFn,
    scale: ScaleShapeFn,
}

impl ScalableShape {
    /// The template of `name` from the body `template` its plugin built from `params`,
    /// with the plugin's builder and scaler.
    pub fn new(template: &PluginBody, new_shape: NewShapeFn, scale: ScaleShapeFn) -> ScalableShape {
        let p = &template.properties;
        let radius = (0.75 * p.volume / std::f64::consts::PI).cbrt();
        ScalableShape {
            kind: template.kind,
            name: template.name.clone(),
            params: template.params.clone(),
            radius,
            kappa: p.bounding_radius / radius,
            new_shape,
            scale,
        }
    }

    /// The body of volume-equivalent radius `radius` (m): the template's parameters
    /// scaled by its plugin, then built and checked as a scene's body.
    pub fn body(&self, radius: f64) -> Result<PluginBody, String> {
        let factor = radius / self.radius;
        let name = self.name.as_str();
        let text = (self.scale)(name.into(), self.params.as_str().into(), factor)
            .into_result()
            .map_err(|e| format!("shape `{name}` scaled by {factor:e}: {e}"))?;
        let model = (self.new_shape)(name.into(), text.as_str().into())
            .into_result()
            .map_err(|e| format!("shape `{name}` scaled by {factor:e} ({text}): {e}"))?;
        PluginBody::new(self.kind, name, &text, model)
    }
}

impl std::fmt::Debug for ScalableShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}({}) at radius {:e} m",
            self.name, self.params, self.radius
        )
    }
}

/// No plugin shapes at all (tools and tests that build scenes of built-in shapes).
pub struct NoShapes;

impl ShapeSource for NoShapes {
    fn make_shape(&self, name: &str, _: &str) -> Result<PluginBody, String> {
        Err(format!(
            "the shape `{name}` is offered by a plugin, and no plugins were given (Rust: \
             Simulation::add_bodies_with)"
        ))
    }

    fn scalable_shape(&self, name: &str, params: &str) -> Result<ScalableShape, String> {
        match self.make_shape(name, params) {
            Err(e) => Err(e),
            Ok(_) => Err(format!(
                "the shape `{name}` cannot be scaled without its plugin"
            )),
        }
    }
}
