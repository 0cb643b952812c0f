//! The geometric epsilon of the polyhedron functors: the length below which two bodies
//! touch rather than overlap or stand apart.
//!
//! A scene sets it once, as a length, with `contacts: (geometric_epsilon: ...)` (default
//! `1e-6` times the model size; see `docs/scenes.md`); the scene loader hands it to every
//! geometry functor that declares the parameter `geometric_epsilon`. A functor built
//! without it (the law tester, unit tests) falls back to `GEOMETRIC_EPSILON` (1e-6) times
//! the size of the pair it looks at.

use dem_api::convex::GEOMETRIC_EPSILON;
use dem_api::sdk::Param;

/// Name of the parameter the scene loader fills.
pub const NAME: &str = "geometric_epsilon";

/// The parameter's documentation, for `PARAMS`.
pub const PARAM: Param = Param {
    name: NAME,
    unit: "m",
    doc: "geometric epsilon, a length: bodies closer than this touch. Filled from the \
          scene's contacts.geometric_epsilon (default 1e-6 times the model size); without \
          it, 1e-6 times the pair's size",
};

/// Checks a given epsilon (m): finite and positive.
pub fn check(value: Option<f64>) -> Result<(), String> {
    match value {
        Some(e) if !(e.is_finite() && e > 0.0) => {
            Err(format!("{NAME} must be a finite length > 0 (m), got {e}"))
        }
        _ => Ok(()),
    }
}

/// The epsilon to use (m): `value` when given, else `GEOMETRIC_EPSILON × size` with
/// `size` (m) the pair's characteristic size.
pub fn absolute(value: Option<f64>, size: f64) -> f64 {
    value.unwrap_or(GEOMETRIC_EPSILON * size)
}
