//! The plugin catalogue (`dem plugins`, and `dem.plugins()` in Python): every loaded
//! functor with the shapes it serves, every plugin shape, every field exchange with its
//! field's units, every bond law, their parameters with units and defaults, and the libraries refused; as
//! text or as JSON for tools.

use crate::setup::plugins::PluginSet;
use dem_api::{FunctorRole, ParamDoc};
use serde_json::{json, Value};

/// Parameter documentation as JSON: `[{name, unit, doc}]`.
fn docs(params: &[ParamDoc]) -> Vec<Value> {
    params
        .iter()
        .map(|d| json!({"name": d.name.as_str(), "unit": d.unit.as_str(), "doc": d.doc.as_str()}))
        .collect()
}

/// The catalogue as JSON: `{"plugins": [{name, version, api_version, path, functors:
/// [{name, role, shapes, description, defaults, params: [{name, unit, doc}]}], shapes:
/// [{name, description, defaults, params}], exchanges: [{name, field: {name, unit,
/// capacity_unit, flow_unit}, description, defaults, params}]}], "refused": [{path,
/// reason}]}`.
pub fn to_json(set: &PluginSet) -> Value {
    let plugins: Vec<Value> = set
        .plugins
        .iter()
        .map(|p| {
            let functors: Vec<Value> = p
                .functors
                .iter()
                .map(|f| {
                    let (role, shapes) = match f.role {
                        FunctorRole::Geometry => (
                            "geometry",
                            json!([f.shapes[0].as_str(), f.shapes[1].as_str()]),
                        ),
                        FunctorRole::Law => ("law", Value::Null),
                    };
                    json!({
                        "name": f.name.as_str(),
                        "role": role,
                        "shapes": shapes,
                        "description": f.description.as_str(),
                        "defaults": f.default_params.as_str(),
                        "params": docs(&f.params),
                    })
                })
                .collect();
            let shapes: Vec<Value> = p
                .shapes
                .iter()
                .map(|s| {
                    json!({
                        "name": s.name.as_str(),
                        "description": s.description.as_str(),
                        "defaults": s.default_params.as_str(),
                        "params": docs(&s.params),
                    })
                })
                .collect();
            let exchanges: Vec<Value> = p
                .exchanges
                .iter()
                .map(|e| {
                    let f = &e.field;
                    json!({
                        "name": e.name.as_str(),
                        "field": {
                            "name": f.name.as_str(),
                            "unit": f.unit.as_str(),
                            "capacity_unit": f.capacity_unit.as_str(),
                            "flow_unit": f.flow_unit.as_str(),
                        },
                        "description": e.description.as_str(),
                        "defaults": e.default_params.as_str(),
                        "params": docs(&e.params),
                    })
                })
                .collect();
            let bonds: Vec<Value> = p
                .bonds
                .iter()
                .map(|b| {
                    json!({
                        "name": b.name.as_str(),
                        "description": b.description.as_str(),
                        "defaults": b.default_params.as_str(),
                        "params": docs(&b.params),
                        "state": b.state.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                    })
                })
                .collect();
            json!({
                "name": p.name,
                "version": p.version,
                "api_version": p.api_version,
                "path": p.path.display().to_string(),
                "functors": functors,
                "shapes": shapes,
                "exchanges": exchanges,
                "bonds": bonds,
            })
        })
        .collect();
    let refused: Vec<Value> = set
        .refused
        .iter()
        .map(|(path, why)| json!({"path": path.display().to_string(), "reason": why}))
        .collect();
    json!({"plugins": plugins, "refused": refused})
}

/// The catalogue as text.
pub fn to_text(set: &PluginSet) -> String {
    let mut s = String::new();
    for p in &set.plugins {
        s.push_str(&format!(
            "{} {} (dem-api {}, {})\n",
            p.name,
            p.version,
            p.api_version,
            p.path.display()
        ));
        for f in &p.functors {
            let serves = match f.role {
                FunctorRole::Geometry => format!("geometry for {} + {}", f.shapes[0], f.shapes[1]),
                FunctorRole::Law => "contact law".to_string(),
            };
            s.push_str(&format!("  {}: {serves}\n    {}\n", f.name, f.description));
            s.push_str(&format!("    defaults: {}\n", f.default_params));
            for d in &f.params {
                s.push_str(&format!("    {} [{}]: {}\n", d.name, d.unit, d.doc));
            }
        }
        for sh in &p.shapes {
            s.push_str(&format!("  {}: shape\n    {}\n", sh.name, sh.description));
            s.push_str(&format!("    defaults: {}\n", sh.default_params));
            for d in &sh.params {
                s.push_str(&format!("    {} [{}]: {}\n", d.name, d.unit, d.doc));
            }
        }
        for e in &p.exchanges {
            let f = &e.field;
            s.push_str(&format!(
                "  {}: exchange of the field `{}` [{}] (capacity [{}], flow [{}])\n    {}\n",
                e.name, f.name, f.unit, f.capacity_unit, f.flow_unit, e.description
            ));
            s.push_str(&format!("    defaults: {}\n", e.default_params));
            for d in &e.params {
                s.push_str(&format!("    {} [{}]: {}\n", d.name, d.unit, d.doc));
            }
        }
        for b in &p.bonds {
            s.push_str(&format!("  {}: bond law\n    {}\n", b.name, b.description));
            s.push_str(&format!("    defaults: {}\n", b.default_params));
            for d in &b.params {
                s.push_str(&format!("    {} [{}]: {}\n", d.name, d.unit, d.doc));
            }
        }
    }
    for (path, why) in &set.refused {
        s.push_str(&format!("refused {}: {why}\n", path.display()));
    }
    s
}
