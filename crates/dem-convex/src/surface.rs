//! The surface of an intersection A ∩ B as its readers (the contact geometry of
//! [`contact`](crate::contact()), the potential of the polyhedron functor) see it:
//! vertices, faces with their vertices in order, plane normals and sources, and an
//! interior point. Two kinds implement it: an [`Intersection`] (built by the exact
//! path), and the clipped polytope read in place ([`View`](crate::clip::View), given
//! by [`clip_then`](crate::clip::clip_then) without building anything).

use crate::intersection::{FaceSource, Intersection};
use crate::polyhedron::polygon_area_centroid_along;
use nalgebra::{Point3, Vector3};

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
    /// Area (length²) and area centroid (length) of face `f`, which has `len`
    /// vertices and the outward unit normal `normal`: a fan from the vertex mean, each
    /// triangle's area signed against the normal. Implementations may read the face's
    /// vertices more directly than [`Surface::face_point`] does, with the same
    /// arithmetic (the same bits).
    fn face_area_centroid(
        &self,
        f: usize,
        len: usize,
        normal: &Vector3<f64>,
    ) -> (f64, Point3<f64>) {
        polygon_area_centroid_along(len, |k| self.face_point(f, k), normal)
    }
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
