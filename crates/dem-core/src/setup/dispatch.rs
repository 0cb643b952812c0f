//! The dispatch tables built from a scene's choices (see [`crate::engines::dispatch`]):
//! its `geometry` entries resolved to functors by shape kinds, its `laws` to laws by
//! material pairs, each plugin given its parameters, every error placed in the scene file.

use crate::engines::dispatch::{Dispatch, GeomEntry, LawEntry};
use crate::scene::geometric_epsilon::{with_param, PARAM};
use crate::scene::Scene;
use crate::setup::plugins::PluginSet;
use crate::support::error::DemError;
use dem_api::{FunctorRole, ShapeKind};
use std::collections::{BTreeMap, BTreeSet};

/// Largest pair cache or contact state a geometry functor may ask for, values per pair.
const MAX_CACHE_LEN: u32 = 64;

fn params_text(p: &Option<Box<ron::value::RawValue>>) -> &str {
    p.as_ref().map_or("", |r| r.get_ron())
}

/// The indices of the materials a scene's pair entry names by `name`: all for `"*"`,
/// `None` for an unknown name.
pub(crate) fn material_ids(materials: &BTreeMap<String, u32>, name: &str) -> Option<Vec<u32>> {
    match name {
        "*" => Some(materials.values().copied().collect()),
        _ => materials.get(name).map(|&m| vec![m]),
    }
}

/// Adds the scene file position of a params block to a plugin's error message.
fn locate_params(scene: &Scene, p: &Option<Box<ron::value::RawValue>>, e: DemError) -> DemError {
    match (p, e) {
        (Some(raw), DemError::Scene(msg)) => match scene.locate(raw.get_ron()) {
            Some((line, col)) => DemError::Scene(format!(
                "{}:{line}:{col}: params of {msg}",
                scene.origin.display()
            )),
            None => DemError::Scene(format!("{}: {msg}", scene.origin.display())),
        },
        (_, e) => e,
    }
}

impl Dispatch {
    /// Builds the tables for the shape kinds and materials present in the scene;
    /// `geometric_epsilon` (m) goes to every geometry functor declaring that parameter
    /// (see [`crate::scene::geometric_epsilon`]).
    pub fn build(
        scene: &Scene,
        plugins: &PluginSet,
        kinds_present: &BTreeSet<(ShapeKind, ShapeKind)>,
        materials: &BTreeMap<String, u32>,
        geometric_epsilon: f64,
    ) -> Result<Dispatch, DemError> {
        for (k, c) in scene.geometry.iter().enumerate() {
            for name in [&c.shapes.0, &c.shapes.1] {
                if plugins.shape_kind(name).is_none() {
                    let known = plugins.known_shape_names();
                    return Err(scene.error(format!(
                        "geometry[{k}].shapes: unknown shape kind `{name}` (known: {})",
                        known.join(", ")
                    )));
                }
            }
        }
        let mut geoms: Vec<GeomEntry> = Vec::new();
        let mut shape_table = BTreeMap::new();
        for &(ka, kb) in kinds_present {
            let chosen = scene.geometry.iter().find(|c| {
                let pair = (
                    plugins.shape_kind(&c.shapes.0),
                    plugins.shape_kind(&c.shapes.1),
                );
                pair == (Some(ka), Some(kb)) || pair == (Some(kb), Some(ka))
            });
            let offers: Vec<(String, String, bool, String)> = plugins
                .functors(FunctorRole::Geometry)
                .filter_map(|(p, f)| {
                    let s = (
                        plugins.shape_kind(&f.shapes[0]),
                        plugins.shape_kind(&f.shapes[1]),
                    );
                    if s == (Some(ka), Some(kb)) {
                        Some((
                            f.name.to_string(),
                            p.name.clone(),
                            false,
                            p.path.display().to_string(),
                        ))
                    } else if s == (Some(kb), Some(ka)) {
                        Some((
                            f.name.to_string(),
                            p.name.clone(),
                            true,
                            p.path.display().to_string(),
                        ))
                    } else {
                        None
                    }
                })
                .filter(|o| chosen.is_none_or(|c| c.functor == o.0))
                .collect();
            let pair = format!("{} + {}", plugins.shape_name(ka), plugins.shape_name(kb));
            let (name, plugin, swap) = match offers.as_slice() {
                [one] => (one.0.clone(), one.1.clone(), one.2),
                [] => {
                    let all: Vec<String> = plugins
                        .functors(FunctorRole::Geometry)
                        .map(|(p, f)| {
                            format!(
                                "{} [{} + {}] in {}",
                                f.name, f.shapes[0], f.shapes[1], p.name
                            )
                        })
                        .collect();
                    return Err(scene.error(format!(
                        "no geometry functor for shapes {pair}{}; loaded geometry functors: {}",
                        chosen.map_or(String::new(), |c| format!(" named `{}`", c.functor)),
                        if all.is_empty() {
                            "none".into()
                        } else {
                            all.join("; ")
                        }
                    )));
                }
                many => {
                    return Err(scene.error(format!(
                        "shapes {pair} are served by several functors ({}); choose one with \
                         geometry: [(shapes: (\"{}\", \"{}\"), functor: \"...\")]",
                        many.iter()
                            .map(|o| format!("{} in {}", o.0, o.3))
                            .collect::<Vec<_>>()
                            .join(", "),
                        plugins.shape_name(ka),
                        plugins.shape_name(kb)
                    )))
                }
            };
            let idx = match geoms.iter().position(|g| g.name == name) {
                Some(i) => i,
                None => {
                    let params = chosen
                        .and_then(|c| c.params.as_ref().map(|_| &c.params))
                        .unwrap_or(&None);
                    let declares_epsilon = plugins
                        .functors(FunctorRole::Geometry)
                        .find(|(_, f)| f.name == name.as_str())
                        .is_some_and(|(_, f)| f.params.iter().any(|p| p.name == PARAM));
                    let text = if declares_epsilon {
                        with_param(params_text(params), geometric_epsilon)
                    } else {
                        params_text(params).to_string()
                    };
                    let functor = plugins
                        .new_geometry(&name, &text)
                        .map_err(|e| locate_params(scene, params, e))?;
                    let features = match functor.features() {
                        n @ 1..=255 => n as u8,
                        n => {
                            return Err(scene.error(format!(
                                "geometry functor {name} (plugin {plugin}) asks for {n} contact \
                                 terms per pair; 1 to 255 are supported"
                            )))
                        }
                    };
                    // Values the functor keeps per pair (`what`): at most MAX_CACHE_LEN.
                    let slots = |n: u32, what: &str| match n {
                        0..=MAX_CACHE_LEN => Ok(n as usize),
                        _ => Err(scene.error(format!(
                            "geometry functor {name} (plugin {plugin}) asks for a {what} of {n} \
                             values; at most {MAX_CACHE_LEN} are supported"
                        ))),
                    };
                    let cache_len = slots(functor.cache_len(), "pair cache")?;
                    let state_len = slots(functor.state_len(), "contact state")?;
                    let reads = functor.reads();
                    geoms.push(GeomEntry {
                        name,
                        plugin,
                        functor,
                        features,
                        cache_len,
                        state_len,
                        reads,
                    });
                    geoms.len() - 1
                }
            };
            // Candidate pairs come ordered by particle id, so both kind orders are needed.
            shape_table.insert((ka, kb), (idx as u16, swap));
            if ka != kb {
                shape_table.insert((kb, ka), (idx as u16, !swap));
            }
        }

        let mut laws = Vec::new();
        let mut law_table = BTreeMap::new();
        for (k, choice) in scene.laws.iter().enumerate() {
            let ids = |name: &str| {
                material_ids(materials, name).ok_or_else(|| {
                    scene.error(format!("laws[{k}].materials: unknown material `{name}`"))
                })
            };
            let (a, b) = (ids(&choice.materials.0)?, ids(&choice.materials.1)?);
            // An unknown law is reported at its name, not at its parameters.
            let plugin = match plugins.find(FunctorRole::Law, &choice.law) {
                Ok(p) => p.name.clone(),
                Err(DemError::Scene(msg)) => {
                    let at = scene
                        .locate(&format!("\"{}\"", choice.law))
                        .map_or_else(String::new, |(line, col)| format!("{line}:{col}: "));
                    return Err(DemError::Scene(format!(
                        "{}:{at}laws[{k}].law: {msg}",
                        scene.origin.display()
                    )));
                }
                Err(e) => return Err(e),
            };
            let law = plugins
                .new_law(&choice.law, params_text(&choice.params))
                .map_err(|e| locate_params(scene, &choice.params, e))?;
            let distance = law.interaction_distance();
            if !(distance.is_finite() && distance >= 0.0) {
                return Err(scene.error(format!(
                    "laws[{k}]: {} (plugin {plugin}) reports interaction distance {distance}; it must be finite and >= 0",
                    choice.law
                )));
            }
            let idx = laws.len() as u16;
            for &ma in &a {
                for &mb in &b {
                    // The first matching choice wins, so specific entries go before wildcards.
                    law_table.entry((ma, mb)).or_insert(idx);
                    law_table.entry((mb, ma)).or_insert(idx);
                }
            }
            let state_len = law.state_len() as usize;
            // The plugin's names for the slots, as many as it keeps.
            let given = plugins.law_slot_names(&choice.law).unwrap_or_default();
            let slot_names = (0..state_len)
                .map(|j| given.get(j).cloned().unwrap_or_else(|| format!("slot_{j}")))
                .collect();
            laws.push(LawEntry {
                name: choice.law.clone(),
                plugin,
                state_len,
                slot_names,
                distance,
                reads: law.reads(),
                law,
                refresh: false,
            });
        }
        Ok(Dispatch {
            geoms,
            shape_table,
            laws,
            law_table,
            geometric_epsilon,
        })
    }
}
