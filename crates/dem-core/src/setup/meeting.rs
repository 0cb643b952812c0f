//! What can meet in a scene: the pairs of shape kinds the dispatch needs a geometry
//! functor for and the pairs of materials that need a contact law, from the particles and
//! what the inlets will insert; and the rule that only bodies the contacts cannot deform
//! (walls, mesh facets) may be rigid.

use crate::engines::flow::Flow;
use crate::model::particles::Particles;
use crate::scene::Scene;
use crate::support::error::DemError;
use dem_api::ShapeKind;
use std::collections::BTreeSet;

/// Refuses a rigid material on a free body or on what an inlet inserts (two rigid bodies
/// would make an infinitely stiff contact); `names` are the materials by index.
pub(crate) fn check_rigid(
    scene: &Scene,
    names: &[String],
    particles: &Particles,
    flow: &Flow,
) -> Result<(), DemError> {
    let rigid = |m: u32| scene.materials[&names[m as usize]].rigid;
    let bodies = (0..particles.len()).filter(|&i| particles.shape[i].bounding_radius().is_some());
    for i in bodies {
        if rigid(particles.material[i]) {
            return Err(scene.error(format!(
                "materials.{}: rigid: true is for walls and mesh facets only, but body {} \
                 (a {}) uses it; give it a Young's modulus",
                names[particles.material[i] as usize],
                i,
                particles.shape[i].name()
            )));
        }
    }
    for (k, inlet) in flow.inlets.iter().enumerate() {
        if let Some(m) = inlet.materials().find(|&m| rigid(m)) {
            return Err(scene.error(format!(
                "materials.{}: rigid: true is for walls and mesh facets only, but \
                 inlets[{k}] inserts particles of it; give it a Young's modulus",
                names[m as usize]
            )));
        }
    }
    Ok(())
}

/// The shape-kind pairs and material pairs (each ordered low, high for kinds) the broad
/// phase can produce: a free (bounded) particle meets every particle; walls and facets
/// meet only free ones. The inlets' particles meet everything, each other included.
#[allow(clippy::type_complexity)]
pub(crate) fn pairs(
    particles: &Particles,
    flow: &Flow,
) -> (BTreeSet<(ShapeKind, ShapeKind)>, BTreeSet<(u32, u32)>) {
    let mut kinds = BTreeSet::new();
    let mut mats = BTreeSet::new();
    let bounded: Vec<usize> = (0..particles.len())
        .filter(|&i| particles.shape[i].bounding_radius().is_some())
        .collect();
    let mut kind_set: BTreeSet<_> = (0..particles.len())
        .map(|i| particles.shape[i].kind())
        .collect();
    let mut bounded_kinds: BTreeSet<_> =
        bounded.iter().map(|&i| particles.shape[i].kind()).collect();
    let mut all_mats: BTreeSet<u32> = particles.material.iter().copied().collect();
    let mut bounded_mats: BTreeSet<u32> = bounded.iter().map(|&i| particles.material[i]).collect();
    for inlet in &flow.inlets {
        bounded_kinds.insert(inlet.maker.kind());
        kind_set.insert(inlet.maker.kind());
        all_mats.extend(inlet.materials());
        bounded_mats.extend(inlet.materials());
    }
    for &kb in &bounded_kinds {
        for &ka in &kind_set {
            kinds.insert((ka.min(kb), ka.max(kb)));
        }
    }
    for &mb in &bounded_mats {
        for &ma in &all_mats {
            mats.insert((ma, mb));
        }
    }
    (kinds, mats)
}
