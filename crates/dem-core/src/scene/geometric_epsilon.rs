//! The scene's geometric epsilon (`contacts: (geometric_epsilon: ...)`), a length in m:
//! the distance below which the polyhedron functors treat two bodies as touching (Solfec's
//! `GEOMETRIC_EPSILON`).
//!
//! Default: `1e-6` times the **model size**, the diagonal of the axis-aligned box that
//! holds every bounded body at `t = 0` (spheres and polyhedra with their bounding spheres,
//! the vertices of mesh facets; walls, being infinite, are left out) and the regions of
//! the inlets that insert polyhedra.
//!
//! It reaches the plugins as a functor parameter: every geometry functor that declares a
//! parameter named `geometric_epsilon` gets `geometric_epsilon: <value>` added to its
//! `params`, unless the scene's `geometry` entry for it sets `geometric_epsilon` (m) or
//! `epsilon` (the older relative form of `Cg2_Polyhedron_Polyhedron_L6Geom`) itself: a
//! per-functor setting overrides the scene's.

use crate::engines::flow::Flow;
use crate::model::particles::{Particles, Shape};
use dem_api::ShapeKind;
use nalgebra::Vector3;
use serde::{Deserialize, Deserializer};

/// Default geometric epsilon relative to the model size.
pub const RELATIVE_DEFAULT: f64 = 1e-6;

/// Name of the functor parameter (and of the scene field).
pub const PARAM: &str = "geometric_epsilon";

/// Deserializes the scene field, refusing a value that is not a finite length > 0 (the
/// parser then reports the file, line and column).
pub fn positive_length<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = Option::<f64>::deserialize(d)?;
    match v {
        Some(e) if !(e.is_finite() && e > 0.0) => Err(serde::de::Error::custom(format!(
            "contacts.geometric_epsilon must be a finite length > 0 (m), got {e}"
        ))),
        _ => Ok(v),
    }
}

/// The model size (m): the diagonal of the box around every bounded body and the boxes
/// `extra` (see the module documentation); 0 when there is none.
pub fn model_size(
    p: &Particles,
    extra: impl IntoIterator<Item = (Vector3<f64>, Vector3<f64>)>,
) -> f64 {
    let mut lo = Vector3::repeat(f64::INFINITY);
    let mut hi = Vector3::repeat(f64::NEG_INFINITY);
    let mut add = |a: Vector3<f64>, b: Vector3<f64>| {
        lo = lo.inf(&a);
        hi = hi.sup(&b);
    };
    for (a, b) in extra {
        add(a, b);
    }
    for i in 0..p.len() {
        match &p.shape[i] {
            Shape::Facet(f) => {
                for v in f.vertices(&p.pos[i], &p.ori[i]) {
                    add(v, v);
                }
            }
            s => {
                if let Some(r) = s.bounding_radius() {
                    let r = Vector3::repeat(r);
                    add(p.pos[i] - r, p.pos[i] + r);
                }
            }
        }
    }
    if lo.x > hi.x {
        0.0
    } else {
        (hi - lo).norm()
    }
}

/// The scene's value, or the default for these particles and inlets (m).
pub fn resolve(setting: Option<f64>, p: &Particles, flow: &Flow) -> f64 {
    setting.unwrap_or_else(|| {
        let regions = flow
            .inlets
            .iter()
            .filter(|inlet| inlet.maker.kind() == ShapeKind::POLYHEDRON)
            .map(|inlet| inlet.spec.region.bounds());
        RELATIVE_DEFAULT * model_size(p, regions)
    })
}

/// Does the RON text name the field `name` (followed by `:`)?
fn names_field(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        before.is_none_or(|c| !ident(c)) && text[i + name.len()..].trim_start().starts_with(':')
    })
}

/// The params text a functor declaring `geometric_epsilon` is built with: `text` with
/// `geometric_epsilon: eps` added, unless it already sets `geometric_epsilon` or
/// `epsilon` (or is not a parenthesised struct, which the plugin will refuse itself).
/// The field goes last, so positions the plugin reports in the user's text still hold.
pub fn with_param(text: &str, eps: f64) -> String {
    let t = text.trim_end();
    if t.trim().is_empty() {
        return format!("({PARAM}: {eps:e})");
    }
    if names_field(t, PARAM) || names_field(t, "epsilon") || !t.ends_with(')') {
        return text.to_string();
    }
    let body = t[..t.len() - 1].trim_end();
    let sep = if body.ends_with(',') || body.ends_with('(') {
        ""
    } else {
        ","
    };
    format!("{body}{sep} {PARAM}: {eps:e})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameter_is_added_unless_set() {
        assert_eq!(with_param("", 2e-7), "(geometric_epsilon: 2e-7)");
        assert_eq!(with_param("()", 2e-7), "( geometric_epsilon: 2e-7)");
        assert_eq!(
            with_param("(convergent: true)", 1e-6),
            "(convergent: true, geometric_epsilon: 1e-6)"
        );
        assert_eq!(
            with_param("(a: 1,\n )", 1e-6),
            "(a: 1, geometric_epsilon: 1e-6)"
        );
        for own in ["(geometric_epsilon: 1e-3)", "(epsilon : 1e-5)"] {
            assert_eq!(with_param(own, 1e-6), own);
        }
        // A field whose name merely contains the word is not the parameter.
        assert_eq!(
            with_param("(my_epsilon: 1)", 1e-6),
            "(my_epsilon: 1, geometric_epsilon: 1e-6)"
        );
    }

    #[test]
    fn model_size_is_the_diagonal_of_the_bounded_bodies() {
        let mut p = Particles::default();
        for x in [Vector3::zeros(), Vector3::new(3.0, 4.0, 0.0)] {
            let ball = Shape::Sphere(dem_api::SphereShape { radius: 1.0 });
            let z = Vector3::zeros();
            p.push(ball, x, z, z, 1.0, z, Default::default(), 0);
        }
        // Box [-1, 4] x [-1, 5] x [-1, 1]: diagonal sqrt(25 + 36 + 4).
        assert!((model_size(&p, []) - 65f64.sqrt()).abs() < 1e-12);
        assert!((resolve(None, &p, &Flow::default()) - 1e-6 * 65f64.sqrt()).abs() < 1e-18);
        assert_eq!(resolve(Some(0.5), &p, &Flow::default()), 0.5);
        assert_eq!(model_size(&Particles::default(), []), 0.0);
    }
}
