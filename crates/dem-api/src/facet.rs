//! The facet record: one triangle of a mesh, as a geometry functor reads it.
//!
//! All facets of a mesh share the mesh's reference point and orientation (a mesh is one
//! rigid body): a facet's body position is the mesh's reference point, its orientation the
//! mesh's, and its vertices are given relative to that point in the mesh (body) frame.
//! Shared vertices therefore have bitwise equal coordinates in every facet that uses them.
//!
//! Connectivity, computed by the solver when the mesh is loaded, lets a functor decide
//! locally whether a contact with a shared edge or vertex is its to report (so that a
//! sphere touching several facets near one edge or vertex feels one contact, not two):
//! - `neighbour_inward[k]`: across edge `k` (from vertex `k` to vertex `k + 1`), the unit
//!   vector in the neighbouring facet's plane, perpendicular to the edge and pointing into
//!   that facet; zero when the edge is on the mesh boundary;
//! - `owns`: bit `k` set when this facet owns edge `k`, bit `3 + k` when it owns vertex `k`
//!   (each shared edge and vertex has exactly one owner among its facets), bit `6 + k` when
//!   vertex `k` is interior (every mesh edge around it is shared by exactly two facets);
//!   edge `k` is interior when `neighbour_inward[k]` is not zero;
//! - [`FacetShape::fan`]: the unit directions of every mesh edge leaving vertex `k`, which
//!   bound the region of space whose closest point on the mesh is that vertex.

use crate::math::Vec3;
use abi_stable::StableAbi;

/// A borrowed list of directions, owned by the solver for as long as the facet exists.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct FanRef {
    ptr: *const Vec3,
    len: u32,
}

/// One triangle of a mesh; record of [`crate::ShapeKind::FACET`].
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct FacetShape {
    /// Vertices relative to the body's reference point, body frame, m. Their order gives
    /// the normal (right hand).
    pub vertices: [Vec3; 3],
    /// Unit normal `(v1 - v0) x (v2 - v0)` normalised, body frame.
    pub normal: Vec3,
    /// Half-thickness, m: the facet is the set of points within this distance of the
    /// triangle (0 for a plain triangle; edges and vertices are rounded either way).
    pub halfthick: f64,
    /// Across edge `k` (vertex `k` to vertex `k + 1`): unit vector in the neighbouring
    /// facet's plane, perpendicular to the edge, pointing into the neighbour; body frame,
    /// dimensionless. Zero for a boundary edge.
    pub neighbour_inward: [Vec3; 3],
    /// Ownership bits: `1 << k` edge `k`, `1 << (3 + k)` vertex `k`; `1 << (6 + k)`: vertex
    /// `k` is interior to the mesh.
    pub owns: u32,
    fans: [FanRef; 3],
}

// SAFETY: the fans point to immutable data that the solver keeps alive and never changes
// while any facet referring to it exists (see `FacetShape::new`).
unsafe impl Send for FacetShape {}
unsafe impl Sync for FacetShape {}

impl FacetShape {
    /// A facet record.
    ///
    /// # Safety
    /// Each slice of `fans` must stay alive and unchanged for as long as the record or any
    /// copy of it is used.
    pub unsafe fn new(
        vertices: [Vec3; 3],
        normal: Vec3,
        halfthick: f64,
        neighbour_inward: [Vec3; 3],
        owns: u32,
        fans: [&[Vec3]; 3],
    ) -> FacetShape {
        FacetShape {
            vertices,
            normal,
            halfthick,
            neighbour_inward,
            owns,
            fans: fans.map(|f| FanRef {
                ptr: f.as_ptr(),
                len: f.len() as u32,
            }),
        }
    }

    /// Does this facet own edge `k`?
    pub fn owns_edge(&self, k: usize) -> bool {
        self.owns & (1 << k) != 0
    }

    /// Does this facet own vertex `k`?
    pub fn owns_vertex(&self, k: usize) -> bool {
        self.owns & (1 << (3 + k)) != 0
    }

    /// Is edge `k` shared with a neighbouring facet?
    pub fn edge_is_interior(&self, k: usize) -> bool {
        self.neighbour_inward[k] != Vec3::ZERO
    }

    /// Is vertex `k` interior to the mesh (every edge around it shared by two facets)?
    pub fn vertex_is_interior(&self, k: usize) -> bool {
        self.owns & (1 << (6 + k)) != 0
    }

    /// Unit directions (body frame) of every mesh edge leaving vertex `k`.
    pub fn fan(&self, k: usize) -> &[Vec3] {
        let f = self.fans[k];
        if f.len == 0 {
            return &[];
        }
        // SAFETY: guaranteed by the contract of `FacetShape::new`.
        unsafe { core::slice::from_raw_parts(f.ptr, f.len as usize) }
    }
}
