//! Convex polyhedra for dem: our own exact-predicate quickhull, mass properties,
//! GJK distance, the Chebyshev centre of two bodies, the Muller-Preparata intersection
//! by polar duality, Solfec-style contact geometry (point, normal, area, gap) and
//! contact sparsification.
//!
//! Lengths are in the model's length unit (metres in a SI scene); areas in length²,
//! volumes in length³, inertia tensors per unit density in length⁵. Nothing here
//! panics on bad input: degenerate geometry comes back as a typed error.
//!
//! The algorithms follow Solfec's documentation (reference 000 of the project) with
//! the deviations listed in the crate README section of each module, notably the
//! Chebyshev centre as interior point and the per-polygon area-squared weighting of
//! the contact normal.
#![warn(missing_docs)]

pub mod contact;
pub mod error;
pub mod generate;
pub mod gjk;
pub mod hull;
pub mod interior;
pub mod intersection;
pub mod mass;
pub mod polyhedron;
pub mod sparsify;

pub use contact::{contact, Contact, ContactKind, ContactOptions, GEOMETRIC_EPSILON};
pub use error::{ConvexError, IntersectionError};
pub use gjk::{gjk_distance, Proximity};
pub use hull::{convex_hull, Hull};
pub use interior::{chebyshev_centre, ChebyshevCentre};
pub use intersection::{intersect, FaceSource, Intersection};
pub use mass::{MassProperties, PrincipalFrame};
pub use polyhedron::{Face, Polyhedron};
pub use sparsify::{sparsify, SparsifyCandidate, SparsifyParams};
