//! The field exchanges plugins offer (dem-api 0.5.4), and the scene's fields and
//! exchanges resolved to an [`Exchanges`]: the fields' capacities per material, the
//! exchange of each material pair, and the particles' values at t = 0.

use crate::engines::exchange::{ExchangeEntry, Exchanges, FieldDef};
use crate::model::particles::Particles;
use crate::scene::Scene;
use crate::setup::plugins::{build_named, find_named, Plugin, PluginSet};
use crate::support::error::DemError;
use dem_api::{ExchangeBox, ExchangeInfo, FieldInfo};
use nalgebra::Vector3;
use std::collections::BTreeMap;

impl PluginSet {
    /// Every (plugin, exchange) loaded.
    pub fn exchanges(&self) -> impl Iterator<Item = (&Plugin, &ExchangeInfo)> {
        self.plugins
            .iter()
            .flat_map(|p| p.exchanges.iter().map(move |e| (p, e)))
    }

    /// The plugin offering exchange `name` (the first loaded, as for functors) and its
    /// entry.
    fn exchange(&self, name: &str) -> Result<(&Plugin, &ExchangeInfo), String> {
        find_named(self.exchanges(), |e| e.name.as_str(), name, "exchange")
    }

    /// Builds exchange `name` from RON parameter text.
    fn new_exchange(&self, name: &str, params: &str) -> Result<(String, ExchangeBox), String> {
        let (plugin, _) = self.exchange(name)?;
        build_named(plugin, plugin.new_exchange_fn(), name, params, "exchange")
    }
}

/// Do two declarations of one field agree on its units?
fn same_units(a: &FieldInfo, b: &FieldInfo) -> bool {
    a.unit == b.unit && a.capacity_unit == b.capacity_unit && a.flow_unit == b.flow_unit
}

/// The scene's fields and exchanges, with each particle's value at t = 0 written into
/// `particles` (its `fields`). `materials` maps the scene's material names to indices.
pub fn build(
    scene: &Scene,
    plugins: &PluginSet,
    materials: &BTreeMap<String, u32>,
    particles: &mut Particles,
) -> Result<Exchanges, DemError> {
    let mut out = Exchanges::default();
    if scene.fields.is_empty() && scene.exchanges.is_empty() {
        return Ok(out);
    }
    let mut declared: BTreeMap<&str, FieldInfo> = BTreeMap::new();
    let mut made = Vec::new();
    for (k, choice) in scene.exchanges.iter().enumerate() {
        let at = |msg: String| scene.error(format!("exchanges[{k}]: {msg}"));
        let (_, info) = plugins.exchange(&choice.exchange).map_err(at)?;
        let field = info.field.clone();
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        if field.name.is_empty() || !field.name.chars().all(word) {
            return Err(at(format!(
                "{} declares a field named `{}`: a field's name is a word of letters, digits \
                 and underscores (it names a column of particles.csv)",
                choice.exchange, field.name
            )));
        }
        if !scene.fields.contains_key(field.name.as_str()) {
            return Err(at(format!(
                "{} exchanges the field `{}`, which `fields` does not define (its value is in \
                 {}, its capacity in {})",
                choice.exchange, field.name, field.unit, field.capacity_unit
            )));
        }
        if let Some(other) = declared.get(field.name.as_str()) {
            if !same_units(other, &field) {
                return Err(at(format!(
                    "{} declares the field `{}` in other units than an exchange before it",
                    choice.exchange, field.name
                )));
            }
        }
        let params = choice.params.as_ref().map_or("", |r| r.get_ron());
        let (plugin, functor) = plugins
            .new_exchange(&choice.exchange, params)
            .map_err(|e| {
                match choice
                    .params
                    .as_ref()
                    .and_then(|r| scene.locate(r.get_ron()))
                {
                    Some((line, col)) => DemError::Scene(format!(
                        "{}:{line}:{col}: params of exchanges[{k}]: {e}",
                        scene.origin.display()
                    )),
                    None => at(e),
                }
            })?;
        made.push((k, field.name.to_string(), plugin, functor));
        if let Some((name, _)) = scene.fields.get_key_value(field.name.as_str()) {
            declared.insert(name.as_str(), field);
        }
    }
    let n_materials = materials.len();
    for (name, spec) in &scene.fields {
        let at = |msg: String| scene.error(format!("fields.{name}: {msg}"));
        let Some(info) = declared.get(name.as_str()) else {
            return Err(at(
                "no exchange carries this field: add one to `exchanges` (a field that nothing \
                 changes would only be written out)"
                    .into(),
            ));
        };
        let mut capacity = vec![f64::NAN; n_materials];
        for (material, &c) in &spec.capacity {
            let Some(&m) = materials.get(material) else {
                return Err(at(format!("capacity: unknown material `{material}`")));
            };
            if !(c > 0.0 && c.is_finite()) {
                return Err(at(format!(
                    "capacity.{material}: must be positive and finite, {}, got {c}",
                    info.capacity_unit
                )));
            }
            capacity[m as usize] = c;
        }
        if !spec.initial.is_finite() {
            return Err(at(format!("initial: must be finite, {}", info.unit)));
        }
        for (k, set) in spec.set.iter().enumerate() {
            if !set.value.is_finite() {
                return Err(at(format!("set[{k}].value: must be finite, {}", info.unit)));
            }
            if let Some(m) = &set.material {
                if !materials.contains_key(m) {
                    return Err(at(format!("set[{k}].material: unknown material `{m}`")));
                }
            }
            if let Some(r) = &set.region {
                if matches!(r, crate::engines::region::Region::Surface { .. }) {
                    return Err(at(format!(
                        "set[{k}].region: a Box or a Cylinder (a Surface region selects \
                         nothing here)"
                    )));
                }
                r.check().map_err(|e| at(format!("set[{k}].region: {e}")))?;
            }
        }
        out.fields.push(FieldDef {
            name: name.clone(),
            unit: info.unit.to_string(),
            capacity_unit: info.capacity_unit.to_string(),
            flow_unit: info.flow_unit.to_string(),
            capacity,
        });
    }
    // Each particle's value at t = 0, and the capacity of every body that holds one.
    particles.field_initial = scene.fields.values().map(|s| s.initial).collect();
    particles.fields = Vec::new();
    for (f, spec) in scene.fields.values().enumerate() {
        let mut values = vec![spec.initial; particles.len()];
        for set in &spec.set {
            let material = set.material.as_ref().map(|m| materials[m]);
            for (i, v) in values.iter_mut().enumerate() {
                let x: Vector3<f64> = particles.pos[i];
                if material.is_none_or(|m| particles.material[i] == m)
                    && set.region.as_ref().is_none_or(|r| r.contains(&x))
                {
                    *v = set.value;
                }
            }
        }
        let def = &out.fields[f];
        if let Some(i) = (0..particles.len()).find(|&i| {
            particles.mass[i].is_finite() && def.capacity[particles.material[i] as usize].is_nan()
        }) {
            let name = materials
                .iter()
                .find(|(_, &m)| m == particles.material[i])
                .map_or("?", |(n, _)| n.as_str());
            return Err(scene.error(format!(
                "fields.{}.capacity: no capacity for material `{name}` (body {i} is of it), {}",
                def.name, def.capacity_unit
            )));
        }
        particles.fields.push(values);
    }
    // The exchange of each material pair: the first matching choice of a field wins.
    out.materials = n_materials;
    out.table = vec![Vec::new(); n_materials * n_materials];
    for (k, field, plugin, functor) in made {
        let choice = &scene.exchanges[k];
        let f = out.field(&field).expect("declared");
        let ids = |name: &str| {
            crate::setup::dispatch::material_ids(materials, name).ok_or_else(|| {
                scene.error(format!(
                    "exchanges[{k}].materials: unknown material `{name}`"
                ))
            })
        };
        let (a, b) = (ids(&choice.materials.0)?, ids(&choice.materials.1)?);
        let e = out.entries.len();
        out.entries.push(ExchangeEntry {
            name: choice.exchange.clone(),
            plugin,
            field: f,
            materials: choice.materials.clone(),
            functor,
        });
        for &ma in &a {
            for &mb in &b {
                for (x, y) in [(ma, mb), (mb, ma)] {
                    let list = &mut out.table[x as usize * n_materials + y as usize];
                    if !list.iter().any(|&x| out.entries[x].field == f) {
                        list.push(e);
                    }
                }
            }
        }
    }
    out.open_ledger(particles);
    Ok(out)
}
