//! The intersection of two convex bodies as a polyhedron ([`Intersection`]), with the
//! source of each of its faces ([`FaceSource`]). Made by clipping ([`crate::clip`]) or
//! by the polar dual ([`crate::polar`]); read in place through [`crate::surface`].

use crate::interior::ChebyshevCentre;
use crate::polyhedron::Polyhedron;

/// Where a face of the intersection comes from: a face plane of A, of B, or both
/// (a face of A and a face of B in one plane, facing the same way: the two bodies
/// are flush there). In the contact normal such a shared face contributes
/// `+a² n` for A and `-a² n` for B, i.e. nothing: a flush face says nothing about
/// the direction of contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaceSource {
    /// Index of the face of A in this plane, if any.
    pub a: Option<usize>,
    /// Index of the face of B in this plane, if any.
    pub b: Option<usize>,
}

/// The intersection polyhedron of two bodies.
#[derive(Debug, Clone)]
pub struct Intersection {
    /// A ∩ B (world frame). Each face keeps the exact normal and offset of its source
    /// plane.
    pub polyhedron: Polyhedron,
    /// Source of each face of `polyhedron`.
    pub sources: Vec<FaceSource>,
    /// An interior point and the radius of a ball about it inside both bodies (length):
    /// the Chebyshev centre (the deepest point, with its active planes) when the
    /// intersection came from the polar dual; the vertex centroid of the intersection,
    /// with no active planes, when it came from clipping ([`crate::clip`]).
    pub centre: ChebyshevCentre,
}
