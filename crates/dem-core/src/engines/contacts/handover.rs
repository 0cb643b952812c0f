//! Hand-over of contacts moving across a mesh.
//!
//! A mesh is one rigid body, but its facets are separate particles, so a sphere rolling
//! from one facet to the next ends a contact with the first and starts one with the second.
//! Each facet reports a contact only where it owns the closest feature (see the facet
//! functor), so in that step the first facet stops reporting and the second starts. Were
//! the second contact new, its tangential spring and law state would start from zero and
//! the sphere would feel a jump where the surface has none. Instead the new contact takes
//! over the state (L6Geom frame and displacements, onset data, law state) of the ended one:
//! the contact is the same, only its closest feature moved.
//!
//! Matching, in slot order (deterministic): a live contact of a sphere with a facet of mesh
//! M whose functor no longer reports it, and a contact starting this step between the same
//! sphere and another facet of M with the same law and term. When a sphere leaves several facets of
//! M at once, the ended contact whose normal is closest to the new one is taken.

use super::context::StepContext;
use super::Contacts;
use crate::model::particles::Shape;
use dem_api::RawGeom;
use std::collections::HashMap;

/// (other particle, mesh) of a slot whose one body is a facet.
fn mesh_key(cx: &StepContext<'_>, a: u32, b: u32) -> Option<(u32, u32)> {
    let p = cx.particles;
    match (&p.shape[a as usize], &p.shape[b as usize]) {
        (Shape::Facet(f), _) => Some((b, f.mesh)),
        (_, Shape::Facet(f)) => Some((a, f.mesh)),
        _ => None,
    }
}

/// Moves the state of ended facet contacts to the contacts starting this step (`fresh`:
/// slot index and geometry, in slot order) on another facet of the same mesh with the
/// same sphere; the taken starts leave `fresh`.
pub fn hand_over(c: &mut Contacts, fresh: &mut Vec<(u32, RawGeom)>, cx: &StepContext<'_>) {
    let mut ended: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (k, s, g) in c.with_geometry() {
        if g.touching == 0 {
            if let Some(key) = mesh_key(cx, s.a, s.b) {
                ended.entry(key).or_default().push(k);
            }
        }
    }
    if ended.is_empty() {
        return;
    }
    let mut kept = Vec::with_capacity(fresh.len());
    for (j, g) in fresh.drain(..) {
        let s = c.slots[j as usize];
        let Some(list) = mesh_key(cx, s.a, s.b).and_then(|k| ended.get_mut(&k)) else {
            kept.push((j, g));
            continue;
        };
        let normal = g.normal.na();
        let contacts = c.list();
        let best = list
            .iter()
            .enumerate()
            .filter(|&(_, &k)| contacts[k].law == s.law && contacts[k].feature == s.feature)
            .max_by(|(_, &x), (_, &y)| {
                let dot = |k: usize| c.geometry(k).frame.row(0).transpose().dot(normal);
                dot(x).total_cmp(&dot(y))
            })
            .map(|(i, &k)| (i, k));
        match best {
            Some((i, k)) => {
                list.swap_remove(i);
                tracing::debug!(target: "dem::contact", event = "handover", from_a = contacts[k].a, from_b = contacts[k].b, a = s.a, b = s.b, t = cx.time);
                c.move_contact(k, j as usize, g);
            }
            None => kept.push((j, g)),
        }
    }
    *fresh = kept;
}
