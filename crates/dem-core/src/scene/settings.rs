//! The scene's contact settings (the `contacts` block): plain serde data, read with the
//! scene. The engines that act on them (the broad phase, [`crate::l6geom`],
//! [`crate::sparsify`], the contact lifecycle) import them from here.

use super::geometric_epsilon;
use dem_api::convex::SparsifyParams;
use serde::{Deserialize, Serialize};

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
    /// many steps after the last reordering; see [`crate::reorder`]); 0: never.
    pub reorder: u64,
    /// Geometric epsilon, m: bodies closer than this touch (polyhedron functors). `None`:
    /// 1e-6 times the model size (see [`geometric_epsilon`]).
    #[serde(deserialize_with = "geometric_epsilon::positive_length")]
    pub geometric_epsilon: Option<f64>,
    /// Contact sparsification of mesh contacts (off when absent); see
    /// [`crate::sparsify`].
    pub sparsify: Option<SparsifySettings>,
}

/// Broad-phase method for pairs of bounded particles (both give the same pairs).
#[derive(Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BroadPhase {
    /// A uniform cell grid of the largest particle's size: best for narrow size
    /// distributions.
    #[default]
    Grid,
    /// Zomorodian and Edelsbrunner's hybrid box intersection of the particles' bounding
    /// boxes: for wide size distributions, where a grid sized for the largest particle
    /// holds many small ones per cell.
    BoxIntersection,
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

/// Accuracy switches (Woo's approximation flags) and the branch-vector choice.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct L6Options {
    /// Use branch vectors `r_i n` instead of `c - x_i` (Yade's avoidGranularRatcheting).
    pub no_ratch: bool,
    /// Use the previous normal instead of the mid-step normal.
    pub no_mid_normal: bool,
    /// Skip renormalisation of the mid-step normal and of the frame.
    pub no_renorm: bool,
    /// Use the previous frame instead of the slerped mid-step frame.
    pub no_mid_frame: bool,
    /// Normal rate `u_dot.x` from the relative velocity of the contact point (`n_mid .
    /// v_r`, with the point and the positions at mid-step, `t - dt/2`, where the
    /// velocities are, and true branch vectors) instead of the gap difference. For
    /// functors whose gap is an energy-equivalent quantity rather than a distance
    /// (polyhedra): a normal dashpot then does, and books, the work of a force at the
    /// contact point.
    pub point_rate: bool,
}

impl Default for L6Options {
    fn default() -> Self {
        L6Options {
            no_ratch: true,
            no_mid_normal: false,
            no_renorm: false,
            no_mid_frame: false,
            point_rate: false,
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
