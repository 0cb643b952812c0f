//! The surface of an intersection A ∩ B as its readers (the contact geometry of
//! [`contact`](crate::contact()), the potential of the polyhedron functor) see it:
//! vertices, faces with their vertices in order, plane normals and sources, and an
//! interior point. Two kinds implement it: an [`Intersection`] (built by the exact
//! path), and the clipped polytope read in place ([`View`](crate::clip::View), given
//! by [`clip_then`](crate::clip::clip_then) without building anything).

use crate::intersection::{FaceSource, Intersection};
use nalgebra::Vector3;

/// The intersection surface read in place (see the module doc). Coordinates are in the
/// bodies' frame (length).
pub trait Surface {
    /// Number of vertices.
    fn vertex_count(&self) -> usize;
    /// Vertex `i` (length).
    fn vertex(&self, i: usize) -> Vector3<f64>;
    /// Number of faces.
    fn face_count(&self) -> usize;
    /// Vertex count, outward unit normal and source of face `f`.
    fn face(&self, f: usize) -> (usize, Vector3<f64>, FaceSource);
    /// Vertex `k` of face `f` (length), counter-clockwise seen from outside.
    fn face_point(&self, f: usize, k: usize) -> Vector3<f64>;
    /// A point inside A ∩ B (length): `centre.point` of the [`Intersection`] the same
    /// pair gives.
    fn interior_point(&self) -> Vector3<f64>;
}

impl Surface for Intersection {
    fn vertex_count(&self) -> usize {
        self.polyhedron.vertices().len()
    }
    fn vertex(&self, i: usize) -> Vector3<f64> {
        self.polyhedron.vertices()[i].coords
    }
    fn face_count(&self) -> usize {
        self.polyhedron.faces().len()
    }
    fn face(&self, f: usize) -> (usize, Vector3<f64>, FaceSource) {
        let face = &self.polyhedron.faces()[f];
        (face.vertices.len(), face.normal, self.sources[f])
    }
    fn face_point(&self, f: usize, k: usize) -> Vector3<f64> {
        self.polyhedron.vertices()[self.polyhedron.faces()[f].vertices[k]].coords
    }
    fn interior_point(&self) -> Vector3<f64> {
        self.centre.point.coords
    }
}
