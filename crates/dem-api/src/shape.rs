//! Shape views: what a geometry functor reads about the two bodies it is given.
//!
//! A [`ShapeView`] is a tag plus a pointer to a `#[repr(C)]` record whose type the tag
//! names, and the shape's bounding radius (dem-api 0.5: so that a sphere's radius is read
//! from the view itself, not from its record). The layout of `ShapeView` does not change
//! within a minor version; a new shape kind adds a tag constant and a record type (an
//! append-only change: plugins built before it keep loading and are never handed a kind
//! they did not declare). Read a view through its typed accessors
//! ([`ShapeView::sphere`], [`ShapeView::wall`], [`ShapeView::facet`],
//! [`ShapeView::polyhedron`]), which check the tag.

use crate::facet::FacetShape;
use crate::math::{Quat, Vec3};
use crate::polyhedron::PolyhedronShape;
use abi_stable::StableAbi;
use core::marker::PhantomData;

/// Identifies a kind of shape. Geometry functors declare the pair of kinds they serve by
/// name ([`ShapeKind::name`]); the solver dispatches on these names.
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShapeKind(pub u32);

impl ShapeKind {
    /// A sphere; record [`SphereShape`].
    pub const SPHERE: ShapeKind = ShapeKind(1);
    /// An infinite plane; record [`WallShape`].
    pub const WALL: ShapeKind = ShapeKind(2);
    /// A triangle of a mesh; record [`FacetShape`].
    pub const FACET: ShapeKind = ShapeKind(3);
    /// A rigid convex polyhedron; record [`PolyhedronShape`].
    pub const POLYHEDRON: ShapeKind = ShapeKind(4);
    /// In a functor's declaration ([`crate::sdk::Geometry::SHAPES`]): a shape offered by
    /// a plugin, named by [`crate::sdk::Geometry::SHAPE_NAMES`]. Never the kind of a body.
    pub const NAMED: ShapeKind = ShapeKind(0);
    /// The first kind the solver gives to plugin shapes (dem-api 0.5.2), in the order it
    /// loads their names; see [`crate::plugin_shape`]. Their records are read with
    /// [`ShapeView::plugin_record`].
    pub const FIRST_PLUGIN: u32 = 16;

    /// Is this the kind of a plugin shape?
    #[inline]
    pub const fn is_plugin(self) -> bool {
        self.0 >= Self::FIRST_PLUGIN
    }

    /// The name used in scenes and in functor declarations (`"Sphere"`, `"Wall"`, ...);
    /// `"Unknown"` for the kinds of plugin shapes, whose names the solver holds.
    #[inline]
    pub const fn name(self) -> &'static str {
        match self.0 {
            1 => "Sphere",
            2 => "Wall",
            3 => "Facet",
            4 => "Polyhedron",
            _ => "Unknown",
        }
    }
}

/// Sphere of a given radius centred on the body's position.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct SphereShape {
    /// Radius, m.
    pub radius: f64,
}

/// An infinite plane through the body's position.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct WallShape {
    /// Unit normal of the plane in the body frame (rotate by the body orientation to get
    /// the global normal), dimensionless.
    pub normal: Vec3,
    /// Which side touches: `+1` only bodies on the side the normal points to, `-1` only the
    /// other side, `0` both sides (the normal is flipped towards the other body).
    pub sense: i32,
}

/// A tagged, borrowed view of a shape record.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct ShapeView<'a> {
    kind: ShapeKind,
    record: *const core::ffi::c_void,
    /// See [`ShapeView::radius`].
    radius: f64,
    _borrow: PhantomData<&'a ()>,
}

// SAFETY: a view only reads an immutable record that outlives it.
unsafe impl Send for ShapeView<'_> {}
unsafe impl Sync for ShapeView<'_> {}

impl<'a> ShapeView<'a> {
    /// A view of a sphere.
    #[inline]
    pub fn of_sphere(s: &'a SphereShape) -> Self {
        Self::new(ShapeKind::SPHERE, s, s.radius)
    }

    /// A view of a wall.
    #[inline]
    pub fn of_wall(w: &'a WallShape) -> Self {
        Self::new(ShapeKind::WALL, w, f64::INFINITY)
    }

    /// A view of a facet.
    #[inline]
    pub fn of_facet(f: &'a FacetShape) -> Self {
        Self::new(ShapeKind::FACET, f, f64::INFINITY)
    }

    /// A view of a polyhedron.
    #[inline]
    pub fn of_polyhedron(p: &'a PolyhedronShape) -> Self {
        Self::new(ShapeKind::POLYHEDRON, p, p.bounding_radius)
    }

    #[inline]
    fn new<T>(kind: ShapeKind, r: &'a T, radius: f64) -> Self {
        ShapeView {
            kind,
            record: r as *const T as *const _,
            radius,
            _borrow: PhantomData,
        }
    }

    /// The shape's bounding radius about the body's reference point, m: a sphere's radius,
    /// the largest distance of a polyhedron's vertices from its centroid, and
    /// `f64::INFINITY` for walls and facets. Held in the view: reading it follows no
    /// pointer.
    #[inline]
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The kind of shape viewed.
    #[inline]
    pub fn kind(&self) -> ShapeKind {
        self.kind
    }

    /// The sphere, if this is a sphere: a copy made from the view (its radius is held in
    /// the view, so the record is not read; dem-api 0.5, before which this returned a
    /// reference to the record).
    #[inline]
    pub fn sphere(&self) -> Option<SphereShape> {
        (self.kind == ShapeKind::SPHERE).then_some(SphereShape {
            radius: self.radius,
        })
    }

    /// The wall record, if this is a wall.
    #[inline]
    pub fn wall(&self) -> Option<&'a WallShape> {
        // SAFETY: the tag was set together with the pointer by a typed constructor.
        (self.kind == ShapeKind::WALL).then(|| unsafe { &*(self.record as *const WallShape) })
    }

    /// The facet record, if this is a facet.
    #[inline]
    pub fn facet(&self) -> Option<&'a FacetShape> {
        // SAFETY: as above.
        (self.kind == ShapeKind::FACET).then(|| unsafe { &*(self.record as *const FacetShape) })
    }
}

impl<'a> ShapeView<'a> {
    /// A view of a body of a plugin shape (built by the solver): `record` is what the
    /// body's [`ShapeModel::record`](crate::plugin_shape::ShapeModel::record) returns,
    /// `radius` its bounding radius, m.
    ///
    /// # Safety
    /// `kind` must be a plugin kind ([`ShapeKind::is_plugin`]) and `record` must stay
    /// valid and unchanged for `'a`.
    #[inline]
    pub unsafe fn of_plugin(
        kind: ShapeKind,
        record: *const core::ffi::c_void,
        radius: f64,
    ) -> Self {
        ShapeView {
            kind,
            record,
            radius,
            _borrow: PhantomData,
        }
    }

    /// The record of a plugin shape, read as `T`; `None` for the built-in kinds.
    ///
    /// # Safety
    /// `T` must be the record type of the shape the functor declared for this body (the
    /// solver hands a functor only bodies of the shape names it declared, and a shape
    /// name belongs to one plugin).
    #[inline]
    pub unsafe fn plugin_record<T>(&self) -> Option<&'a T> {
        // SAFETY: the caller vouches for the type; the solver keeps the record alive.
        self.kind
            .is_plugin()
            .then(|| unsafe { &*(self.record as *const T) })
    }

    /// The polyhedron record, if this is a polyhedron.
    #[inline]
    pub fn polyhedron(&self) -> Option<&'a PolyhedronShape> {
        // SAFETY: the tag was set together with the pointer by a typed constructor.
        (self.kind == ShapeKind::POLYHEDRON)
            .then(|| unsafe { &*(self.record as *const PolyhedronShape) })
    }
}

/// One body as a geometry functor sees it: pose, velocities at the previous mid-step and
/// shape. All vectors are in the global frame.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct BodyView<'a> {
    /// Position of the body's reference point (sphere centre; a point on a wall's plane;
    /// a mesh's reference point for its facets), m.
    pub pos: Vec3,
    /// Orientation, body frame to global frame, unit quaternion.
    pub ori: Quat,
    /// Translational velocity at t - dt/2, m/s.
    pub vel: Vec3,
    /// Angular velocity at t - dt/2, rad/s.
    pub angvel: Vec3,
    /// The body's shape.
    pub shape: ShapeView<'a>,
}
