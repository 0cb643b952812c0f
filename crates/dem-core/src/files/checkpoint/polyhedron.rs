//! A polyhedron's body-frame data as a checkpoint saves it: every field of
//! [`PolyhedronData`], so that a restored body is bitwise the saved one. Saved for the
//! polyhedra of scenes whose inlets insert polyhedra (the scene cannot make those again);
//! the scene's own polyhedra come from the scene on restore.

use dem_api::{FacePlane, PolyhedronData, Vec3};
use serde::{Deserialize, Serialize};

/// [`PolyhedronData`] in plain arrays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct SavedPolyhedron {
    vertices: Vec<[f64; 3]>,
    /// Normal, offset, first face vertex, vertex count of each face.
    planes: Vec<([f64; 3], f64, u32, u32)>,
    face_vertices: Vec<u32>,
    bounding_radius: f64,
    volume: f64,
}

impl SavedPolyhedron {
    pub(super) fn of(d: &PolyhedronData) -> SavedPolyhedron {
        let a = |v: &Vec3| [v.x, v.y, v.z];
        SavedPolyhedron {
            vertices: d.vertices.iter().map(a).collect(),
            planes: d
                .planes
                .iter()
                .map(|p| (a(&p.normal), p.offset, p.first, p.count))
                .collect(),
            face_vertices: d.face_vertices.clone(),
            bounding_radius: d.bounding_radius,
            volume: d.volume,
        }
    }

    /// The data, or why it cannot be (indices out of range).
    pub(super) fn data(self) -> Result<PolyhedronData, String> {
        let nv = self.vertices.len() as u32;
        let nf = self.face_vertices.len() as u64;
        let bad_face = self
            .planes
            .iter()
            .any(|p| p.3 < 3 || p.2 as u64 + p.3 as u64 > nf);
        if bad_face || self.face_vertices.iter().any(|&i| i >= nv) {
            return Err("holds a polyhedron whose faces name missing vertices".into());
        }
        let v = |a: [f64; 3]| Vec3::new(a[0], a[1], a[2]);
        Ok(PolyhedronData {
            vertices: self.vertices.into_iter().map(v).collect(),
            planes: self
                .planes
                .into_iter()
                .map(|(n, offset, first, count)| FacePlane {
                    normal: v(n),
                    offset,
                    first,
                    count,
                })
                .collect(),
            face_vertices: self.face_vertices,
            bounding_radius: self.bounding_radius,
            volume: self.volume,
        })
    }
}
