//! Our own 3-D quickhull with exact orientation predicates.
//!
//! Every "is this point outside that face" decision is made by Shewchuk's adaptive
//! `orient3d` (the `robust` crate), so the hull is exactly convex with respect to the
//! input coordinates: no face is ever inverted and no input point is ever outside a
//! face. Points exactly on a face plane count as not outside, so duplicates and
//! coplanar points are absorbed. The input is scaled by a power of two (exact) so that
//! the predicates neither overflow nor underflow for huge or tiny coordinates.
//!
//! After the hull is built every edge is checked to be exactly convex or flat
//! (O(F)), and Euler's formula is checked; in debug and test builds every input
//! point is also checked against every triangle (O(nF)). A violated invariant is
//! returned as [`ConvexError::HullFailure`] rather than as a wrong hull.

use crate::error::ConvexError;
use nalgebra::{Point3, Vector3};
use robust::{orient2d, orient3d, Coord, Coord3D};

/// A convex hull as indices into the caller's point list.
#[derive(Debug, Clone, PartialEq)]
pub struct Hull {
    /// Hull triangles, counter-clockwise seen from outside (indices into the input).
    pub triangles: Vec<[usize; 3]>,
    /// Polygon faces: exactly coplanar adjacent triangles merged, vertices
    /// counter-clockwise seen from outside, vertices lying on an edge of the hull
    /// (exactly collinear) dropped.
    pub faces: Vec<Vec<usize>>,
}

/// Exact orientation: positive if `d` is on the inner side of the counter-clockwise
/// (seen from outside) triangle `a, b, c`, negative if outside, zero if coplanar.
/// Exact while the products of coordinate differences neither overflow nor
/// underflow (coordinates between about 1e-75 and 1e75); [`convex_hull`] scales its
/// input by a power of two first, so it has no such limit.
pub fn orient(a: &Point3<f64>, b: &Point3<f64>, c: &Point3<f64>, d: &Point3<f64>) -> f64 {
    let k = |p: &Point3<f64>| Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    };
    orient3d(k(a), k(b), k(c), k(d))
}

/// Exact test whether three points lie on one line (all three coordinate projections
/// have zero signed area).
pub fn collinear(a: &Point3<f64>, b: &Point3<f64>, c: &Point3<f64>) -> bool {
    let o = |i: usize, j: usize| {
        orient2d(
            Coord { x: a[i], y: a[j] },
            Coord { x: b[i], y: b[j] },
            Coord { x: c[i], y: c[j] },
        )
    };
    o(0, 1) == 0.0 && o(1, 2) == 0.0 && o(2, 0) == 0.0
}

/// Scale the points by a power of two so that the largest coordinate magnitude is in
/// [0.5, 1): exact, and keeps the adaptive predicates away from overflow/underflow.
fn normalise(points: &[Point3<f64>]) -> Result<Vec<Point3<f64>>, ConvexError> {
    let mut max = 0.0f64;
    for (index, p) in points.iter().enumerate() {
        if !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite()) {
            return Err(ConvexError::NonFinite { index });
        }
        max = max.max(p.x.abs()).max(p.y.abs()).max(p.z.abs());
    }
    if max == 0.0 {
        return Err(ConvexError::TooFewPoints {
            count: usize::from(!points.is_empty()),
        });
    }
    let e = max.log2().floor() as i32 + 1;
    // Two steps so that 2^-e never overflows or underflows itself.
    let (e1, e2) = (e / 2, e - e / 2);
    let s1 = 2f64.powi(-e1);
    let s2 = 2f64.powi(-e2);
    Ok(points.iter().map(|p| (p.coords * s1 * s2).into()).collect())
}

#[derive(Debug, Clone)]
struct Tri {
    v: [usize; 3],
    /// Neighbour across edge v[i] -> v[i+1].
    nbr: [usize; 3],
    alive: bool,
    /// Number of input points assigned to this face (strictly outside it).
    count: u32,
    normal: Vector3<f64>,
    /// Error-bound coefficient of the floating-point filter (see [`filtered_side`]).
    filter: f64,
}

/// Relative error bound of the floating filter. The computed `n · (q - a)` with
/// `n = (b - a) × (c - a)` has an absolute error below about
/// `10 ε |b - a| |c - a| |q - a|` (ε = 2⁻⁵³); 1e-13 is some 45 times that.
const FILTER: f64 = 1e-13;

/// Side of `q` relative to triangle `t`: positive outside, negative inside, zero on
/// the plane, exactly. The floating value `n · (q - a)` decides when it is clear of
/// its error bound; otherwise (and for triangles so small that the bound could
/// underflow) the adaptive exact predicate decides.
fn filtered_side(
    p: &[Point3<f64>],
    t: &[usize; 3],
    n: &Vector3<f64>,
    filter: f64,
    q: usize,
) -> f64 {
    let d = p[q] - p[t[0]];
    let s = n.dot(&d);
    if filter > 1e-250 && s * s > filter * filter * d.norm_squared() {
        return s;
    }
    -orient(&p[t[0]], &p[t[1]], &p[t[2]], &p[q])
}

impl Tri {
    fn new(v: [usize; 3], p: &[Point3<f64>]) -> Self {
        let (e1, e2) = (p[v[1]] - p[v[0]], p[v[2]] - p[v[0]]);
        let normal = e1.cross(&e2);
        let filter = FILTER * e1.norm() * e2.norm();
        Tri {
            v,
            nbr: [usize::MAX; 3],
            alive: true,
            count: 0,
            normal,
            filter,
        }
    }
    fn is_outside(&self, p: &[Point3<f64>], q: usize) -> bool {
        filtered_side(p, &self.v, &self.normal, self.filter, q) > 0.0
    }
    /// Floating distance-like measure, used only to choose the next eye point.
    fn height(&self, p: &[Point3<f64>], q: usize) -> f64 {
        self.normal.dot(&(p[q] - p[self.v[0]]))
    }
}

/// Count distinct points (for the error message of a degenerate input).
fn count_distinct(p: &[Point3<f64>]) -> usize {
    let mut v: Vec<[f64; 3]> = p.iter().map(|q| [q.x, q.y, q.z]).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v.dedup();
    v.len()
}

/// Four affinely independent points, found with exact predicates, ordered so that
/// `orient(p0, p1, p2, p3) > 0`.
fn initial_simplex(p: &[Point3<f64>]) -> Result<[usize; 4], ConvexError> {
    initial_simplex_inner(p).map_err(|e| {
        // Fewer than four distinct points is the more telling diagnosis.
        let distinct = count_distinct(p);
        if distinct < 4 {
            ConvexError::TooFewPoints { count: distinct }
        } else {
            e
        }
    })
}

fn initial_simplex_inner(p: &[Point3<f64>]) -> Result<[usize; 4], ConvexError> {
    let i0 = (0..p.len())
        .min_by(|&a, &b| p[a].x.total_cmp(&p[b].x))
        .unwrap_or(0);
    let i1 = (0..p.len())
        .max_by(|&a, &b| {
            (p[a] - p[i0])
                .norm_squared()
                .total_cmp(&(p[b] - p[i0]).norm_squared())
        })
        .unwrap_or(0);
    let d = p[i1] - p[i0];
    let by_line = |q: usize| d.cross(&(p[q] - p[i0])).norm_squared();
    let mut i2 = (0..p.len())
        .max_by(|&a, &b| by_line(a).total_cmp(&by_line(b)))
        .unwrap_or(0);
    if collinear(&p[i0], &p[i1], &p[i2]) {
        i2 = (0..p.len())
            .find(|&q| !collinear(&p[i0], &p[i1], &p[q]))
            .ok_or(ConvexError::Collinear)?;
    }
    let mut i3 = usize::MAX;
    let mut best = 0.0f64;
    for q in 0..p.len() {
        let o = orient(&p[i0], &p[i1], &p[i2], &p[q]).abs();
        if o > best {
            best = o;
            i3 = q;
        }
    }
    if i3 == usize::MAX {
        return Err(ConvexError::Coplanar);
    }
    if orient(&p[i0], &p[i1], &p[i2], &p[i3]) > 0.0 {
        Ok([i0, i1, i2, i3])
    } else {
        Ok([i0, i2, i1, i3])
    }
}

/// Convex hull of `points` (world coordinates, any finite magnitude).
///
/// Errors: non-finite coordinates, fewer than four distinct points, all points
/// collinear or coplanar, or an internal inconsistency (never expected; reported
/// rather than returning a wrong hull).
pub fn convex_hull(points: &[Point3<f64>]) -> Result<Hull, ConvexError> {
    let p = normalise(points)?;
    let [a, b, c, d] = initial_simplex(&p)?;
    // Base (a, b, c) has d on its inner side; the other three faces close the tetrahedron.
    let mut tris = vec![
        Tri::new([a, b, c], &p),
        Tri::new([b, a, d], &p),
        Tri::new([c, b, d], &p),
        Tri::new([a, c, d], &p),
    ];
    link_all(&mut tris)?;
    // Conflict assignment: each point strictly outside the hull belongs to one face
    // it is outside of (`owner`); points inside or used as vertices have none.
    let mut owner = vec![usize::MAX; p.len()];
    for (q, own) in owner.iter_mut().enumerate() {
        if q == a || q == b || q == c || q == d {
            continue;
        }
        if let Some(t) = (0..4).find(|&t| tris[t].is_outside(&p, q)) {
            *own = t;
            tris[t].count += 1;
        }
    }
    let mut pending: Vec<usize> = (0..4).collect();
    // Scratch space reused by every step (a hull of n points has at most 2n - 4
    // triangles; about 4n are created in all).
    tris.reserve(8 * p.len());
    let mut visible = Vec::with_capacity(16);
    let mut stack = Vec::with_capacity(16);
    let mut horizon = Vec::with_capacity(16);
    let mut mark = Vec::with_capacity(8 * p.len());
    mark.resize(tris.len(), false);
    // New face starting at each horizon vertex (reset after each step).
    let mut by_start = vec![usize::MAX; p.len()];
    let max_iterations = 4 * p.len() + 16;
    let mut iterations = 0;
    while let Some(t) = pending.pop() {
        if !tris[t].alive || tris[t].count == 0 {
            continue;
        }
        iterations += 1;
        if iterations > max_iterations {
            return Err(ConvexError::HullFailure("too many iterations".into()));
        }
        // Eye point: the farthest outside point of this face.
        let eye = (0..p.len())
            .filter(|&q| owner[q] == t)
            .max_by(|&x, &y| tris[t].height(&p, x).total_cmp(&tris[t].height(&p, y)))
            .ok_or_else(|| ConvexError::HullFailure("face count without points".into()))?;
        // Visible set by flood fill with the exact predicate.
        visible.clear();
        stack.clear();
        mark.resize(tris.len(), false);
        stack.push(t);
        mark[t] = true;
        while let Some(f) = stack.pop() {
            visible.push(f);
            for k in 0..3 {
                let g = tris[f].nbr[k];
                if !mark[g] && tris[g].is_outside(&p, eye) {
                    mark[g] = true;
                    stack.push(g);
                }
            }
        }
        // Horizon edges: (u, v, outer neighbour) seen from the visible side.
        horizon.clear();
        for &f in &visible {
            for k in 0..3 {
                let g = tris[f].nbr[k];
                if !mark[g] {
                    horizon.push((tris[f].v[k], tris[f].v[(k + 1) % 3], g, f));
                }
            }
        }
        // The horizon must be one simple cycle: each vertex starts exactly one edge.
        let first_new = tris.len();
        for (i, &(u, _, _, _)) in horizon.iter().enumerate() {
            if by_start[u] != usize::MAX {
                return Err(ConvexError::HullFailure(
                    "horizon is not a simple cycle".into(),
                ));
            }
            by_start[u] = first_new + i;
        }
        for &(u, v, g, f) in &horizon {
            let mut nt = Tri::new([u, v, eye], &p);
            nt.nbr[0] = g;
            nt.nbr[1] = by_start[v];
            if nt.nbr[1] == usize::MAX {
                return Err(ConvexError::HullFailure("open horizon".into()));
            }
            let id = tris.len();
            // Relink the outer neighbour from the dead face to the new one.
            for k in 0..3 {
                if tris[g].nbr[k] == f {
                    tris[g].nbr[k] = id;
                }
            }
            tris.push(nt);
        }
        // Edge eye -> u of (u, v, eye) borders the new face ending at u, i.e. (w, u, eye).
        for i in first_new..tris.len() {
            let next = by_start[tris[i].v[1]];
            tris[next].nbr[2] = i;
        }
        for &(u, _, _, _) in &horizon {
            by_start[u] = usize::MAX;
        }
        if tris[first_new..]
            .iter()
            .any(|t| t.nbr.contains(&usize::MAX))
        {
            return Err(ConvexError::HullFailure(
                "horizon is not a simple cycle".into(),
            ));
        }
        // Retire visible faces and hand their outside points to the new faces.
        for &f in &visible {
            tris[f].alive = false;
        }
        owner[eye] = usize::MAX;
        for (q, own) in owner.iter_mut().enumerate() {
            if *own == usize::MAX || tris[*own].alive {
                continue;
            }
            *own = usize::MAX;
            if let Some(nf) = (first_new..tris.len()).find(|&nf| tris[nf].is_outside(&p, q)) {
                *own = nf;
                tris[nf].count += 1;
            }
        }
        for &f in &visible {
            mark[f] = false;
        }
        mark.resize(tris.len(), false);
        pending.extend(first_new..tris.len());
    }
    let alive: Vec<usize> = (0..tris.len()).filter(|&t| tris[t].alive).collect();
    let triangles: Vec<[usize; 3]> = alive.iter().map(|&t| tris[t].v).collect();
    // Every input point against every triangle, exactly: O(n F), so run in debug
    // and test builds; release builds rely on the exact predicates and on the
    // O(F) local-convexity check of every edge in `merge_coplanar`.
    validate(&p, &triangles, cfg!(debug_assertions))?;
    let faces = merge_coplanar(&p, &tris, &alive)?;
    Ok(Hull { triangles, faces })
}

/// Neighbour links of a closed triangle set by matching twin edges.
fn link_all(tris: &mut [Tri]) -> Result<(), ConvexError> {
    for t in 0..tris.len() {
        for k in 0..3 {
            let (u, v) = (tris[t].v[k], tris[t].v[(k + 1) % 3]);
            let twin = (0..tris.len())
                .find(|&g| (0..3).any(|j| tris[g].v[j] == v && tris[g].v[(j + 1) % 3] == u))
                .ok_or(ConvexError::NotClosed(u, v))?;
            tris[t].nbr[k] = twin;
        }
    }
    Ok(())
}

/// Exact check: no point outside any triangle (if `points`), and V - E + F = 2 for
/// the triangles.
fn validate(p: &[Point3<f64>], triangles: &[[usize; 3]], points: bool) -> Result<(), ConvexError> {
    for t in triangles.iter().filter(|_| points) {
        let (e1, e2) = (p[t[1]] - p[t[0]], p[t[2]] - p[t[0]]);
        let n = e1.cross(&e2);
        let filter = FILTER * e1.norm() * e2.norm();
        for i in 0..p.len() {
            // A triangle's own corners are trivially on it (and would take the
            // predicate's slowest exact path).
            if t.contains(&i) {
                continue;
            }
            if filtered_side(p, t, &n, filter, i) > 0.0 {
                return Err(ConvexError::HullFailure(format!(
                    "a point is outside triangle {t:?}"
                )));
            }
        }
    }
    let mut seen = vec![false; p.len()];
    let mut v = 0;
    for &i in triangles.iter().flatten() {
        v += usize::from(!seen[i]);
        seen[i] = true;
    }
    let f = triangles.len();
    let e = 3 * f / 2;
    if 3 * f % 2 != 0 || v + f != e + 2 {
        return Err(ConvexError::Euler { v, e, f });
    }
    Ok(())
}

/// Merge exactly coplanar neighbouring triangles into polygons and drop vertices
/// that lie on a hull edge (they belong to exactly two polygons).
fn merge_coplanar(
    p: &[Point3<f64>],
    tris: &[Tri],
    alive: &[usize],
) -> Result<Vec<Vec<usize>>, ConvexError> {
    let mut parent: Vec<usize> = (0..tris.len()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for &t in alive {
        for k in 0..3 {
            let g = tris[t].nbr[k];
            if g < t {
                continue;
            }
            // Vertex of g not on the shared edge.
            let opp = tris[g]
                .v
                .iter()
                .copied()
                .find(|x| !tris[t].v.contains(x))
                .ok_or_else(|| ConvexError::HullFailure("duplicate triangle".into()))?;
            // Exact side of `opp` (positive: inner side of t), by the floating
            // filter first: the exact predicate only when the sign is in doubt
            // (coplanar triangles always are).
            let side = -filtered_side(p, &tris[t].v, &tris[t].normal, tris[t].filter, opp);
            if side < 0.0 {
                return Err(ConvexError::HullFailure(format!(
                    "reflex edge between triangles {:?} and {:?}",
                    tris[t].v, tris[g].v
                )));
            }
            if side == 0.0 {
                let (ra, rb) = (find(&mut parent, t), find(&mut parent, g));
                parent[ra] = rb;
            }
        }
    }
    // Walk the boundary of each group: from a boundary edge ending at v, turn about
    // v through the group's triangles to the next boundary edge starting at v.
    let root: Vec<usize> = (0..tris.len()).map(|t| find(&mut parent, t)).collect();
    let boundary = |t: usize, k: usize| root[tris[t].nbr[k]] != root[t];
    let mut visited = vec![false; 3 * tris.len()];
    let mut faces: Vec<Vec<usize>> = Vec::with_capacity(alive.len());
    let mut roots_seen = Vec::with_capacity(alive.len());
    let mut visited_root = vec![false; tris.len()];
    let guard = 3 * tris.len() + 3;
    let broken = |s: &str| ConvexError::HullFailure(s.into());
    for &t in alive {
        for k in 0..3 {
            if !boundary(t, k) || visited[3 * t + k] {
                continue;
            }
            roots_seen.push(root[t]);
            let mut poly = Vec::with_capacity(4);
            let (mut ct, mut ck) = (t, k);
            loop {
                visited[3 * ct + ck] = true;
                poly.push(tris[ct].v[ck]);
                let v = tris[ct].v[(ck + 1) % 3];
                let (mut tt, mut kk) = (ct, (ck + 1) % 3);
                let mut steps = 0;
                while !boundary(tt, kk) {
                    let w = tris[tt].v[(kk + 1) % 3];
                    let g = tris[tt].nbr[kk];
                    let j = (0..3)
                        .find(|&j| tris[g].v[j] == w && tris[g].v[(j + 1) % 3] == v)
                        .ok_or_else(|| broken("neighbour without twin edge"))?;
                    tt = g;
                    kk = (j + 1) % 3;
                    steps += 1;
                    if steps > guard {
                        return Err(broken("face boundary walk does not end"));
                    }
                }
                (ct, ck) = (tt, kk);
                if (ct, ck) == (t, k) {
                    break;
                }
                if poly.len() > guard || visited[3 * ct + ck] {
                    return Err(broken("face boundary not a cycle"));
                }
            }
            faces.push(poly);
        }
    }
    let mut distinct = 0;
    for &r in &roots_seen {
        distinct += usize::from(!visited_root[r]);
        visited_root[r] = true;
    }
    if distinct != faces.len() {
        return Err(broken("a face boundary has several cycles"));
    }
    // Vertices on exactly two polygons lie on an edge of the hull: drop them.
    let mut degree = vec![0u32; p.len()];
    for f in &faces {
        for &v in f {
            degree[v] += 1;
        }
    }
    for f in &mut faces {
        f.retain(|&v| degree[v] >= 3);
        if f.len() < 3 {
            return Err(broken("face lost its corners"));
        }
    }
    Ok(faces)
}
