//! The polyhedron record: a rigid convex polyhedron, as a geometry functor reads it.
//!
//! A polyhedral body is stored in its principal axes: its reference point (the body
//! position) is the centroid, and its orientation maps the principal axes to the global
//! frame. Vertices and face planes are given in that body frame, relative to the
//! reference point; a point `x` of the body (body frame) satisfies
//! `normal · x <= offset` for every face. The solver builds the data once per body and
//! keeps it alive and unchanged while the body exists; the record only borrows it, as
//! [`crate::facet::FanRef`] does for facets.
//!
//! To compute with it, rebuild a [`crate::convex::Polyhedron`] in the global frame with
//! [`PolyhedronShape::to_convex`] (the face data are trusted: they come from a polyhedron
//! the solver built and validated).

use crate::math::{Quat, Vec3};
use abi_stable::StableAbi;

/// One face of a polyhedron: its plane, and where its vertex indices are.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct FacePlane {
    /// Outward unit normal, body frame, dimensionless.
    pub normal: Vec3,
    /// Plane offset, m: points `x` of the body (body frame, relative to the reference
    /// point) satisfy `normal · x <= offset`.
    pub offset: f64,
    /// Index of the face's first vertex index in [`PolyhedronShape::face_vertices`].
    pub first: u32,
    /// Number of vertices of the face (at least 3), counter-clockwise seen from outside.
    pub count: u32,
}

/// A borrowed slice owned by the solver (pointer and length).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
struct SliceRef<T: 'static> {
    ptr: *const T,
    len: u32,
}

impl<T> SliceRef<T> {
    fn of(s: &[T]) -> Self {
        SliceRef {
            ptr: s.as_ptr(),
            len: s.len() as u32,
        }
    }

    /// # Safety
    /// The slice it was made from must still be alive and unchanged.
    unsafe fn get<'a>(self) -> &'a [T] {
        if self.len == 0 {
            return &[];
        }
        unsafe { core::slice::from_raw_parts(self.ptr, self.len as usize) }
    }
}

/// A rigid convex polyhedron; record of [`crate::ShapeKind::POLYHEDRON`].
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct PolyhedronShape {
    vertices: SliceRef<Vec3>,
    planes: SliceRef<FacePlane>,
    face_vertices: SliceRef<u32>,
    /// Radius of the bounding sphere about the reference point (the largest vertex
    /// distance), m.
    pub bounding_radius: f64,
    /// Volume, m^3.
    pub volume: f64,
}

// SAFETY: the slices point to immutable data that the solver keeps alive and never
// changes while any record referring to it exists (see `PolyhedronShape::new`).
unsafe impl Send for PolyhedronShape {}
unsafe impl Sync for PolyhedronShape {}

impl PolyhedronShape {
    /// A polyhedron record from body-frame vertices (m), face planes and the flattened
    /// vertex indices of the faces.
    ///
    /// # Safety
    /// Each slice must stay alive and unchanged for as long as the record or any copy of
    /// it is used, and must describe a valid convex polyhedron (as
    /// [`crate::convex::Polyhedron`] builds them): the functors trust it.
    pub unsafe fn new(
        vertices: &[Vec3],
        planes: &[FacePlane],
        face_vertices: &[u32],
        bounding_radius: f64,
        volume: f64,
    ) -> PolyhedronShape {
        PolyhedronShape {
            vertices: SliceRef::of(vertices),
            planes: SliceRef::of(planes),
            face_vertices: SliceRef::of(face_vertices),
            bounding_radius,
            volume,
        }
    }

    /// Vertices relative to the reference point, body frame, m.
    pub fn vertices(&self) -> &[Vec3] {
        // SAFETY: guaranteed by the contract of `PolyhedronShape::new`.
        unsafe { self.vertices.get() }
    }

    /// Face planes, body frame.
    pub fn planes(&self) -> &[FacePlane] {
        // SAFETY: as above.
        unsafe { self.planes.get() }
    }

    /// Vertex indices of every face, concatenated (see [`FacePlane::first`]).
    pub fn face_vertices(&self) -> &[u32] {
        // SAFETY: as above.
        unsafe { self.face_vertices.get() }
    }

    /// Vertex indices of face `k`, counter-clockwise seen from outside.
    pub fn face(&self, k: usize) -> &[u32] {
        let p = self.planes()[k];
        &self.face_vertices()[p.first as usize..(p.first + p.count) as usize]
    }

    /// Radius of the sphere of the same volume, m: the characteristic length the
    /// polyhedron functors report as the body's equivalent radius.
    pub fn equivalent_radius(&self) -> f64 {
        (3.0 * self.volume / (4.0 * core::f64::consts::PI)).cbrt()
    }

    /// The polyhedron placed at `pos` (m) with orientation `ori` (body to global), as a
    /// [`crate::convex::Polyhedron`] in the global frame.
    pub fn to_convex(&self, pos: &Vec3, ori: &Quat) -> crate::convex::Polyhedron {
        use crate::convex::{Face, Polyhedron};
        let (x, q) = (pos.na(), ori.unit());
        let vertices = self
            .vertices()
            .iter()
            .map(|v| nalgebra::Point3::from(x + q * v.na()))
            .collect();
        let faces = (0..self.planes().len())
            .map(|k| {
                let p = self.planes()[k];
                let normal = q * p.normal.na();
                Face {
                    vertices: self.face(k).iter().map(|&i| i as usize).collect(),
                    normal,
                    offset: p.offset + normal.dot(x),
                }
            })
            .collect();
        Polyhedron::from_trusted_parts(vertices, faces)
    }
}

/// The solver-side data a [`PolyhedronShape`] borrows, built from a polyhedron given in
/// its body frame (m).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyhedronData {
    /// Vertices, body frame, m.
    pub vertices: Vec<Vec3>,
    /// Face planes, body frame.
    pub planes: Vec<FacePlane>,
    /// Face vertex indices, concatenated.
    pub face_vertices: Vec<u32>,
    /// Bounding radius about the origin of the body frame, m.
    pub bounding_radius: f64,
    /// Volume, m^3.
    pub volume: f64,
}

impl PolyhedronData {
    /// The data of `poly` (body frame, m).
    pub fn of(poly: &crate::convex::Polyhedron) -> PolyhedronData {
        let vertices: Vec<Vec3> = poly.vertices().iter().map(|p| p.coords.into()).collect();
        let mut planes = Vec::with_capacity(poly.faces().len());
        let mut face_vertices = Vec::new();
        for f in poly.faces() {
            planes.push(FacePlane {
                normal: f.normal.into(),
                offset: f.offset,
                first: face_vertices.len() as u32,
                count: f.vertices.len() as u32,
            });
            face_vertices.extend(f.vertices.iter().map(|&i| i as u32));
        }
        let bounding_radius = vertices.iter().map(|v| v.na().norm()).fold(0.0, f64::max);
        PolyhedronData {
            vertices,
            planes,
            face_vertices,
            bounding_radius,
            volume: poly.volume(),
        }
    }

    /// The record borrowing this data.
    ///
    /// # Safety
    /// `self` must stay alive and unchanged while the record or a copy of it is used.
    pub unsafe fn record(&self) -> PolyhedronShape {
        unsafe {
            PolyhedronShape::new(
                &self.vertices,
                &self.planes,
                &self.face_vertices,
                self.bounding_radius,
                self.volume,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cube_round_trips_through_the_record() {
        let cube = crate::convex::generate::cube(2.0).unwrap();
        let (body, _, _) = cube.to_principal();
        let data = PolyhedronData::of(&body);
        let rec = unsafe { data.record() };
        assert_eq!(rec.vertices().len(), 8);
        assert_eq!(rec.planes().len(), 6);
        assert!((rec.bounding_radius - 3f64.sqrt()).abs() < 1e-12);
        assert!((rec.volume - 8.0).abs() < 1e-12);
        let pos = Vec3::new(1.0, 2.0, 3.0);
        let placed = rec.to_convex(&pos, &Quat::IDENTITY);
        assert!((placed.volume() - 8.0).abs() < 1e-12);
        assert!(placed.contains(&nalgebra::Point3::new(1.9, 2.9, 3.9), 0.0));
        assert!(!placed.contains(&nalgebra::Point3::new(2.1, 2.0, 3.0), 0.0));
    }
}
