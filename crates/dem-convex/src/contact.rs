//! Contact point, normal, area, volume and gap of two convex polyhedra, as reference
//! 000 (Solfec's `goc.c`) derives them from the intersection surface, with these
//! changes:
//!
//! * **normal weights**: each intersection face contributes `±a_f² n_f` with `a_f` the
//!   area of the whole *polygon* (reference 000 weights each fan triangle by its own
//!   area², which makes the normal depend on how a polygon happens to be
//!   triangulated: ±6° on a rotated-cube pair). Faces shared by A and B facing the
//!   same way (flush) contribute nothing;
//! * a **conditioning** measure `|Σ ±a_f² n_f| / Σ a_f²` is returned (1 for two
//!   opposite faces, 0 when the contributions cancel, e.g. one body inside the
//!   other); when the sum vanishes the normal falls back to the centroid direction;
//! * the **gap re-check** runs, as in Solfec's code, whenever the vertex-projection
//!   gap is below `-eps`, and the shift pulls the bodies apart: A by `-|g| n`, B by
//!   `+|g| n`, then `gap = min(dist(A', B') - 2|g|, 0)`;
//! * reference 000's "point outside A or B → no contact" is not done: the point is a
//!   centroid of a convex surface, and no contact is ever dropped silently;
//! * **touching** bodies (inscribed radius `<= eps`) still give a contact: the
//!   normal from the LP multipliers of the supporting planes, the region from the
//!   intersection of the two support polygons projected on the contact plane (area
//!   1 for unit cubes face to face; area 0 and the Chebyshev centre as point for
//!   edge and vertex contacts).

use crate::clip::clip_then_sized;
use crate::error::IntersectionError;
use crate::gjk::gjk_from_sized;
use crate::polar::intersect_exact_sized;
use crate::polyhedron::Polyhedron;
use crate::surface::Surface;
use nalgebra::{Point3, Vector2, Vector3};

/// Default geometric epsilon, relative to the model size: the absolute epsilon is
/// `GEOMETRIC_EPSILON × size` (length) with `size` a characteristic body size.
pub const GEOMETRIC_EPSILON: f64 = 1e-6;

/// Parameters of the contact computation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactOptions {
    /// Absolute geometric epsilon (length): bodies closer than this touch.
    pub epsilon: f64,
}

impl ContactOptions {
    /// Options for a model whose characteristic size is `size` (length).
    pub fn for_size(size: f64) -> Self {
        ContactOptions {
            epsilon: GEOMETRIC_EPSILON * size,
        }
    }
}

/// How the contact was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactKind {
    /// The bodies overlap with positive volume.
    Overlap,
    /// The bodies touch (inscribed radius at most epsilon).
    Touching,
}

/// Contact geometry between A and B.
#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    /// Contact point (length, world frame).
    pub point: Point3<f64>,
    /// Unit contact normal pointing from A into B.
    pub normal: Vector3<f64>,
    /// Contact area: half the intersection surface (length²).
    pub area: f64,
    /// Intersection volume (length³).
    pub volume: f64,
    /// Normal gap (length), negative in penetration.
    pub gap: f64,
    /// `|Σ ±a² n| / Σ a²` in [0, 1]; low values flag an unreliable normal.
    pub conditioning: f64,
    /// Faces of A and B whose planes are nearest to the contact point.
    pub faces: (usize, usize),
    /// Overlap or touching.
    pub kind: ContactKind,
}

/// Contact between A and B (same frame). Separated bodies give
/// [`IntersectionError::Separated`]; other errors are degenerate input or a hull
/// failure, to be logged by the caller.
pub fn contact(
    a: &Polyhedron,
    b: &Polyhedron,
    opts: &ContactOptions,
) -> Result<Contact, IntersectionError> {
    let eps = opts.epsilon;
    // Pairs in general position: from the clipped polytope in place (as `intersect`
    // would find it, without building it); the others by the exact path.
    let size = match clip_then_sized(a, b, eps, |s, size| overlap_contact(a, b, eps, s, size)) {
        Ok(c) => return c,
        Err(size) => size,
    };
    let inter = match intersect_exact_sized(a, b, eps, size) {
        Ok(i) => i,
        Err(IntersectionError::Touching { point, normal, .. }) => {
            return Ok(touching_contact(a, b, point, normal, eps));
        }
        Err(e) => return Err(e),
    };
    let size = size.unwrap_or_else(|| a.diameter().max(b.diameter()));
    overlap_contact(a, b, eps, &inter, size)
}

/// Contact of overlapping A and B from their intersection surface; `size` is the
/// larger bounding-box diagonal of A and B (`a.diameter().max(b.diameter())`).
fn overlap_contact(
    a: &Polyhedron,
    b: &Polyhedron,
    eps: f64,
    poly: &impl Surface,
    size: f64,
) -> Result<Contact, IntersectionError> {
    let nv = poly.vertex_count();
    // One pass over the faces: the area and centroid of each, the volume (the faces'
    // pyramids with apex at the vertex mean `o`), and the sums for the contact point
    // (area-weighted centroids) and normal (weights a_f², taken relative to the squared
    // extent `r2` of the intersection: same direction and conditioning, no underflow for
    // tiny bodies).
    let o = (0..nv).map(|i| poly.vertex(i)).sum::<Vector3<f64>>() / nv.max(1) as f64;
    let r2 = (0..nv)
        .map(|i| (poly.vertex(i) - o).norm_squared())
        .fold(0.0, f64::max);
    let (mut area, mut volume, mut weight) = (0.0, 0.0, 0.0);
    let (mut moment, mut n) = (Vector3::zeros(), Vector3::zeros());
    for f in 0..poly.face_count() {
        let (len, normal, src) = poly.face(f);
        let (af, cf) = poly.face_area_centroid(f, len, &normal);
        area += af;
        moment += af * cf.coords;
        volume += af * normal.dot(&(cf.coords - o));
        let w = (af / r2).powi(2);
        weight += w;
        match (src.a, src.b) {
            (Some(_), None) => n += w * normal,
            (None, Some(_)) => n -= w * normal,
            _ => {}
        }
    }
    if area.is_nan() || area <= 0.0 {
        return Err(IntersectionError::Degenerate(
            "intersection without surface".into(),
        ));
    }
    let moment = moment / area;
    let point = Point3::from(moment);
    let len = n.norm();
    let conditioning = if weight > 0.0 { len / weight } else { 0.0 };
    let normal = if len > 0.0 && conditioning > 1e-12 {
        n / len
    } else {
        let d = b.mass_properties().centroid - a.mass_properties().centroid;
        if d.norm() > 0.0 {
            d.normalize()
        } else {
            Vector3::z()
        }
    };
    // Gap from the vertex projections, re-checked by GJK when it is below -eps.
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..nv {
        let s = normal.dot(&poly.vertex(i));
        lo = lo.min(s);
        hi = hi.max(s);
    }
    let mut gap = lo - hi;
    if gap < -eps {
        let g = gap.abs();
        // dist(A - g n, B + g n) = dist(A, B + 2 g n).
        let d = gjk_from_sized(a, b, &(2.0 * g * normal), &normal, size).distance;
        gap = (d - 2.0 * g).min(0.0);
    }
    Ok(Contact {
        point,
        normal,
        area: 0.5 * area,
        volume: volume / 3.0,
        gap,
        conditioning,
        faces: (a.nearest_face(&point), b.nearest_face(&point)),
        kind: ContactKind::Overlap,
    })
}

/// Contact of two touching bodies with separating-plane normal `normal` (A into B):
/// the vertices of each body within `eps` of its supporting plane, projected on the
/// contact plane, give two convex polygons whose overlap is the contact region.
fn touching_contact(
    a: &Polyhedron,
    b: &Polyhedron,
    centre: Point3<f64>,
    normal: Vector3<f64>,
    eps: f64,
) -> Contact {
    let size = a.diameter().max(b.diameter());
    let tol = eps.max(1e-12 * size);
    let ha = a
        .vertices()
        .iter()
        .map(|v| normal.dot(&v.coords))
        .fold(f64::NEG_INFINITY, f64::max);
    let lb = b
        .vertices()
        .iter()
        .map(|v| normal.dot(&v.coords))
        .fold(f64::INFINITY, f64::min);
    // Orthonormal basis (u, w) of the contact plane.
    let u = if normal.x.abs() < 0.9 {
        Vector3::x().cross(&normal).normalize()
    } else {
        Vector3::y().cross(&normal).normalize()
    };
    let w = normal.cross(&u);
    let project = |pts: Vec<&Point3<f64>>| -> Vec<Vector2<f64>> {
        pts.iter()
            .map(|p| Vector2::new(u.dot(&p.coords), w.dot(&p.coords)))
            .collect()
    };
    let sa = project(
        a.vertices()
            .iter()
            .filter(|v| normal.dot(&v.coords) >= ha - tol)
            .collect(),
    );
    let sb = project(
        b.vertices()
            .iter()
            .filter(|v| normal.dot(&v.coords) <= lb + tol)
            .collect(),
    );
    let pa = hull2(sa);
    let pb = hull2(sb);
    let height = 0.5 * (ha + lb);
    let mut area = 0.0;
    let mut point = centre;
    if pa.len() >= 3 && pb.len() >= 3 {
        let clipped = clip(&pa, &pb);
        let (ar, c) = area_centroid2(&clipped);
        if ar > 0.0 {
            area = ar;
            point = Point3::from(c.x * u + c.y * w + height * normal);
        }
    }
    Contact {
        point,
        normal,
        area,
        volume: 0.0,
        gap: lb - ha,
        conditioning: 1.0,
        faces: (a.nearest_face(&point), b.nearest_face(&point)),
        kind: ContactKind::Touching,
    }
}

fn cross2(o: &Vector2<f64>, a: &Vector2<f64>, b: &Vector2<f64>) -> f64 {
    (a - o).perp(&(b - o))
}

/// 2-D convex hull of `p`, counter-clockwise (Andrew's monotone chain); duplicates and
/// collinear points dropped. Also what a plane-section functor needs.
pub fn hull2(mut p: Vec<Vector2<f64>>) -> Vec<Vector2<f64>> {
    p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let mut h: Vec<Vector2<f64>> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = h.len();
        let iter: Box<dyn Iterator<Item = &Vector2<f64>>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for q in iter {
            while h.len() >= start + 2 && cross2(&h[h.len() - 2], &h[h.len() - 1], q) <= 0.0 {
                h.pop();
            }
            h.push(*q);
        }
        h.pop();
    }
    h
}

/// Clip convex polygon `subject` by convex counter-clockwise polygon `clipper`.
fn clip(subject: &[Vector2<f64>], clipper: &[Vector2<f64>]) -> Vec<Vector2<f64>> {
    let mut out = subject.to_vec();
    for i in 0..clipper.len() {
        let (a, b) = (clipper[i], clipper[(i + 1) % clipper.len()]);
        let input = std::mem::take(&mut out);
        if input.is_empty() {
            break;
        }
        let side = |p: &Vector2<f64>| cross2(&a, &b, p);
        for k in 0..input.len() {
            let (p, q) = (input[k], input[(k + 1) % input.len()]);
            let (sp, sq) = (side(&p), side(&q));
            if sp >= 0.0 {
                out.push(p);
            }
            if (sp >= 0.0) != (sq >= 0.0) {
                let t = sp / (sp - sq);
                out.push(p + t * (q - p));
            }
        }
    }
    out
}

/// Area and centroid of a simple 2-D polygon (counter-clockwise gives positive area).
fn area_centroid2(p: &[Vector2<f64>]) -> (f64, Vector2<f64>) {
    if p.len() < 3 {
        return (0.0, Vector2::zeros());
    }
    let o = p[0];
    let mut a = 0.0;
    let mut c = Vector2::zeros();
    for k in 1..p.len() - 1 {
        let t = 0.5 * cross2(&o, &p[k], &p[k + 1]);
        a += t;
        c += t * (o + p[k] + p[k + 1]) / 3.0;
    }
    if a > 0.0 {
        (a, c / a)
    } else {
        (0.0, o)
    }
}
