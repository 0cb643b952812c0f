//! Intersection of two convex polyhedra by clipping A with the face planes of B, one
//! plane at a time: the fast path of [`intersect`](crate::intersect) for pairs in
//! general position, with no linear programme and no hull.
//!
//! A cut classifies every vertex of the current polytope by its signed distance `s` to
//! the plane, keeps the inside part of each face, puts one new vertex on each crossed
//! edge (computed once, shared by the edge's two faces) and closes the cut with a cap
//! face on the plane, walked from the crossed faces' new edges. Every result is
//! checked, and any doubt sends the pair back to the exact path (Chebyshev centre and
//! polar-dual hull) unchanged:
//!
//! * a vertex within `tol` of a plane (`|s| <= tol`, `tol` about 1e-9 of the size plus
//!   the round-off of the coordinates) makes the cut **ambiguous**. So every sign is
//!   certain, each face is crossed at most twice, the cap is one cycle, and
//!   coincident or nearly coincident planes (flush faces, which the exact path merges
//!   and tags with both sources) never reach this path; a face crossed more than twice
//!   or a cap that is not one cycle is ambiguous too;
//! * the result is accepted only if the ball about its vertex centroid with radius the
//!   smallest distance to its face planes is wider than `eps` and `tol`: the
//!   Chebyshev radius is then above `eps` as well, so the exact path would also have
//!   found an overlap (not touching, not apart).
//!
//! In that case the polytope is exactly A ∩ B with vertices from other round-off than
//! the polar dual's: the same faces with the same sources, vertices equal to the last
//! bits (the Qhull and brute-force oracles, the property tests). Work buffers are kept
//! per thread, so a call allocates only its result.

use crate::interior::ChebyshevCentre;
use crate::intersection::{FaceSource, Intersection};
use crate::polyhedron::{Face, Polyhedron};
use nalgebra::{Point3, Vector3};
use std::cell::RefCell;

/// Relative width of the band about a plane in which a vertex makes a cut ambiguous
/// (times the larger bounding-box diagonal of the two bodies).
pub const CLIP_TOLERANCE: f64 = 1e-9;

/// What the clipping found.
pub(crate) enum Clipped {
    /// A ∩ B in general position, overlapping with an inscribed ball wider than `eps`.
    Overlap(Intersection),
    /// Apart by a plane (every vertex strictly outside a face's plane, or the boxes
    /// apart): A ∩ B is empty.
    Empty,
    /// Not decided here (a vertex near a plane, a thin intersection, bad input).
    Undecided,
}

#[derive(Clone, Copy)]
struct FaceRec {
    start: u32,
    len: u32,
    normal: Vector3<f64>,
    offset: f64,
    src: FaceSource,
}

/// No vertex or plane of B.
const NONE: u32 = u32::MAX;

/// A vertex of the work polytope, with the planes of B it lies on as known from how it
/// was made (not from its coordinates): `bv` a vertex of B (on every face of B around
/// it), else up to three planes of B in `bp` (three only for a point that is not a
/// vertex of B: outside B, to be cut off by a later plane).
#[derive(Clone, Copy)]
struct Vert {
    p: Vector3<f64>,
    bv: u32,
    bp: [u32; 3],
}

#[derive(Default)]
struct Poly {
    verts: Vec<Vert>,
    idx: Vec<u32>,
    faces: Vec<FaceRec>,
}

impl Poly {
    fn clear(&mut self) {
        self.verts.clear();
        self.idx.clear();
        self.faces.clear();
    }

    fn aabb(&self) -> (Vector3<f64>, Vector3<f64>) {
        let mut lo = self.verts[0].p;
        let mut hi = lo;
        for v in &self.verts {
            lo = lo.inf(&v.p);
            hi = hi.sup(&v.p);
        }
        (lo, hi)
    }
}

/// Side of a vertex: strictly inside, on the plane (a vertex of B on the face), outside.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    In,
    On,
    Out,
}

#[derive(Default)]
struct Work {
    cur: Poly,
    next: Poly,
    side: Vec<Side>,
    s: Vec<f64>,
    map: Vec<u32>,
    /// Per vertex of `next`: on the cutting plane (a vertex of B on it, or a cut point).
    on_plane: Vec<bool>,
    /// Crossed edges (lower, higher old vertex index) and their new vertex.
    cuts: Vec<(u32, u32, u32)>,
    /// Cap edges (from, to) in new vertex indices.
    cap: Vec<(u32, u32)>,
    /// B's planes in the order they are applied, with their sort keys.
    order: Vec<(f64, u32)>,
}

thread_local! {
    static WORK: RefCell<Work> = RefCell::new(Work::default());
}

enum Step {
    Kept,
    Cut,
    Empty,
    Ambiguous,
}

/// The box test: a plane whose support over the box `(c, h)` (centre, half extents) is
/// below `d - 2 tol` keeps everything; above `d + 2 tol` at its lowest, it removes
/// everything; `None` when the vertices must be looked at.
fn box_side(
    n: &Vector3<f64>,
    d: f64,
    c: &Vector3<f64>,
    h: &Vector3<f64>,
    tol: f64,
) -> Option<Step> {
    let mid = n.dot(c) - d;
    let reach = n.x.abs() * h.x + n.y.abs() * h.y + n.z.abs() * h.z;
    if mid + reach < -2.0 * tol {
        Some(Step::Kept)
    } else if mid - reach > 2.0 * tol {
        Some(Step::Empty)
    } else {
        None
    }
}

/// The planes of B common to the ends of an edge (the edge lies on them; at most two),
/// `None` if there are more, or if both ends are vertices of B (not expected: the
/// segment would lie on an edge of B, inside every other plane).
fn common_planes(b: &Polyhedron, p: &Vert, q: &Vert) -> Option<[u32; 2]> {
    let on_face = |m: u32, j: u32| b.faces()[j as usize].vertices.contains(&(m as usize));
    let (v, bp, other) = match (p.bv != NONE, q.bv != NONE) {
        (true, true) => return None,
        (true, false) => (p.bv, q.bp, q.bp),
        (false, true) => (q.bv, p.bp, p.bp),
        (false, false) => (NONE, p.bp, q.bp),
    };
    let mut out = [NONE; 2];
    let mut n = 0;
    for j in bp {
        let shared = j != NONE
            && if v != NONE {
                on_face(v, j)
            } else {
                other.contains(&j)
            };
        if shared {
            if n == 2 {
                return None;
            }
            out[n] = j;
            n += 1;
        }
    }
    Some(out)
}

impl Work {
    /// Cut `cur` by the plane of B's face `k` into `next` (swapped into `cur` on `Cut`).
    fn cut(&mut self, b: &Polyhedron, k: usize, tol: f64) -> Step {
        let Work {
            cur,
            next,
            side,
            s,
            map,
            on_plane,
            cuts,
            cap,
            order: _,
        } = self;
        let face = &b.faces()[k];
        let (n, d) = (face.normal, face.offset);
        side.clear();
        s.clear();
        let (mut ins, mut outs) = (0usize, 0usize);
        for v in &cur.verts {
            let sv = n.dot(&v.p) - d;
            let c = if v.bv != NONE && face.vertices.contains(&(v.bv as usize)) {
                Side::On
            } else if sv > tol {
                outs += 1;
                Side::Out
            } else if sv < -tol {
                ins += 1;
                Side::In
            } else {
                return Step::Ambiguous; // near the plane, or NaN
            };
            side.push(c);
            s.push(sv);
        }
        if outs == 0 {
            return Step::Kept;
        }
        if ins == 0 {
            // Nothing strictly inside: empty, or at most a face of zero volume.
            return if outs == cur.verts.len() {
                Step::Empty
            } else {
                Step::Ambiguous
            };
        }
        next.clear();
        map.clear();
        on_plane.clear();
        for (v, &c) in cur.verts.iter().zip(side.iter()) {
            if c == Side::Out {
                map.push(NONE);
            } else {
                map.push(next.verts.len() as u32);
                next.verts.push(*v);
                on_plane.push(c == Side::On);
            }
        }
        cuts.clear();
        cap.clear();
        for f in &cur.faces {
            let cyc = &cur.idx[f.start as usize..(f.start + f.len) as usize];
            let start = next.idx.len();
            let (mut fin, mut fon) = (0, 0);
            for &v in cyc {
                match side[v as usize] {
                    Side::In => fin += 1,
                    Side::On => fon += 1,
                    Side::Out => {}
                }
            }
            if fin + fon == cyc.len() {
                next.idx.extend(cyc.iter().map(|&v| map[v as usize]));
                if fon < 2 {
                    // No edge on the plane.
                    next.faces.push(FaceRec {
                        start: start as u32,
                        len: cyc.len() as u32,
                        ..*f
                    });
                    continue;
                }
            } else if fin == 0 {
                continue; // outside, or touching the plane at an edge or a vertex
            } else {
                for i in 0..cyc.len() {
                    let (v, w) = (cyc[i], cyc[(i + 1) % cyc.len()]);
                    let (sv, sw) = (side[v as usize], side[w as usize]);
                    if sv != Side::Out {
                        next.idx.push(map[v as usize]);
                    }
                    if (sv == Side::In && sw == Side::Out) || (sv == Side::Out && sw == Side::In) {
                        let (lo, hi) = (v.min(w), v.max(w));
                        let c = match cuts.iter().find(|e| e.0 == lo && e.1 == hi) {
                            Some(e) => e.2,
                            None => {
                                let (pl, ph) = (&cur.verts[lo as usize], &cur.verts[hi as usize]);
                                let Some(planes) = common_planes(b, pl, ph) else {
                                    return Step::Ambiguous;
                                };
                                let (sl, sh) = (s[lo as usize], s[hi as usize]);
                                let t = sl / (sl - sh);
                                let kk = k as u32;
                                let mut vert = Vert {
                                    p: pl.p + (ph.p - pl.p) * t,
                                    bv: NONE,
                                    bp: match planes {
                                        [NONE, _] => [kk, NONE, NONE],
                                        [i, NONE] => [i, kk, NONE],
                                        [i, j] => [i, j, kk],
                                    },
                                };
                                if planes[1] != NONE {
                                    // On three planes of B: the vertex of B they share, if
                                    // any (else a point outside B, cut off later).
                                    let (fi, fj) = (
                                        &b.faces()[planes[0] as usize].vertices,
                                        &b.faces()[planes[1] as usize].vertices,
                                    );
                                    if let Some(&m) = face
                                        .vertices
                                        .iter()
                                        .find(|m| fi.contains(m) && fj.contains(m))
                                    {
                                        vert.bv = m as u32;
                                        vert.bp = [NONE; 3];
                                    }
                                }
                                let c = next.verts.len() as u32;
                                next.verts.push(vert);
                                on_plane.push(true);
                                cuts.push((lo, hi, c));
                                c
                            }
                        };
                        next.idx.push(c);
                    }
                }
            }
            // Edges of the kept polygon on the plane border the cap, which runs back.
            let poly = &next.idx[start..];
            if poly.len() < 3 || poly.iter().all(|&v| on_plane[v as usize]) {
                return Step::Ambiguous;
            }
            let mut x = poly[poly.len() - 1];
            for &y in poly {
                if on_plane[x as usize] && on_plane[y as usize] {
                    cap.push((y, x));
                }
                x = y;
            }
            next.faces.push(FaceRec {
                start: start as u32,
                len: (next.idx.len() - start) as u32,
                ..*f
            });
        }
        // The cap: one cycle through every cap edge.
        if cap.len() < 3 {
            return Step::Ambiguous;
        }
        let start = next.idx.len();
        let first = cap[0].0;
        let mut at = first;
        loop {
            let Some(&(_, to)) = cap.iter().find(|e| e.0 == at) else {
                return Step::Ambiguous;
            };
            next.idx.push(at);
            at = to;
            if at == first {
                break;
            }
            if next.idx.len() - start > cap.len() {
                return Step::Ambiguous;
            }
        }
        if next.idx.len() - start != cap.len() {
            return Step::Ambiguous;
        }
        next.faces.push(FaceRec {
            start: start as u32,
            len: cap.len() as u32,
            normal: n,
            offset: d,
            src: FaceSource {
                a: None,
                b: Some(k),
            },
        });
        std::mem::swap(cur, next);
        Step::Cut
    }

    /// A ∩ B by clipping A with B's planes.
    fn clip(&mut self, a: &Polyhedron, b: &Polyhedron, eps: f64) -> Clipped {
        if a.vertices().is_empty()
            || b.vertices().is_empty()
            || a.faces().is_empty()
            || b.faces().is_empty()
        {
            return Clipped::Undecided;
        }
        let (la, ha) = a.aabb();
        let (lb, hb) = b.aabb();
        let size = (ha - la).norm().max((hb - lb).norm());
        let reach = [la, ha, lb, hb]
            .iter()
            .map(|p| p.coords.amax())
            .fold(0.0, f64::max);
        let tol = CLIP_TOLERANCE * size + 1e-12 * reach;
        if !tol.is_finite() {
            return Clipped::Undecided;
        }
        // Boxes apart: so are the bodies (the exact path measures the distance).
        if (0..3).any(|i| la[i] > hb[i] + tol || lb[i] > ha[i] + tol) {
            return Clipped::Empty;
        }
        // B's plane facing A most first: it removes most of A, and the box of what is
        // left then rules out most other planes without looking at the vertices. Before
        // any work, that plane and A's plane facing B most are tried as separating
        // planes (the common case of a pair apart).
        let towards = (la.coords + ha.coords) - (lb.coords + hb.coords);
        let facing = |p: &Polyhedron, dir: &Vector3<f64>| {
            let mut best = (f64::NEG_INFINITY, 0);
            for (i, f) in p.faces().iter().enumerate() {
                let x = f.normal.dot(dir);
                if x > best.0 {
                    best = (x, i);
                }
            }
            best.1
        };
        let first = facing(b, &towards);
        let apart = |f: &Face, p: &Polyhedron| {
            p.vertices()
                .iter()
                .all(|v| f.normal.dot(&v.coords) - f.offset > tol)
        };
        if apart(&b.faces()[first], a) || apart(&a.faces()[facing(a, &-towards)], b) {
            return Clipped::Empty;
        }
        // A into the work polytope.
        let cur = &mut self.cur;
        cur.clear();
        cur.verts.extend(a.vertices().iter().map(|p| Vert {
            p: p.coords,
            bv: NONE,
            bp: [NONE; 3],
        }));
        for (i, f) in a.faces().iter().enumerate() {
            let start = cur.idx.len() as u32;
            cur.idx.extend(f.vertices.iter().map(|&v| v as u32));
            cur.faces.push(FaceRec {
                start,
                len: f.vertices.len() as u32,
                normal: f.normal,
                offset: f.offset,
                src: FaceSource {
                    a: Some(i),
                    b: None,
                },
            });
        }
        let (c, h) = ((ha.coords + la.coords) * 0.5, (ha.coords - la.coords) * 0.5);
        // Then the planes that reach into A's box (the others keep all of A, and the
        // box only shrinks), those A's box centre lies farthest outside first: they cut
        // deepest, so that the polytope shrinks early and the box test rules out more of
        // the rest.
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        for (k, f) in b.faces().iter().enumerate() {
            match box_side(&f.normal, f.offset, &c, &h, tol) {
                _ if k == first => {}
                None => order.push((f.offset - f.normal.dot(&c), k as u32)),
                Some(Step::Empty) => {
                    self.order = order;
                    return Clipped::Empty;
                }
                Some(_) => {}
            }
        }
        // A full sort costs more than it saves: the three deepest to the front.
        for i in 0..order.len().min(3) {
            let mut best = i;
            for j in i + 1..order.len() {
                if order[j].0 < order[best].0 {
                    best = j;
                }
            }
            order.swap(i, best);
        }
        let result = self.apply(b, first, &order, tol, eps, (c, h));
        self.order = order;
        result
    }

    /// Cuts by `first`, then by the planes of `order`, each unless the box of the
    /// polytope decides it, and finishes.
    fn apply(
        &mut self,
        b: &Polyhedron,
        first: usize,
        order: &[(f64, u32)],
        tol: f64,
        eps: f64,
        (mut c, mut h): (Vector3<f64>, Vector3<f64>),
    ) -> Clipped {
        for k in std::iter::once(first).chain(order.iter().map(|&(_, k)| k as usize)) {
            let f = &b.faces()[k];
            let step = match box_side(&f.normal, f.offset, &c, &h, tol) {
                Some(step) => step,
                None => self.cut(b, k, tol),
            };
            match step {
                Step::Kept => {}
                Step::Cut => {
                    let (lo, hi) = self.cur.aabb();
                    (c, h) = ((hi + lo) * 0.5, (hi - lo) * 0.5);
                }
                Step::Empty => return Clipped::Empty,
                Step::Ambiguous => return Clipped::Undecided,
            }
        }
        self.finish(eps.max(tol))
    }

    /// The clipped polytope as an [`Intersection`], if its inscribed ball about the
    /// vertex centroid is wider than `min_radius`. Faces of A first, then those of B,
    /// each in index order (the exact path's order).
    fn finish(&mut self, min_radius: f64) -> Clipped {
        let cur = &self.cur;
        if cur.faces.len() < 4 {
            return Clipped::Undecided;
        }
        let centroid = cur.verts.iter().map(|v| v.p).sum::<Vector3<f64>>() / cur.verts.len() as f64;
        let radius = cur
            .faces
            .iter()
            .map(|f| f.offset - f.normal.dot(&centroid))
            .fold(f64::INFINITY, f64::min);
        if radius.is_nan() || radius <= min_radius {
            return Clipped::Undecided;
        }
        let mut order: Vec<usize> = (0..cur.faces.len()).collect();
        order.sort_unstable_by_key(|&i| {
            let s = cur.faces[i].src;
            (s.a.is_none(), s.a.or(s.b))
        });
        let mut faces = Vec::with_capacity(order.len());
        let mut sources = Vec::with_capacity(order.len());
        for i in order {
            let f = &cur.faces[i];
            faces.push(Face {
                vertices: cur.idx[f.start as usize..(f.start + f.len) as usize]
                    .iter()
                    .map(|&v| v as usize)
                    .collect(),
                normal: f.normal,
                offset: f.offset,
            });
            sources.push(f.src);
        }
        let vertices = cur.verts.iter().map(|v| Point3::from(v.p)).collect();
        Clipped::Overlap(Intersection {
            polyhedron: Polyhedron::from_parts(vertices, faces),
            sources,
            centre: ChebyshevCentre {
                point: centroid.into(),
                radius,
                active: Vec::new(),
            },
        })
    }
}

/// A ∩ B by clipping (see the module doc); `eps` (length) is the geometric epsilon.
pub(crate) fn clip(a: &Polyhedron, b: &Polyhedron, eps: f64) -> Clipped {
    WORK.with(|w| match w.try_borrow_mut() {
        Ok(mut w) => w.clip(a, b, eps),
        Err(_) => Work::default().clip(a, b, eps),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{corner_tetrahedron, cube, prism, rock};
    use crate::intersection::intersect_exact;
    use crate::polyhedron::polygon_area_centroid;
    use nalgebra::{Isometry3, UnitQuaternion};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    fn shape(rng: &mut Pcg64) -> Polyhedron {
        match rng.random_range(0..4) {
            0 => cube(1.0).unwrap(),
            1 => corner_tetrahedron(1.2).unwrap(),
            2 => prism(rng.random_range(3..9), 0.6, 0.8).unwrap(),
            _ => rock(
                rng.random(),
                rng.random_range(8..40),
                Vector3::new(0.6, 0.5, 0.4),
            )
            .unwrap(),
        }
    }

    /// Clipping against the exact path on random pairs: when it decides, the same faces
    /// from the same sources and planes, the same face areas and centroids, each vertex
    /// of one near a vertex of the other, the same volume; and it decides nearly every
    /// overlapping pair. The tolerances (1e-9 of the unit size) are the exact path's own
    /// round-off: where many planes meet at a vertex its polar points are nearly
    /// coplanar, and it was seen to place a vertex of A 1e-11 off (clipping copies it).
    #[test]
    fn clipping_agrees_with_the_polar_dual() {
        let mut rng = Pcg64::seed_from_u64(19);
        let (mut overlaps, mut clipped, mut empty) = (0, 0, 0);
        for trial in 0..3000 {
            let pose = |rng: &mut Pcg64| {
                let t = Vector3::new(
                    rng.random_range(-0.8..0.8),
                    rng.random_range(-0.8..0.8),
                    rng.random_range(-0.8..0.8),
                );
                let axis = Vector3::new(rng.random(), rng.random(), rng.random()) * 3.0;
                Isometry3::from_parts(t.into(), UnitQuaternion::from_scaled_axis(axis))
            };
            let a = shape(&mut rng).transformed(&pose(&mut rng));
            let b = shape(&mut rng).transformed(&pose(&mut rng));
            let exact = intersect_exact(&a, &b, 1e-6);
            if exact.is_ok() {
                overlaps += 1;
            }
            match (clip(&a, &b, 1e-6), exact) {
                (Clipped::Overlap(c), Ok(e)) => {
                    clipped += 1;
                    assert_eq!(c.sources, e.sources, "trial {trial}");
                    let (pc, pe) = (&c.polyhedron, &e.polyhedron);
                    for (fc, fe) in pc.faces().iter().zip(pe.faces()) {
                        assert_eq!((fc.normal, fc.offset), (fe.normal, fe.offset));
                        let (ac, cc) = polygon_area_centroid(pc.vertices(), &fc.vertices);
                        let (ae, ce) = polygon_area_centroid(pe.vertices(), &fe.vertices);
                        assert!((ac - ae).abs() < 1e-9, "trial {trial}: area {ac} vs {ae}");
                        assert!((cc - ce).norm() < 1e-9, "trial {trial}: face centroid");
                    }
                    // The exact path may repeat a vertex where more than three planes
                    // meet (one per triangle of the polar hull): compare as sets.
                    let apart = |p: &Polyhedron, q: &Polyhedron| {
                        p.vertices()
                            .iter()
                            .map(|v| {
                                q.vertices()
                                    .iter()
                                    .map(|w| (v - w).norm())
                                    .fold(f64::INFINITY, f64::min)
                            })
                            .fold(0.0, f64::max)
                    };
                    let d = apart(pc, pe).max(apart(pe, pc));
                    assert!(d < 1e-9, "trial {trial}: vertices {d:e} apart");
                    assert!((pc.volume() - pe.volume()).abs() < 1e-10, "trial {trial}");
                    assert!(c.centre.radius > 1e-6 && c.centre.radius <= e.centre.radius);
                    assert!(a.contains(&c.centre.point, 0.0) && b.contains(&c.centre.point, 0.0));
                }
                (Clipped::Overlap(_), Err(e)) => panic!("trial {trial}: clipped, exact {e:?}"),
                (Clipped::Empty, Ok(_)) => panic!("trial {trial}: empty, exact overlap"),
                (Clipped::Empty, Err(_)) => empty += 1,
                (Clipped::Undecided, _) => {}
            }
        }
        println!("{overlaps} overlaps, {clipped} clipped, {empty} found empty");
        assert!(
            clipped as f64 > 0.97 * overlaps as f64,
            "{clipped} of {overlaps}"
        );
        assert!(empty > 100, "{empty}");
    }

    /// Flush faces (coplanar planes of A and B) are left to the exact path, which
    /// merges them and records both sources.
    #[test]
    fn flush_faces_are_not_clipped() {
        let a = cube(1.0).unwrap();
        for t in [
            Vector3::new(0.5, 0.0, 0.0),
            Vector3::new(0.3, 0.2, 0.0),
            Vector3::new(0.3, 0.2, 1e-10),
        ] {
            assert!(matches!(
                clip(&a, &a.translated(&t), 1e-9),
                Clipped::Undecided
            ));
        }
        // Off by more than the band: clipped.
        let t = Vector3::new(0.3, 0.2, 1e-6);
        assert!(matches!(
            clip(&a, &a.translated(&t), 1e-9),
            Clipped::Overlap(_)
        ));
    }
}
