//! The scene's contact settings (the `contacts` block): plain serde data, read with the
//! scene. The broad phase and the L6Geom own the types of their parts ([`BroadPhase`],
//! [`L6Options`]); this block gathers them, with the sparsification's
//! ([`SparsifySettings`], read by [`crate::engines::contacts::sparsify`]).

use super::geometric_epsilon;
use crate::engines::broadphase::BroadPhase;
use crate::engines::l6geom::L6Options;
use dem_api::convex::SparsifyParams;
use serde::Deserialize;

/// Contact handling settings.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(default, deny_unknown_fields)]
pub struct ContactSettings {
    /// Verlet skin as a fraction of the largest sphere radius.
    pub skin: f64,
    /// Hysteresis band, m: a contact is created when the gap falls below the law's
    /// interaction distance and removed when it rises above it by more than this.
    pub contact_eps: f64,
    /// L6Geom options.
    pub l6geom: L6Options,
    /// How the broad phase finds the pairs of bounded particles.
    pub broad_phase: BroadPhase,
    /// Steps between two reorderings of the free particles' storage in Morton order of
    /// their positions (at the first broad-phase rebuild, then at the first rebuild this
    /// many steps after the last reordering; see [`crate::engines::reorder`]); 0: never.
    pub reorder: u64,
    /// Geometric epsilon, m: bodies closer than this touch (polyhedron functors). `None`:
    /// 1e-6 times the model size (see [`geometric_epsilon`]).
    #[serde(deserialize_with = "geometric_epsilon::positive_length")]
    pub geometric_epsilon: Option<f64>,
    /// Contact sparsification of mesh contacts (off when absent); see
    /// [`crate::engines::contacts::sparsify`].
    pub sparsify: Option<SparsifySettings>,
}

impl Default for ContactSettings {
    fn default() -> Self {
        ContactSettings {
            skin: 0.2,
            contact_eps: 1e-13,
            l6geom: L6Options::default(),
            broad_phase: BroadPhase::Grid,
            reorder: 1000,
            geometric_epsilon: None,
            sparsify: None,
        }
    }
}

/// The scene's `contacts.sparsify` block.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields, try_from = "Fields")]
pub struct SparsifySettings {
    /// Relative area threshold, in [0, 1].
    pub threshold: f64,
    /// Minimum area, m^2 (>= 0).
    pub minarea: f64,
    /// Minimum distance between contact points, m (>= 0).
    pub mindist: f64,
}

/// The block as written, before its values are checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Fields {
    threshold: f64,
    minarea: f64,
    mindist: f64,
}

impl TryFrom<Fields> for SparsifySettings {
    type Error = String;

    fn try_from(f: Fields) -> Result<Self, String> {
        if !(0.0..=1.0).contains(&f.threshold) {
            return Err(format!(
                "contacts.sparsify.threshold must be in [0, 1], got {}",
                f.threshold
            ));
        }
        for (name, v) in [("minarea", f.minarea), ("mindist", f.mindist)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!(
                    "contacts.sparsify.{name} must be finite and >= 0, got {v}"
                ));
            }
        }
        Ok(SparsifySettings {
            threshold: f.threshold,
            minarea: f.minarea,
            mindist: f.mindist,
        })
    }
}

impl From<SparsifySettings> for SparsifyParams {
    fn from(s: SparsifySettings) -> Self {
        SparsifyParams {
            threshold: s.threshold,
            minarea: s.minarea,
            mindist: s.mindist,
        }
    }
}
