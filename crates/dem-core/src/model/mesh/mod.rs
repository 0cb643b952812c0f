//! Triangle meshes: reading ([`read`]), placing, and the connectivity a facet functor needs
//! to treat shared edges and vertices as one smooth surface.
//!
//! Vertices are welded by exact equality of their coordinates. For every edge shared by
//! exactly two facets, each facet learns the in-plane direction pointing into the other
//! one; an edge used by one facet (or by more than two) is a boundary edge for each of
//! them. Each edge and each vertex is owned by the lowest-numbered facet using it. For every
//! vertex, the directions of all edges leaving it (its fan) are stored once per mesh.

pub mod read;

use crate::model::particles::Facet;
use dem_api::{FacetShape, Vec3};
use nalgebra::Vector3;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Distance from `x` to the triangle `v`, m: to its plane where `x` projects inside it,
/// else to the nearest of its edges.
pub(crate) fn triangle_distance(x: &Vector3<f64>, v: &[Vector3<f64>; 3]) -> f64 {
    let n = (v[1] - v[0]).cross(&(v[2] - v[0]));
    let inside = (0..3).all(|k| {
        let (a, b) = (v[k], v[(k + 1) % 3]);
        (b - a).cross(&(x - a)).dot(&n) >= 0.0
    });
    if inside && n.norm() > 0.0 {
        return (x - v[0]).dot(&n).abs() / n.norm();
    }
    (0..3)
        .map(|k| {
            let (a, b) = (v[k], v[(k + 1) % 3]);
            let e = b - a;
            let t = if e.norm_squared() > 0.0 {
                ((x - a).dot(&e) / e.norm_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            (x - (a + e * t)).norm()
        })
        .fold(f64::INFINITY, f64::min)
}

/// A mesh in a simulation: one rigid body made of consecutive facet particles, which all
/// share its reference point (their position) and orientation.
#[derive(Clone, Debug)]
pub struct MeshBody {
    /// Name (the scene's `name`, or the file stem).
    pub name: String,
    /// Particle ids of its facets.
    pub facets: std::ops::Range<usize>,
}

/// Total contact load on a mesh at the last step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshLoad {
    /// Force on the mesh, N.
    pub force: Vector3<f64>,
    /// Torque on the mesh about its reference point, N m.
    pub torque: Vector3<f64>,
    /// The reference point, m.
    pub point: Vector3<f64>,
}

impl MeshBody {
    /// Sum of the contact forces and torques on the facets (the facets' torques are about
    /// their common position, the mesh's reference point).
    pub fn load(&self, p: &crate::model::particles::Particles) -> MeshLoad {
        let mut l = MeshLoad {
            force: Vector3::zeros(),
            torque: Vector3::zeros(),
            point: p.pos[self.facets.start],
        };
        for i in self.facets.clone() {
            l.force += p.force[i];
            l.torque += p.torque[i];
        }
        l
    }
}

/// The facets of a mesh whose vertices `tris` are in the global frame, relative to the
/// mesh's reference point `origin` (every facet gets that point as its position).
pub fn build_facets(
    tris: &[[Vector3<f64>; 3]],
    origin: &Vector3<f64>,
    halfthick: f64,
    mesh: u32,
) -> Vec<Facet> {
    let mut ids: HashMap<[u64; 3], u32> = HashMap::new();
    let mut verts: Vec<Vector3<f64>> = Vec::new();
    let faces: Vec<[u32; 3]> = tris
        .iter()
        .map(|t| {
            t.map(|x| {
                let local = x - origin;
                *ids.entry(local.map(f64::to_bits).into())
                    .or_insert_with(|| {
                        verts.push(local);
                        verts.len() as u32 - 1
                    })
            })
        })
        .collect();

    // Edge (sorted vertex ids) -> facets using it, with the edge's index in each.
    let mut edges: BTreeMap<(u32, u32), Vec<(usize, usize)>> = BTreeMap::new();
    let mut vertex_owner = vec![u32::MAX; verts.len()];
    for (f, face) in faces.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (face[k], face[(k + 1) % 3]);
            edges.entry((a.min(b), a.max(b))).or_default().push((f, k));
            vertex_owner[a as usize] = vertex_owner[a as usize].min(f as u32);
        }
    }

    // Fans: directions of the edges leaving each vertex, in one buffer.
    let mut around: Vec<Vec<u32>> = vec![Vec::new(); verts.len()];
    for &(a, b) in edges.keys() {
        around[a as usize].push(b);
        around[b as usize].push(a);
    }
    let mut buffer: Vec<Vec3> = Vec::new();
    let mut ranges = Vec::with_capacity(verts.len());
    for (v, others) in around.iter().enumerate() {
        let start = buffer.len();
        for &o in others {
            buffer.push((verts[o as usize] - verts[v]).normalize().into());
        }
        ranges.push(start..buffer.len());
    }
    let fans: Arc<[Vec3]> = buffer.into();
    // A vertex is interior when every edge around it is shared by exactly two facets.
    let mut interior = vec![true; verts.len()];
    for (&(a, b), users) in &edges {
        if users.len() != 2 {
            interior[a as usize] = false;
            interior[b as usize] = false;
        }
    }

    faces
        .iter()
        .enumerate()
        .map(|(f, face)| {
            let x = face.map(|i| verts[i as usize]);
            let normal = (x[1] - x[0]).cross(&(x[2] - x[0])).normalize();
            let mut inward = [Vec3::ZERO; 3];
            let mut owns = 0u32;
            for k in 0..3 {
                let (a, b) = (face[k], face[(k + 1) % 3]);
                let users = &edges[&(a.min(b), a.max(b))];
                if users.iter().all(|&(g, _)| g >= f) {
                    owns |= 1 << k;
                }
                if vertex_owner[face[k] as usize] == f as u32 {
                    owns |= 1 << (3 + k);
                }
                if interior[face[k] as usize] {
                    owns |= 1 << (6 + k);
                }
                if let [(g0, j0), (g1, j1)] = users.as_slice() {
                    let (g, j) = if *g0 == f { (*g1, *j1) } else { (*g0, *j0) };
                    let third = verts[faces[g][(j + 2) % 3] as usize];
                    let (pa, pb) = (verts[a as usize], verts[b as usize]);
                    let e = (pb - pa).normalize();
                    let w = third - pa;
                    inward[k] = (w - e * e.dot(&w)).normalize().into();
                }
            }
            let fan = |k: usize| &fans[ranges[face[k] as usize].clone()];
            // SAFETY: the slices point into `fans`, which every facet of the mesh keeps
            // alive (the `Arc` in `Facet`) and nothing mutates.
            let shape = unsafe {
                FacetShape::new(
                    x.map(Vec3::from),
                    normal.into(),
                    halfthick,
                    inward,
                    owns,
                    [fan(0), fan(1), fan(2)],
                )
            };
            Facet {
                shape,
                mesh,
                fans: fans.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_triangles_of_a_square() {
        let v = |x: f64, y: f64| Vector3::new(x, y, 0.0);
        let tris = [
            [v(0., 0.), v(1., 0.), v(1., 1.)],
            [v(0., 0.), v(1., 1.), v(0., 1.)],
        ];
        let f = build_facets(&tris, &Vector3::zeros(), 0.0, 0);
        // Shared edge (0,0)-(1,1): edge 2 of the first facet, edge 0 of the second; each
        // sees the other on the far side of the diagonal.
        let h = 0.5f64.sqrt();
        assert!((f[0].shape.neighbour_inward[2].na() - Vector3::new(-h, h, 0.0)).norm() < 1e-15);
        assert!((f[1].shape.neighbour_inward[0].na() - Vector3::new(h, -h, 0.0)).norm() < 1e-15);
        assert_eq!(f[0].shape.neighbour_inward[0], Vec3::ZERO);
        assert!(f[0].shape.owns_edge(2) && !f[1].shape.owns_edge(0));
        assert!(
            f[0].shape.owns_vertex(0) && !f[1].shape.owns_vertex(0) && f[1].shape.owns_vertex(2)
        );
        // The corner (0,0) has three edges: to (1,0), (1,1), (0,1).
        assert_eq!(f[0].shape.fan(0).len(), 3);
        assert_eq!(f[0].shape.normal, Vec3::new(0.0, 0.0, 1.0));
    }
}
