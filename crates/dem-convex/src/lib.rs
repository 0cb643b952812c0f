//! Convex polyhedra for dem: our own exact-predicate quickhull, mass properties,
//! GJK distance, the Chebyshev centre of two bodies, the Muller-Preparata intersection
//! by polar duality, Solfec-style contact geometry (point, normal, area, gap) and
//! contact sparsification.
//!
//! Lengths are in the model's length unit (metres in a SI scene); areas in length²,
//! volumes in length³, inertia tensors per unit density in length⁵. Nothing here
//! panics on bad input: degenerate geometry comes back as a typed error.
//!
//! Modules, one concept each: [`polyhedron`] (the shape), [`hull`] (quickhull with
//! exact predicates), [`mass`] (volume, centroid, inertia, principal axes), [`gjk`]
//! (distance), [`interior`] (Chebyshev centre LP), [`intersection`] (the intersection
//! polyhedron and its faces' sources), [`polar`] (the polar-dual intersection, and
//! [`intersect`], which picks the path), [`clip`] (the fast path of the intersection for
//! pairs in general position: A clipped by B's planes), [`contact`](mod@contact) (point, normal, area, gap), [`sparsify`](mod@sparsify) and
//! [`generate`] (seeded shapes), [`surface`] (the intersection surface read in place).
//!
//! Floors, bottom first (a module names only modules of lower floors; checked by the
//! workspace's `tests/module_floors.rs`): [`error`], [`sparsify`](mod@sparsify);
//! [`hull`]; [`polyhedron`]; [`generate`], [`gjk`], [`interior`], [`mass`], the plane
//! cut; [`intersection`]; [`surface`]; [`clip`]; [`polar`]; [`contact`](mod@contact).
//!
//! # Deviations from Solfec's documented algorithm (reference 000)
//!
//! 1. Interior point: the Chebyshev centre of A ∩ B by a 4-variable LP instead of
//!    GJK's witness point refined (or, in Solfec's code, planes within eps "swollen"):
//!    polar points stay bounded by 1/r, so an interior point on an edge or corner of
//!    the intersection cannot blow them up. `r <= eps` is "touching".
//! 2. Duplicate planes are merged before the hull with a relative tolerance, not in
//!    polar space with an absolute one; flush faces of A and B keep both sources and
//!    contribute nothing to the normal.
//! 3. The polar hull uses exact orientation predicates; intersection faces stay
//!    polygons tagged with body and plane.
//! 4. The normal weights whole polygon faces by area² (reference 000: each fan
//!    triangle), so it does not depend on triangulation; a conditioning measure
//!    flags unreliable normals.
//! 5. Gap re-check as Solfec's code does it (whenever gap < -eps, bodies pulled apart:
//!    A by -|g| n, B by +|g| n), not as reference 000's text writes it.
//! 6. No "point outside A or B → no contact" exit: nothing is dropped silently;
//!    failures are typed errors, and touching pairs get a contact (support-polygon
//!    overlap for the area).
//! 7. Pairs in general position that overlap by more than eps are intersected by
//!    direct clipping ([`clip`]), with every doubtful case (a vertex near a plane,
//!    flush faces, thin or touching intersections) left to the LP and polar-dual path
//!    above: no polar points at all on the common path.
//! 8. Sparsification distance test is Euclidean `< mindist` as reference 000 states
//!    (Solfec's code: max-norm `< 2 mindist`), processed in id order.
#![warn(missing_docs)]

pub mod clip;
pub mod contact;
pub mod error;
pub mod generate;
pub mod gjk;
pub mod hull;
pub mod interior;
pub mod intersection;
pub mod mass;
mod plane_cut;
pub mod polar;
pub mod polyhedron;
pub mod sparsify;
pub mod surface;

pub use contact::{contact, Contact, ContactKind, ContactOptions, GEOMETRIC_EPSILON};
pub use error::{ConvexError, IntersectionError};
pub use gjk::{gjk_distance, gjk_distance_from, gjk_distance_offset, Proximity};
pub use hull::{convex_hull, Hull};
pub use interior::{chebyshev_centre, ChebyshevCentre};
pub use intersection::{FaceSource, Intersection};
pub use mass::{MassProperties, PrincipalFrame};
pub use polar::{intersect, intersect_exact};
pub use polyhedron::{Face, Polyhedron};
pub use sparsify::{sparsify, SparsifyCandidate, SparsifyParams};
pub use surface::Surface;
