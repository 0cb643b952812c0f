//! A convex polyhedron: vertices and polygon faces with outward unit normals and
//! plane offsets. Built from a point cloud (our quickhull, coplanar triangles merged
//! into polygons) or from vertices and faces (validated).

use crate::error::ConvexError;
use crate::hull::convex_hull;
use nalgebra::{Isometry3, Point3, Vector3};

/// A planar polygon face of a convex polyhedron.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    /// Vertex indices, counter-clockwise seen from outside.
    pub vertices: Vec<usize>,
    /// Outward unit normal (dimensionless).
    pub normal: Vector3<f64>,
    /// Plane offset (length): points `x` of the body satisfy `normal · x <= offset`.
    pub offset: f64,
}

/// A closed convex polyhedron (positions in length units of the frame it lives in).
#[derive(Debug, Clone, PartialEq)]
pub struct Polyhedron {
    vertices: Vec<Point3<f64>>,
    faces: Vec<Face>,
}

/// Relative tolerance of the convexity and planarity check of [`Polyhedron::from_faces`]
/// (times the bounding-box diagonal).
pub const VALIDATION_TOLERANCE: f64 = 1e-9;

/// Unit normal (Newell's method) and offset of a polygon; `None` if it has no area.
pub(crate) fn polygon_plane(points: &[Point3<f64>], idx: &[usize]) -> Option<(Vector3<f64>, f64)> {
    let n = idx.len();
    let mut c = Vector3::zeros();
    for &i in idx {
        c += points[i].coords;
    }
    c /= n as f64;
    let mut nrm = Vector3::zeros();
    for k in 0..n {
        let a = points[idx[k]].coords - c;
        let b = points[idx[(k + 1) % n]].coords - c;
        nrm += a.cross(&b);
    }
    let nrm = safe_normalize(&nrm)?;
    Some((nrm, nrm.dot(&c)))
}

/// Unit vector along `v`, without underflow or overflow of the squared norm for tiny
/// or huge `v`; `None` for a zero or non-finite vector.
pub(crate) fn safe_normalize(v: &Vector3<f64>) -> Option<Vector3<f64>> {
    let m = v.amax();
    if m.is_nan() || m <= 0.0 || !m.is_finite() {
        return None;
    }
    let w = v / m;
    Some(w / w.norm())
}

impl Polyhedron {
    /// Convex hull of a point cloud (length). Coplanar hull triangles are merged into
    /// polygon faces; duplicate and interior points are dropped.
    pub fn from_points(points: &[Point3<f64>]) -> Result<Self, ConvexError> {
        let hull = convex_hull(points)?;
        // Renumber the used points densely.
        let mut map = vec![usize::MAX; points.len()];
        let mut vertices = Vec::new();
        for f in &hull.faces {
            for &v in f {
                if map[v] == usize::MAX {
                    map[v] = vertices.len();
                    vertices.push(points[v]);
                }
            }
        }
        let faces: Vec<Vec<usize>> = hull
            .faces
            .iter()
            .map(|f| f.iter().map(|&v| map[v]).collect())
            .collect();
        Self::assemble(vertices, faces)
    }

    /// A polyhedron from vertices (length) and polygon faces (indices, counter-clockwise
    /// seen from outside). Validated: finite coordinates, every vertex used, every
    /// directed edge matched by exactly one reversed twin (closed and consistently
    /// oriented), Euler V - E + F = 2, positive volume (outward orientation) and
    /// convexity and planarity within [`VALIDATION_TOLERANCE`] times the size.
    pub fn from_faces(
        vertices: Vec<Point3<f64>>,
        faces: Vec<Vec<usize>>,
    ) -> Result<Self, ConvexError> {
        for (index, p) in vertices.iter().enumerate() {
            if !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite()) {
                return Err(ConvexError::NonFinite { index });
            }
        }
        if vertices.len() < 4 {
            return Err(ConvexError::TooFewPoints {
                count: vertices.len(),
            });
        }
        let mut used = vec![false; vertices.len()];
        let mut edges = std::collections::HashMap::new();
        for (fi, f) in faces.iter().enumerate() {
            if f.len() < 3 {
                return Err(ConvexError::InvalidFaces(format!(
                    "face {fi} has fewer than 3 vertices"
                )));
            }
            for (k, &v) in f.iter().enumerate() {
                if v >= vertices.len() {
                    return Err(ConvexError::InvalidFaces(format!(
                        "face {fi} index {v} out of range"
                    )));
                }
                if f[..k].contains(&v) {
                    return Err(ConvexError::InvalidFaces(format!(
                        "face {fi} repeats vertex {v}"
                    )));
                }
                used[v] = true;
                let w = f[(k + 1) % f.len()];
                if edges.insert((v, w), fi).is_some() {
                    return Err(ConvexError::NotClosed(v, w));
                }
            }
        }
        if let Some(v) = used.iter().position(|u| !u) {
            return Err(ConvexError::InvalidFaces(format!(
                "vertex {v} is not used by any face"
            )));
        }
        for &(v, w) in edges.keys() {
            if !edges.contains_key(&(w, v)) {
                return Err(ConvexError::NotClosed(v, w));
            }
        }
        let (nv, ne, nf) = (vertices.len(), edges.len() / 2, faces.len());
        if nv + nf != ne + 2 {
            return Err(ConvexError::Euler {
                v: nv,
                e: ne,
                f: nf,
            });
        }
        let poly = Self::assemble(vertices, faces)?;
        let volume = poly.signed_volume();
        if volume.is_nan() || volume <= 0.0 {
            return Err(ConvexError::Inverted { volume });
        }
        let tol = VALIDATION_TOLERANCE * poly.diameter();
        for (fi, f) in poly.faces.iter().enumerate() {
            for (vi, v) in poly.vertices.iter().enumerate() {
                let excess = f.normal.dot(&v.coords) - f.offset;
                let on_face = f.vertices.contains(&vi);
                if excess > tol || (on_face && excess.abs() > tol) {
                    return Err(ConvexError::NotConvex {
                        face: fi,
                        vertex: vi,
                        excess,
                    });
                }
            }
        }
        Ok(poly)
    }

    /// Faces with their planes; no validation (internal constructors whose input is
    /// valid by construction).
    pub(crate) fn assemble(
        vertices: Vec<Point3<f64>>,
        faces: Vec<Vec<usize>>,
    ) -> Result<Self, ConvexError> {
        let mut out = Vec::with_capacity(faces.len());
        for (fi, f) in faces.into_iter().enumerate() {
            let (normal, offset) = polygon_plane(&vertices, &f)
                .ok_or_else(|| ConvexError::InvalidFaces(format!("face {fi} has zero area")))?;
            out.push(Face {
                vertices: f,
                normal,
                offset,
            });
        }
        Ok(Polyhedron {
            vertices,
            faces: out,
        })
    }

    /// Assemble from vertices and faces whose planes are already known (no checks;
    /// for internal constructors whose output is valid by construction).
    pub(crate) fn from_parts(vertices: Vec<Point3<f64>>, faces: Vec<Face>) -> Polyhedron {
        Polyhedron { vertices, faces }
    }

    /// Assemble from vertices (length) and faces whose planes are known, without any
    /// check: for data taken from a polyhedron built by the checked constructors and
    /// moved rigidly (e.g. a body stored by a solver and placed at its current pose).
    /// Invalid data gives wrong results, never undefined behaviour.
    pub fn from_trusted_parts(vertices: Vec<Point3<f64>>, faces: Vec<Face>) -> Polyhedron {
        Polyhedron { vertices, faces }
    }

    /// Refill this polyhedron in place with trusted data, as
    /// [`Polyhedron::from_trusted_parts`] would build it, reusing its allocations (for
    /// a caller that poses bodies again and again): the vertices (length) from
    /// `vertices`, then `faces` faces, face `k` from `face(k, indices)`, which pushes the
    /// face's vertex indices into the emptied `indices` and returns its outward unit
    /// normal and plane offset (length). No check is made.
    pub fn refill_trusted(
        &mut self,
        vertices: impl Iterator<Item = Point3<f64>>,
        faces: usize,
        mut face: impl FnMut(usize, &mut Vec<usize>) -> (Vector3<f64>, f64),
    ) {
        self.vertices.clear();
        self.vertices.extend(vertices);
        self.faces.truncate(faces);
        for k in 0..faces {
            if k == self.faces.len() {
                self.faces.push(Face {
                    vertices: Vec::new(),
                    normal: Vector3::zeros(),
                    offset: 0.0,
                });
            }
            let f = &mut self.faces[k];
            f.vertices.clear();
            (f.normal, f.offset) = face(k, &mut f.vertices);
        }
    }

    /// The vertices (length).
    pub fn vertices(&self) -> &[Point3<f64>] {
        &self.vertices
    }

    /// The faces.
    pub fn faces(&self) -> &[Face] {
        &self.faces
    }

    /// Number of edges (each shared by two faces).
    pub fn edge_count(&self) -> usize {
        self.faces.iter().map(|f| f.vertices.len()).sum::<usize>() / 2
    }

    /// Support point: the vertex farthest along `dir` (any length), and its index.
    pub fn support(&self, dir: &Vector3<f64>) -> (usize, Point3<f64>) {
        let (x, y, z) = (dir.x, dir.y, dir.z);
        let mut best = 0;
        let mut h = f64::NEG_INFINITY;
        for (i, v) in self.vertices.iter().enumerate() {
            // `v.coords.dot(dir)` as nalgebra forms it, (x x' + y y') + z z', written
            // out: the same bits, in a tighter loop.
            let d = v.x * x + v.y * y + v.z * z;
            if d > h {
                h = d;
                best = i;
            }
        }
        (best, self.vertices[best])
    }

    /// Axis-aligned bounding box (min, max corners, length).
    pub fn aabb(&self) -> (Point3<f64>, Point3<f64>) {
        // Plain comparisons: nalgebra's `inf`/`sup` cost several times more here.
        let mut lo = self.vertices[0].coords;
        let mut hi = lo;
        for v in &self.vertices {
            for i in 0..3 {
                lo[i] = if v[i] < lo[i] { v[i] } else { lo[i] };
                hi[i] = if v[i] > hi[i] { v[i] } else { hi[i] };
            }
        }
        (lo.into(), hi.into())
    }

    /// Diagonal of the bounding box (length): the model-size scale used by relative
    /// tolerances.
    pub fn diameter(&self) -> f64 {
        let (lo, hi) = self.aabb();
        (hi - lo).norm()
    }

    /// Signed distance of `p` (length) to the body: the largest `n·p - d` over faces.
    /// Negative inside (minus the distance to the nearest face plane), positive
    /// outside (a lower bound of the Euclidean distance).
    pub fn plane_distance(&self, p: &Point3<f64>) -> f64 {
        self.faces
            .iter()
            .map(|f| f.normal.dot(&p.coords) - f.offset)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Whether `p` is inside or within `tol` (length) of every face plane.
    pub fn contains(&self, p: &Point3<f64>, tol: f64) -> bool {
        self.plane_distance(p) <= tol
    }

    /// Index of the face whose plane is nearest to `p` (by absolute plane distance).
    pub fn nearest_face(&self, p: &Point3<f64>) -> usize {
        let mut best = 0;
        let mut dist = f64::INFINITY;
        for (i, f) in self.faces.iter().enumerate() {
            let d = (f.normal.dot(&p.coords) - f.offset).abs();
            if d < dist {
                dist = d;
                best = i;
            }
        }
        best
    }

    /// The body moved by a rigid motion.
    pub fn transformed(&self, iso: &Isometry3<f64>) -> Polyhedron {
        let vertices: Vec<Point3<f64>> = self.vertices.iter().map(|v| iso * v).collect();
        let faces = self
            .faces
            .iter()
            .map(|f| {
                let normal = iso.rotation * f.normal;
                let offset = f.offset + normal.dot(&iso.translation.vector);
                Face {
                    vertices: f.vertices.clone(),
                    normal,
                    offset,
                }
            })
            .collect();
        Polyhedron { vertices, faces }
    }

    /// The body translated by `t` (length).
    pub fn translated(&self, t: &Vector3<f64>) -> Polyhedron {
        self.transformed(&Isometry3::translation(t.x, t.y, t.z))
    }

    /// The body scaled by `s > 0` about the origin (dimensionless factor).
    pub fn scaled(&self, s: f64) -> Polyhedron {
        Polyhedron {
            vertices: self
                .vertices
                .iter()
                .map(|v| (v.coords * s).into())
                .collect(),
            faces: self
                .faces
                .iter()
                .map(|f| Face {
                    vertices: f.vertices.clone(),
                    normal: f.normal,
                    offset: f.offset * s,
                })
                .collect(),
        }
    }

    /// Signed volume from the surface (length³); positive for outward faces.
    pub(crate) fn signed_volume(&self) -> f64 {
        // In units of the body size l, so that tiny or huge bodies neither underflow
        // nor overflow the triple products.
        let o = self.vertices[0].coords;
        let l = self.diameter();
        let l = if l > 0.0 && l.is_finite() { l } else { 1.0 };
        let mut v = 0.0;
        for f in &self.faces {
            let a = (self.vertices[f.vertices[0]].coords - o) / l;
            for k in 1..f.vertices.len() - 1 {
                let b = (self.vertices[f.vertices[k]].coords - o) / l;
                let c = (self.vertices[f.vertices[k + 1]].coords - o) / l;
                v += a.dot(&b.cross(&c));
            }
        }
        v / 6.0 * l.powi(3)
    }

    /// Area of face `i` (length²).
    pub fn face_area(&self, i: usize) -> f64 {
        polygon_area(&self.vertices, &self.faces[i].vertices)
    }

    /// Total surface area (length²).
    pub fn surface_area(&self) -> f64 {
        (0..self.faces.len()).map(|i| self.face_area(i)).sum()
    }
}

/// Area (length²) of a planar polygon given by indices into `points`.
pub(crate) fn polygon_area(points: &[Point3<f64>], idx: &[usize]) -> f64 {
    polygon_area_centroid(points, idx).0
}

/// [`polygon_area_centroid`] of a convex polygon of `n` vertices, vertex `k` at
/// `point(k)`, whose unit normal `normal` is known (counter-clockwise seen from its
/// side): one pass, each fan triangle's area signed against the normal.
pub(crate) fn polygon_area_centroid_along(
    n: usize,
    point: impl Fn(usize) -> Vector3<f64>,
    normal: &Vector3<f64>,
) -> (f64, Point3<f64>) {
    let mut m = Vector3::zeros();
    for k in 0..n {
        m += point(k);
    }
    m /= n as f64;
    let (mut total, mut moments) = (0.0, Vector3::zeros());
    let mut a = point(n - 1);
    for k in 0..n {
        let b = point(k);
        let t = 0.5 * (a - m).cross(&(b - m)).dot(normal);
        total += t;
        moments += t * (m + a + b);
        a = b;
    }
    if total == 0.0 {
        return (0.0, m.into());
    }
    (total, (moments / (3.0 * total)).into())
}

/// Area (length²) and area centroid (length) of a planar polygon, by a fan from the
/// vertex mean (exact for planar convex polygons).
pub(crate) fn polygon_area_centroid(points: &[Point3<f64>], idx: &[usize]) -> (f64, Point3<f64>) {
    let n = idx.len();
    let mut m = Vector3::zeros();
    for &i in idx {
        m += points[i].coords;
    }
    m /= n as f64;
    let mut area_vec = Vector3::zeros();
    let mut moments = Vector3::zeros();
    let mut total = 0.0;
    // Area vector for the sign, then per-triangle areas signed against it.
    for k in 0..n {
        let a = points[idx[k]].coords - m;
        let b = points[idx[(k + 1) % n]].coords - m;
        area_vec += a.cross(&b);
    }
    let Some(u) = safe_normalize(&area_vec) else {
        return (0.0, m.into());
    };
    for k in 0..n {
        let a = points[idx[k]].coords;
        let b = points[idx[(k + 1) % n]].coords;
        let t = 0.5 * (a - m).cross(&(b - m)).dot(&u);
        total += t;
        moments += t * (m + a + b) / 3.0;
    }
    if total == 0.0 {
        return (0.0, m.into());
    }
    (total, (moments / total).into())
}
