//! The shapes plugins offer (dem-api 0.5.2): their names interned to dispatch kinds, and
//! bodies built by name for the scene ([`ShapeSource`]).
//!
//! The kinds are given in the order of the names (sorted), from
//! [`ShapeKind::FIRST_PLUGIN`] on, so that the same plugins give the same kinds in every
//! process (ranks, a resumed run). They are never saved: checkpoints keep names.

use crate::model::plugin_body::{PluginBody, ScalableShape, ShapeSource};
use crate::setup::plugins::{Plugin, PluginSet, BUILT_IN};
use dem_api::{ShapeInfo, ShapeKind};

impl PluginSet {
    /// Every (plugin, shape) loaded.
    pub fn shapes(&self) -> impl Iterator<Item = (&Plugin, &ShapeInfo)> {
        self.plugins
            .iter()
            .flat_map(|p| p.shapes.iter().map(move |s| (p, s)))
    }

    /// The names of the plugin shapes, sorted, each once.
    fn shape_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.shapes().map(|(_, s)| s.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The kind of the shape named `name`: a built-in kind, or the kind given to a
    /// plugin shape; `None` for a name nobody offers.
    pub fn shape_kind(&self, name: &str) -> Option<ShapeKind> {
        if let Some(k) = BUILT_IN.iter().find(|k| k.name() == name) {
            return Some(*k);
        }
        let at = self.shape_names().iter().position(|n| *n == name)?;
        Some(ShapeKind(ShapeKind::FIRST_PLUGIN + at as u32))
    }

    /// The name of kind `kind` (built in or given to a plugin shape).
    pub fn shape_name(&self, kind: ShapeKind) -> String {
        if !kind.is_plugin() {
            return kind.name().to_string();
        }
        let names = self.shape_names();
        let at = (kind.0 - ShapeKind::FIRST_PLUGIN) as usize;
        names
            .get(at)
            .map_or_else(|| "Unknown".into(), |n| n.to_string())
    }

    /// Every shape name a scene may use, built in first.
    pub fn known_shape_names(&self) -> Vec<String> {
        let built_in = BUILT_IN.iter().map(|k| k.name().to_string());
        built_in
            .chain(self.shape_names().into_iter().map(String::from))
            .collect()
    }

    /// The one plugin offering shape `name`.
    fn shape_plugin(&self, name: &str) -> Result<&Plugin, String> {
        if BUILT_IN.iter().any(|k| k.name() == name) {
            return Err(format!(
                "`{name}` is a built-in shape, written as its own kind of body"
            ));
        }
        let offering: Vec<&Plugin> = self
            .shapes()
            .filter(|(_, s)| s.name == name)
            .map(|(p, _)| p)
            .collect();
        match offering.as_slice() {
            [one] => Ok(one),
            [] => {
                let known = self.shape_names();
                Err(format!(
                    "no loaded plugin offers the shape `{name}`; plugin shapes loaded: {}",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ))
            }
            many => Err(format!(
                "the shape `{name}` is offered by several plugins: {}",
                many.iter()
                    .map(|p| p.path.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

impl ShapeSource for PluginSet {
    fn make_shape(&self, name: &str, params: &str) -> Result<PluginBody, String> {
        let plugin = self.shape_plugin(name)?;
        let make = plugin
            .new_shape_fn()
            .ok_or_else(|| format!("plugin {} lists shapes but cannot build them", plugin.name))?;
        let kind = self.shape_kind(name).expect("an offered shape has a kind");
        let model = make(name.into(), params.into())
            .into_result()
            .map_err(|e| format!("shape `{name}` (plugin {}): {e}", plugin.name))?;
        PluginBody::new(kind, name, params, model)
    }

    fn scalable_shape(&self, name: &str, params: &str) -> Result<ScalableShape, String> {
        let template = self.make_shape(name, params)?;
        let plugin = self.shape_plugin(name)?;
        let (Some(new_shape), Some(scale)) = (plugin.new_shape_fn(), plugin.scale_shape_fn())
        else {
            return Err(format!(
                "plugin {} cannot scale its shape `{name}` (built against dem-api {}; \
                 scaling needs 0.5.3 or later)",
                plugin.name, plugin.api_version
            ));
        };
        Ok(ScalableShape::new(&template, new_shape, scale))
    }
}
