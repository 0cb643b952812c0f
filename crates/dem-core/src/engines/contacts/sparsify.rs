//! Contact sparsification (reference 000, "Contact sparsification"; scene setting
//! `contacts: (sparsify: (threshold: ..., minarea: ..., mindist: ...))`, off by default).
//!
//! In dem each pair of convex bodies has one contact, so several contacts between the
//! same two *bodies* arise only where a body meets a mesh: one contact per facet under
//! it. Among the contacts of one (body, mesh) pair, a contact detected this step is
//! dropped (it does not start) when
//! 1. its area is below `minarea` (m^2), or
//! 2. a contact of the same pair that is kept (live, or new and examined before) lies on
//!    a *topologically adjacent* facet (sharing a vertex or an edge: a common vertex,
//!    found by the bitwise equal coordinates the mesh loader gives shared vertices) and
//!    its area times `threshold` (-) exceeds this one's, or
//! 3. a kept contact of the same pair has its point closer than `mindist` (m).
//!
//! New contacts are examined in slot order (a fixed order: functor, law, particle ids,
//! term), so the result does not depend on the thread count. Live contacts are never
//! dropped. The rule itself is dem-convex's [`dem_api::convex::sparsify`] (applied per
//! pair); its distance test is Euclidean `< mindist` as reference 000 states (Solfec's
//! code compares the max-norm with `2 mindist`: a cube of side `4 mindist` instead of a
//! ball of radius `mindist`), chosen because it does not depend on the axes. A dropped
//! contact is detected again the next step and examined again.
//!
//! The hook in the contact lifecycle is [`apply`], called by `Contacts::process` after
//! the geometry and detection of the step and the hand-over of contacts moving across a
//! mesh, before the new contacts are created: a dropped contact leaves the list of
//! contacts about to start.

use super::context::StepContext;
use super::Contacts;
use crate::model::particles::{Facet, Shape};
use dem_api::convex::{sparsify, SparsifyCandidate, SparsifyParams};
use dem_api::{FacetShape, RawGeom};
use nalgebra::Point3;
use std::collections::BTreeMap;

/// One contact between a body and a facet of a mesh, as the sparsifier sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshContact {
    /// The body's particle id.
    pub body: u32,
    /// The mesh's index.
    pub mesh: u32,
    /// Contact point, m.
    pub point: Point3<f64>,
    /// Contact area, m^2.
    pub area: f64,
    /// Detected this step (only these can be dropped)?
    pub is_new: bool,
}

/// Whether two facets of one mesh share a vertex (or an edge): shared vertices have
/// bitwise equal coordinates (see [`crate::model::mesh`]).
pub fn facets_adjacent(a: &FacetShape, b: &FacetShape) -> bool {
    a.vertices.iter().any(|u| b.vertices.contains(u))
}

/// Which of `contacts` to drop (`true` = drop), in input order; `adjacent(i, j)` says
/// whether the facets of contacts `i` and `j` (input indices; same mesh) are
/// topologically adjacent. Contacts are examined in input order, and compared only with
/// those of the same (body, mesh) pair.
pub fn redundant(
    contacts: &[MeshContact],
    params: &SparsifyParams,
    adjacent: impl Fn(usize, usize) -> bool,
) -> Vec<bool> {
    let mut groups: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
    for (i, c) in contacts.iter().enumerate() {
        groups.entry((c.body, c.mesh)).or_default().push(i);
    }
    let mut drop = vec![false; contacts.len()];
    for members in groups.values() {
        if !members.iter().any(|&i| contacts[i].is_new) {
            continue;
        }
        let candidates: Vec<SparsifyCandidate> = members
            .iter()
            .map(|&i| SparsifyCandidate {
                id: i as u64,
                bodies: (0, 1),
                point: contacts[i].point,
                area: contacts[i].area,
                is_new: contacts[i].is_new,
            })
            .collect();
        let keep = sparsify(&candidates, params, |x, y| adjacent(members[x], members[y]));
        for (k, &i) in members.iter().enumerate() {
            drop[i] = !keep[k];
        }
    }
    drop
}

/// Drops this step's redundant new mesh contacts (the lifecycle hook; see the module
/// documentation): `fresh` holds the contacts about to start (slot index and geometry, in
/// slot order); the dropped ones leave it. `c` gives the live contacts and their
/// geometry this step.
pub fn apply(
    c: &Contacts,
    fresh: &mut Vec<(u32, RawGeom)>,
    cx: &StepContext<'_>,
    params: &SparsifyParams,
) {
    let p = cx.particles;
    // The facet and the other body of a pair, if one body is a facet.
    let facet = |a: u32, b: u32| match (&p.shape[a as usize], &p.shape[b as usize]) {
        (Shape::Facet(f), _) => Some((&**f, b)),
        (_, Shape::Facet(f)) => Some((&**f, a)),
        _ => None,
    };
    let entry = |f: &Facet, body: u32, g: &RawGeom, is_new: bool| MeshContact {
        body,
        mesh: f.mesh,
        point: Point3::from(*g.point.na()),
        area: g.area,
        is_new,
    };
    // New contacts first (in slot order), then the live ones; each with its facet.
    let mut list = Vec::new();
    let mut shapes: Vec<&FacetShape> = Vec::new();
    for (j, g) in fresh.iter() {
        let s = &c.slots[*j as usize];
        if let Some((f, body)) = facet(s.a, s.b) {
            list.push(entry(f, body, g, true));
            shapes.push(&f.shape);
        }
    }
    if list.is_empty() {
        return;
    }
    for (_, k, g) in c.with_geometry() {
        if !k.active() || g.touching == 0 {
            continue;
        }
        if let Some((f, body)) = facet(k.a, k.b) {
            list.push(entry(f, body, g, false));
            shapes.push(&f.shape);
        }
    }
    let drop = redundant(&list, params, |x, y| facets_adjacent(shapes[x], shapes[y]));
    let mut n = 0;
    fresh.retain(|(j, g)| {
        let s = &c.slots[*j as usize];
        if facet(s.a, s.b).is_none() {
            return true;
        }
        n += 1;
        if drop[n - 1] {
            tracing::debug!(target: "dem::contact", event = "sparsified", a = s.a, b = s.b, t = cx.time, area = g.area);
        }
        !drop[n - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use dem_api::Vec3;

    fn contact(body: u32, mesh: u32, x: f64, area: f64, is_new: bool) -> MeshContact {
        MeshContact {
            body,
            mesh,
            point: Point3::new(x, 0.0, 0.0),
            area,
            is_new,
        }
    }

    const P: SparsifyParams = SparsifyParams {
        threshold: 0.1,
        minarea: 1e-4,
        mindist: 0.01,
    };

    #[test]
    fn small_new_contacts_go_live_ones_stay() {
        let c = [
            contact(5, 0, 0.0, 1e-5, false),
            contact(5, 0, 1.0, 1e-5, true),
            contact(5, 0, 2.0, 1e-3, true),
        ];
        assert_eq!(redundant(&c, &P, |_, _| false), [false, true, false]);
    }

    #[test]
    fn a_dominated_contact_goes_only_next_to_an_adjacent_facet() {
        // Area 0.05 next to a live contact of area 1 (threshold 0.1): dropped only if
        // the facets touch; points 0.5 m apart, beyond mindist.
        let c = [
            contact(5, 0, 0.0, 1.0, false),
            contact(5, 0, 0.5, 0.05, true),
        ];
        assert_eq!(redundant(&c, &P, |_, _| true), [false, true]);
        assert_eq!(redundant(&c, &P, |_, _| false), [false, false]);
        // Above the threshold it stays.
        let c = [
            contact(5, 0, 0.0, 1.0, false),
            contact(5, 0, 0.5, 0.2, true),
        ];
        assert_eq!(redundant(&c, &P, |_, _| true), [false, false]);
    }

    #[test]
    fn close_points_keep_the_one_examined_last() {
        // Two new contacts 5 mm apart (mindist 10 mm): the first examined goes, the
        // second then has no kept neighbour within mindist.
        let c = [
            contact(5, 0, 0.0, 1.0, true),
            contact(5, 0, 0.005, 1.0, true),
        ];
        assert_eq!(redundant(&c, &P, |_, _| false), [true, false]);
        // 20 mm apart: both stay.
        let c = [
            contact(5, 0, 0.0, 1.0, true),
            contact(5, 0, 0.02, 1.0, true),
        ];
        assert_eq!(redundant(&c, &P, |_, _| false), [false, false]);
    }

    #[test]
    fn other_pairs_are_never_compared() {
        // Same point, same body, another mesh; same mesh, another body.
        let c = [
            contact(5, 0, 0.0, 1.0, false),
            contact(5, 1, 0.0, 1.0, true),
            contact(6, 0, 0.0, 1.0, true),
        ];
        assert_eq!(redundant(&c, &P, |_, _| true), [false, false, false]);
    }

    #[test]
    fn facets_sharing_a_vertex_are_adjacent() {
        let tri = |v: [[f64; 3]; 3]| unsafe {
            FacetShape::new(
                v.map(|x| Vec3::new(x[0], x[1], x[2])),
                Vec3::new(0.0, 0.0, 1.0),
                0.0,
                [Vec3::ZERO; 3],
                0,
                [&[], &[], &[]],
            )
        };
        let a = tri([[0., 0., 0.], [1., 0., 0.], [1., 1., 0.]]);
        let edge = tri([[0., 0., 0.], [1., 1., 0.], [0., 1., 0.]]);
        let corner = tri([[1., 1., 0.], [2., 1., 0.], [2., 2., 0.]]);
        let apart = tri([[3., 0., 0.], [4., 0., 0.], [4., 1., 0.]]);
        assert!(facets_adjacent(&a, &edge) && facets_adjacent(&a, &corner));
        assert!(!facets_adjacent(&a, &apart));
    }
}
