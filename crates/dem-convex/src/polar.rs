//! Intersection of two convex polyhedra (the [`Intersection`]) by polar duality (Muller
//! and Preparata 1978),
//! following reference 000 (Solfec's `cvi.c`), with these changes:
//!
//! * the interior point is the Chebyshev centre of A ∩ B (a small LP), not GJK's
//!   witness point pushed inwards, so every plane is at least `r` from it and the
//!   polar points are bounded by `1/r`; `r <= eps` is reported as touching;
//! * near-duplicate planes are merged *before* the hull, with a relative tolerance
//!   on the polar points ([`MERGE_TOLERANCE`]); the more restrictive plane is kept;
//!   when a face of A and a face of B coincide and face the same way both sources
//!   are recorded (see [`FaceSource`]);
//! * the hull of the polar points is our exact-predicate quickhull, and its
//!   polygons are kept: each face of the intersection is one polygon tagged with its
//!   source body and plane index;
//! * every failure is a typed [`IntersectionError`], never an empty result.

use crate::clip::{clip, Clipped};
use crate::error::IntersectionError;
use crate::gjk::{gjk_distance, gjk_distance_sized};
use crate::hull::convex_hull;
use crate::interior::chebyshev_centre;
use crate::intersection::{FaceSource, Intersection};
use crate::polyhedron::{polygon_plane, Face, Polyhedron};
use nalgebra::{Point3, Vector3};

/// Relative tolerance under which two polar points (planes) are one plane:
/// `|q_i - q_j| <= MERGE_TOLERANCE · max(|q_i|, |q_j|)`.
pub const MERGE_TOLERANCE: f64 = 1e-10;

/// Intersect A and B (same frame). `eps` (length) is the geometric epsilon: a GJK
/// distance above it is [`IntersectionError::Separated`], an inscribed radius at or
/// below it is [`IntersectionError::Touching`].
///
/// Pairs in general position that overlap by more than `eps` are intersected by
/// clipping A with B's planes ([`crate::clip`]); the others (apart, touching, thin
/// intersections, vertices near the other body's planes, flush faces) by the exact
/// path below: GJK, Chebyshev centre and polar-dual hull.
pub fn intersect(
    a: &Polyhedron,
    b: &Polyhedron,
    eps: f64,
) -> Result<Intersection, IntersectionError> {
    if let Clipped::Overlap(inter) = clip(a, b, eps) {
        return Ok(inter);
    }
    intersect_exact(a, b, eps)
}

/// The exact path of [`intersect`]: GJK, then the Chebyshev centre (touching when its
/// radius is at most `eps`), then the hull of the polar points of the planes.
pub fn intersect_exact(
    a: &Polyhedron,
    b: &Polyhedron,
    eps: f64,
) -> Result<Intersection, IntersectionError> {
    intersect_exact_sized(a, b, eps, None)
}

/// [`intersect_exact`], with `size` the larger bounding-box diagonal of the bodies
/// when the caller has it (bit for bit `a.diameter().max(b.diameter())`).
pub(crate) fn intersect_exact_sized(
    a: &Polyhedron,
    b: &Polyhedron,
    eps: f64,
    size: Option<f64>,
) -> Result<Intersection, IntersectionError> {
    let prox = match size {
        Some(size) => gjk_distance_sized(a, b, size),
        None => gjk_distance(a, b),
    };
    if prox.distance > eps {
        return Err(IntersectionError::Separated {
            distance: prox.distance,
            point_a: prox.point_a,
            point_b: prox.point_b,
        });
    }
    let centre = chebyshev_centre(a, b).map_err(|e| IntersectionError::Degenerate(e.0))?;
    if centre.radius <= eps {
        let normal = centre
            .separating_normal(a)
            .or_else(|| {
                let d = prox.point_b - prox.point_a;
                (d.norm() > 0.0).then(|| d.normalize())
            })
            .unwrap_or_else(Vector3::z);
        return Err(IntersectionError::Touching {
            radius: centre.radius,
            point: centre.point,
            normal,
        });
    }
    let x = centre.point.coords;
    // Planes relative to x, merged, as polar points.
    struct Plane {
        q: Vector3<f64>,
        normal: Vector3<f64>,
        offset: f64,
        h: f64,
        src: FaceSource,
    }
    let mut planes: Vec<Plane> = Vec::with_capacity(a.faces().len() + b.faces().len());
    let all = a
        .faces()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            (
                f,
                FaceSource {
                    a: Some(i),
                    b: None,
                },
            )
        })
        .chain(b.faces().iter().enumerate().map(|(i, f)| {
            (
                f,
                FaceSource {
                    a: None,
                    b: Some(i),
                },
            )
        }));
    // Polar points in units of the inscribed radius (|q| <= 1), so that tiny or huge
    // models stay in range; all computed first, for the bound below.
    let mut candidates = Vec::with_capacity(a.faces().len() + b.faces().len());
    let mut max_qn2 = 0.0f64;
    for (f, src) in all {
        let h = f.offset - f.normal.dot(&x);
        if (h.is_nan() || h <= 0.0) || !h.is_finite() {
            return Err(IntersectionError::Degenerate(format!(
                "interior point not inside a plane (h = {h:e})"
            )));
        }
        let q = f.normal * (centre.radius / h);
        max_qn2 = max_qn2.max(q.norm_squared());
        candidates.push(Plane {
            q,
            normal: f.normal,
            offset: f.offset,
            h,
            src,
        });
    }
    // Merge: each plane joins the first earlier plane within the tolerance. The
    // x-components of the kept planes, contiguous, give a cheap necessary test:
    // `|Δq|² >= Δx²` and `tol² max(|q|², |p|²) <= tol² max|q|²` hold in floating
    // point too (rounding is monotone), so a plane with `Δx² > tol² max|q|²` cannot
    // pass the full test, which then runs on the few that remain.
    let tol2 = MERGE_TOLERANCE * MERGE_TOLERANCE;
    let bound = tol2 * max_qn2;
    let mut xs: Vec<f64> = Vec::with_capacity(candidates.len());
    for c in candidates {
        let q = c.q;
        let qn2 = q.norm_squared();
        let found = xs.iter().enumerate().position(|(i, &px)| {
            let dx = px - q.x;
            dx * dx <= bound && {
                let p = &planes[i];
                (p.q - q).norm_squared() <= tol2 * qn2.max(p.q.norm_squared())
            }
        });
        if let Some(i) = found {
            let p = &mut planes[i];
            if c.h < p.h {
                p.q = q;
                p.h = c.h;
                p.normal = c.normal;
                p.offset = c.offset;
                xs[i] = q.x;
            }
            p.src.a = p.src.a.or(c.src.a);
            p.src.b = p.src.b.or(c.src.b);
            continue;
        }
        xs.push(q.x);
        planes.push(c);
    }
    let polar: Vec<Point3<f64>> = planes.iter().map(|p| p.q.into()).collect();
    let hull = convex_hull(&polar)?;
    // Each polar face is one vertex of the intersection.
    let mut vertices = Vec::with_capacity(hull.faces.len());
    for f in &hull.faces {
        let (m, e) = polygon_plane(&polar, f).ok_or_else(|| {
            IntersectionError::HullFailure(crate::ConvexError::HullFailure(
                "polar face without area".into(),
            ))
        })?;
        if e.is_nan() || e <= 0.0 {
            return Err(IntersectionError::HullFailure(
                crate::ConvexError::HullFailure("interior point not inside the polar hull".into()),
            ));
        }
        vertices.push(Point3::from(x + m * (centre.radius / e)));
    }
    // Faces around each polar vertex: next face across the outgoing edge's twin.
    // Directed polar edges u -> v with their face, grouped by u (compressed rows).
    let mut start = vec![0usize; polar.len() + 1];
    for f in &hull.faces {
        for &u in f {
            start[u + 1] += 1;
        }
    }
    for u in 0..polar.len() {
        start[u + 1] += start[u];
    }
    let mut fill = start.clone();
    let mut out_edges = vec![(0usize, 0usize); start[polar.len()]];
    for (fi, f) in hull.faces.iter().enumerate() {
        for k in 0..f.len() {
            let u = f[k];
            out_edges[fill[u]] = (f[(k + 1) % f.len()], fi);
            fill[u] += 1;
        }
    }
    let face_of_edge = |u: usize, v: usize| {
        out_edges[start[u]..start[u + 1]]
            .iter()
            .find(|&&(w, _)| w == v)
            .map(|&(_, fi)| fi)
    };
    let mut around = vec![usize::MAX; polar.len()]; // polar vertex -> one face
    for (fi, f) in hull.faces.iter().enumerate() {
        for &v in f {
            if around[v] == usize::MAX {
                around[v] = fi;
            }
        }
    }
    let keys: Vec<usize> = (0..polar.len())
        .filter(|&k| around[k] != usize::MAX)
        .collect();
    let mut faces = Vec::with_capacity(keys.len());
    let mut sources = Vec::with_capacity(keys.len());
    let fail = |s: &str| IntersectionError::HullFailure(crate::ConvexError::HullFailure(s.into()));
    for k in keys {
        let start = around[k];
        let mut cycle = Vec::with_capacity(8);
        cycle.push(start);
        let mut cur = start;
        loop {
            let f = &hull.faces[cur];
            let pos = f
                .iter()
                .position(|&v| v == k)
                .ok_or_else(|| fail("vertex not in face"))?;
            let w = f[(pos + 1) % f.len()];
            let next = face_of_edge(w, k).ok_or_else(|| fail("polar hull not closed"))?;
            if next == start {
                break;
            }
            if cycle.len() > hull.faces.len() {
                return Err(fail("face cycle does not close"));
            }
            cycle.push(next);
            cur = next;
        }
        if cycle.len() < 3 {
            return Err(fail("intersection face with fewer than 3 vertices"));
        }
        let p = &planes[k];
        // Orient counter-clockwise about the plane's outward normal.
        let (nn, _) = polygon_plane(&vertices, &cycle).unwrap_or((p.normal, 0.0));
        if nn.dot(&p.normal) < 0.0 {
            cycle.reverse();
        }
        faces.push(Face {
            vertices: cycle,
            normal: p.normal,
            offset: p.offset,
        });
        sources.push(p.src);
    }
    Ok(Intersection {
        polyhedron: Polyhedron::from_parts(vertices, faces),
        sources,
        centre,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::cube;
    use nalgebra::{Isometry3, Vector3};

    /// B is A raised by 0.5 and turned about z by `angle`: side faces nearly flush.
    fn turned(angle: f64) -> Intersection {
        let a = cube(1.0).unwrap();
        let b = a.transformed(&Isometry3::new(
            Vector3::new(0.0, 0.0, 0.5),
            Vector3::new(0.0, 0.0, angle),
        ));
        intersect(&a, &b, 1e-9).unwrap()
    }

    #[test]
    fn side_planes_merge_within_the_tolerance_only() {
        // Turned by 1e-12 rad the polar points of the side planes differ by about
        // 1e-12 |q|: below MERGE_TOLERANCE, so A's and B's side faces are one face
        // each, with both sources.
        let i = turned(1e-12);
        assert_eq!(i.polyhedron.faces().len(), 6);
        let both = i
            .sources
            .iter()
            .filter(|s| s.a.is_some() && s.b.is_some())
            .count();
        assert_eq!(both, 4, "{:?}", i.sources);
        // Turned by 1e-8 rad (above the tolerance) the corners are cut: an octagon
        // in section, 8 side faces each from one body.
        let i = turned(1e-8);
        assert_eq!(i.polyhedron.faces().len(), 10);
        assert!(i.sources.iter().all(|s| s.a.is_none() || s.b.is_none()));
    }
}
