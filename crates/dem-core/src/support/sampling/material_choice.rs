//! The material of generated particles: one name, or a mix of names by number fraction.

use serde::Deserialize;
use std::collections::BTreeMap;

/// The material of a generator's particles: one name (`"glass"`), or a mix of names with
/// the fraction of the particles made of each (`[("glass", 0.7), ("steel", 0.3)]`,
/// normalised to sum 1), drawn independently for each particle.
#[derive(Debug, Clone, PartialEq)]
pub enum MaterialChoice {
    /// Every particle of this material.
    One(String),
    /// `(material name, number fraction)` pairs.
    Mix(Vec<(String, f64)>),
}

impl<'de> Deserialize<'de> for MaterialChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Choice;
        impl<'de> serde::de::Visitor<'de> for Choice {
            type Value = MaterialChoice;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a material name (\"glass\") or a list of (name, fraction) pairs \
                     ([(\"glass\", 0.7), (\"steel\", 0.3)])",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MaterialChoice::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut parts = Vec::new();
                while let Some(part) = seq.next_element::<(String, f64)>()? {
                    parts.push(part);
                }
                Ok(MaterialChoice::Mix(parts))
            }
        }
        d.deserialize_any(Choice)
    }
}

impl MaterialChoice {
    /// `(material index, number fraction)` pairs, fractions normalised to sum 1;
    /// `materials` maps names to indices. The error names the material or the fraction
    /// at fault (the caller prefixes the field).
    pub fn resolve(&self, materials: &BTreeMap<String, u32>) -> Result<Vec<(u32, f64)>, String> {
        let index = |name: &str| {
            materials.get(name).copied().ok_or_else(|| {
                format!(
                    "unknown material `{name}` (defined: {})",
                    materials.keys().cloned().collect::<Vec<_>>().join(", ")
                )
            })
        };
        match self {
            MaterialChoice::One(name) => Ok(vec![(index(name)?, 1.0)]),
            MaterialChoice::Mix(parts) => {
                let mut mix = Vec::with_capacity(parts.len());
                for (name, f) in parts {
                    if !(*f >= 0.0 && f.is_finite()) {
                        return Err(format!(
                            "the fraction of `{name}` must be >= 0 and finite, got {f}"
                        ));
                    }
                    mix.push((index(name)?, *f));
                }
                let total: f64 = mix.iter().map(|m| m.1).sum();
                if !(total > 0.0 && total.is_finite()) {
                    return Err(format!(
                        "the fractions must sum to more than 0, got {total}"
                    ));
                }
                Ok(mix.iter().map(|&(m, f)| (m, f / total)).collect())
            }
        }
    }
}

/// A material of `mix` (from [`MaterialChoice::resolve`]) drawn by its fraction; a single
/// material draws no random number.
pub fn pick(mix: &[(u32, f64)], rng: &mut impl rand::Rng) -> u32 {
    if mix.len() == 1 {
        return mix[0].0;
    }
    let u: f64 = rng.random();
    let mut sum = 0.0;
    mix.iter()
        .find(|&&(_, f)| {
            sum += f;
            u < sum
        })
        .unwrap_or(&mix[mix.len() - 1])
        .0
}
