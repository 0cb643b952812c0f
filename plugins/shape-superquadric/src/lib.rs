//! Superquadric particles: the shape `Superquadric` ([`shape`]) and its geometry
//! functors with walls ([`wall`]), mesh facets ([`facet`]), spheres ([`sphere`]) and
//! other superquadrics ([`pair`]).
//!
//! A scene places them with `Shaped(shape: "Superquadric", params: (half_axes: (a, b,
//! c), blockiness: (n1, n2)), ...)` or a `ShapeFill` generator; ellipsoids are
//! blockiness `(2, 2)`.
//!
//! **Contact formulation.** Sphere and superquadric pairs use the common normal of the
//! two bodies' support functions ([`common_normal`]): the overlap is the penetration
//! depth (the shortest separating translation), exact for convex bodies, found by Newton's
//! method on the sphere of directions and followed from step to step in each contact's
//! state (three slots: the last normal). Walls and mesh facets use the support point in closed form.
//! `radius1`/`radius2` are the geometric means of the principal radii of curvature at
//! the contact points (a Hertz law's radii), each at most its body's bounding radius
//! (a blocky face's flat middle has unbounded radii: [`common_normal::contact_radius`]).
//! They are not branch lengths: scenes of
//! superquadrics set `contacts: (l6geom: (no_ratch: false))`, so that the solver takes
//! the true branch vectors from each centre to the contact point.
//!
//! Floors, bottom first: `real`, `shape`, `common_normal`, `posed`; the functors `pair`,
//! `sphere`, `wall`, `facet`; this file (the export) on top.

pub mod common_normal;
pub mod facet;
pub mod pair;
pub mod posed;
pub mod real;
pub mod shape;
pub mod sphere;
pub mod wall;

pub use shape::Superquadric;

dem_api::export_plugin! {
    geometry: [
        pair::Pair,
        sphere::SphereSuperquadric,
        wall::WallSuperquadric,
        facet::FacetSuperquadric,
    ],
    laws: [],
    shapes: [shape::Superquadric],
}

#[cfg(test)]
mod tests;
