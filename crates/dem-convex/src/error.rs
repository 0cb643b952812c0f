//! Typed errors of the convex-geometry library. Nothing in this crate panics on bad
//! input; every degenerate case comes back as one of these.

use nalgebra::{Point3, Vector3};
use thiserror::Error;

/// Why a polyhedron or a hull could not be built.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ConvexError {
    /// A coordinate is NaN or infinite (index of the offending point).
    #[error("point {index} has a non-finite coordinate")]
    NonFinite {
        /// Index of the point in the input list.
        index: usize,
    },
    /// Fewer than four distinct points were given.
    #[error("need at least 4 points, got {count} distinct")]
    TooFewPoints {
        /// Number of distinct input points.
        count: usize,
    },
    /// All points lie on one line.
    #[error("all points are collinear")]
    Collinear,
    /// All points lie in one plane: the hull has no volume.
    #[error("all points are coplanar")]
    Coplanar,
    /// A face list is malformed (index out of range, fewer than 3 vertices, repeated
    /// vertex, unused vertex).
    #[error("invalid face list: {0}")]
    InvalidFaces(String),
    /// The surface is not closed or not consistently oriented: a directed edge is
    /// missing its twin or appears twice.
    #[error("surface not closed or not consistently oriented at edge ({0}, {1})")]
    NotClosed(usize, usize),
    /// Euler's formula V - E + F = 2 fails.
    #[error("Euler characteristic V - E + F = {v} - {e} + {f} != 2")]
    Euler {
        /// Vertices.
        v: usize,
        /// Edges.
        e: usize,
        /// Faces.
        f: usize,
    },
    /// The faces are oriented inwards (negative volume) or the volume is zero.
    #[error("faces oriented inwards or zero volume (signed volume {volume:e})")]
    Inverted {
        /// Signed volume computed from the given orientation (length³).
        volume: f64,
    },
    /// A vertex lies outside a face plane (or a face is not planar) beyond the
    /// relative tolerance.
    #[error("not convex: vertex {vertex} is {excess:e} outside face {face}")]
    NotConvex {
        /// Face index.
        face: usize,
        /// Vertex index.
        vertex: usize,
        /// Distance outside the face plane (length).
        excess: f64,
    },
    /// The hull construction produced an inconsistent result (an internal invariant
    /// was violated; reported instead of returning a wrong hull).
    #[error("hull failure: {0}")]
    HullFailure(String),
}

/// Why two bodies have no intersection polyhedron. None of these is a silent
/// "no contact": the caller decides what each means.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum IntersectionError {
    /// The bodies are apart by more than the geometric epsilon.
    #[error("separated by {distance:e}")]
    Separated {
        /// GJK distance between the bodies (length).
        distance: f64,
        /// Closest point on A (world frame, length).
        point_a: Point3<f64>,
        /// Closest point on B (world frame, length).
        point_b: Point3<f64>,
    },
    /// The bodies touch: the largest ball inside both has radius at most epsilon.
    #[error("touching (inscribed radius {radius:e})")]
    Touching {
        /// Chebyshev radius of the common part (length); may be slightly negative.
        radius: f64,
        /// Chebyshev centre (world frame, length).
        point: Point3<f64>,
        /// Unit normal of the separating plane, pointing from A into B (from the
        /// LP multipliers of A's active planes).
        normal: Vector3<f64>,
    },
    /// The input could not be processed (non-finite data, LP failure, empty body).
    #[error("degenerate input: {0}")]
    Degenerate(String),
    /// The polar hull could not be built or was inconsistent.
    #[error("hull failure in the intersection: {0}")]
    HullFailure(#[from] ConvexError),
}
