//! Dispatch: which geometry functor serves a pair of shape kinds (with a swap flag when the
//! pair comes in the other order), and which law serves a pair of materials.

use dem_api::{Cg2Box, GeomReads, LawBox, LawReads, ShapeKind};
use std::collections::BTreeMap;

/// A geometry functor in use.
pub struct GeomEntry {
    /// Functor name.
    pub name: String,
    /// Plugin name.
    pub plugin: String,
    /// The instance.
    pub functor: Cg2Box,
    /// Contact terms per pair (1 for most functors; see `FunctorInfo::features`).
    pub features: u8,
    /// Slots of the functor's pair cache (`Cg2Functor::cache_len`; 0: none).
    pub cache_len: usize,
    /// Slots of the functor's contact state (`Cg2Functor::state_len`; 0: none).
    pub state_len: usize,
    /// What the functor reads of its bodies (`Cg2Functor::reads`).
    pub reads: GeomReads,
}

/// A law in use (one per law choice of the scene).
pub struct LawEntry {
    /// Law name.
    pub name: String,
    /// Plugin name.
    pub plugin: String,
    /// The instance.
    pub law: LawBox,
    /// State slots per contact.
    pub state_len: usize,
    /// A name for each state slot (the plugin's, or `slot_<j>`).
    pub slot_names: Vec<String>,
    /// Interaction distance, m.
    pub distance: f64,
    /// What the law reads of a batch (`ContactLaw::reads`).
    pub reads: LawReads,
    /// Do its contacts compute their constants again at the next step (its parameters or
    /// the materials were changed between two steps; see
    /// [`crate::step::simulation::changes`])?
    pub refresh: bool,
}

/// The 2-D dispatch table over shape kinds and the law table over materials.
pub struct Dispatch {
    /// Geometry functors in use.
    pub geoms: Vec<GeomEntry>,
    /// `(kind a, kind b)` of a candidate pair (a the smaller id) to (functor, swap).
    pub shape_table: BTreeMap<(ShapeKind, ShapeKind), (u16, bool)>,
    /// Laws in use.
    pub laws: Vec<LawEntry>,
    /// `(material a, material b)` to law index (both orders present).
    pub law_table: BTreeMap<(u32, u32), u16>,
    /// The scene's geometric epsilon, m (given to functors declaring the parameter).
    pub geometric_epsilon: f64,
}

impl Dispatch {
    /// Values of contact state the geometry functors keep per contact: the largest
    /// `Cg2Functor::state_len` (0: none).
    pub fn geom_state_len(&self) -> usize {
        self.geoms.iter().map(|g| g.state_len).max().unwrap_or(0)
    }

    /// Does a functor serving spheres read its bodies' orientation? When none does, the
    /// orientation of a sphere changes nothing in the run.
    pub fn reads_sphere_orientation(&self) -> bool {
        self.shape_table.iter().any(|(&(a, b), &(g, swap))| {
            // The kinds of the functor's body 1 and body 2.
            let kinds = if swap { [b, a] } else { [a, b] };
            let reads = self.geoms[g as usize].reads;
            (0..2)
                .any(|k| kinds[k] == ShapeKind::SPHERE && reads.contains(GeomReads::orientation(k)))
        })
    }
}
