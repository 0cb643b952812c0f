//! Intersection of two convex polyhedra by clipping A with the face planes of B, one
//! plane at a time: the fast path of [`intersect`](crate::intersect) for pairs in
//! general position, with no linear programme and no hull.
//!
//! A cut classifies every vertex of the current polytope by its signed distance `s` to
//! the plane, puts one new vertex on each edge it crosses and links the new vertices
//! into a cap face on the plane; the polytope is a graph of vertices and the faces
//! around them, so that only the part removed and its border are touched
//! (`plane_cut`). Every result is
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
//! per thread, so a call allocates only its result, and the contact computation
//! (`clip_then`) reads the polytope in place and allocates nothing. The cut by one
//! plane is in `plane_cut`.

use crate::interior::ChebyshevCentre;
use crate::intersection::{FaceSource, Intersection};
use crate::plane_cut::{Cutter, Poly, Step};
use crate::polyhedron::{polygon_area_centroid_along, Face, Polyhedron};
use crate::surface::Surface;
use nalgebra::{Point3, Vector3};
use std::cell::RefCell;

/// Relative width of the band about a plane in which a vertex makes a cut ambiguous
/// (times the larger bounding-box diagonal of the two bodies).
pub const CLIP_TOLERANCE: f64 = 1e-9;

/// What a run of the clipping found; on `Overlap` the work polytope holds A ∩ B and
/// `faces` its faces in result order.
enum Outcome {
    /// A ∩ B with its vertex centroid and the inscribed radius about it.
    Overlap(Vector3<f64>, f64),
    Empty,
    Undecided,
}

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

#[derive(Default)]
struct Work {
    cur: Poly,
    cutter: Cutter,
    /// Dense index of each live vertex, for the result.
    map: Vec<u32>,
    /// The live faces, for the result.
    faces: Vec<u32>,
    /// B's planes in the order they are applied, with their sort keys.
    order: Vec<(f64, u32)>,
    /// The larger bounding-box diagonal of A and B of the last run, if it got that far.
    size: Option<f64>,
}

thread_local! {
    static WORK: RefCell<Work> = RefCell::new(Work::default());
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

impl Work {
    /// A ∩ B by clipping A with B's planes.
    fn run(&mut self, a: &Polyhedron, b: &Polyhedron, eps: f64) -> Outcome {
        self.size = None;
        if a.vertices().is_empty()
            || b.vertices().is_empty()
            || a.faces().is_empty()
            || b.faces().is_empty()
        {
            return Outcome::Undecided;
        }
        let (la, ha) = a.aabb();
        let (lb, hb) = b.aabb();
        let size = (ha - la).norm().max((hb - lb).norm());
        self.size = Some(size);
        let reach = [la, ha, lb, hb]
            .iter()
            .map(|p| p.coords.amax())
            .fold(0.0, f64::max);
        let tol = CLIP_TOLERANCE * size + 1e-12 * reach;
        if !tol.is_finite() {
            return Outcome::Undecided;
        }
        // Boxes apart: so are the bodies (the exact path measures the distance).
        if (0..3).any(|i| la[i] > hb[i] + tol || lb[i] > ha[i] + tol) {
            return Outcome::Empty;
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
            return Outcome::Empty;
        }
        self.cur.load(a, (la.coords, ha.coords));
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
                    return Outcome::Empty;
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
        let result = self.apply((a, b), first, &order, tol, eps, (c, h));
        self.order = order;
        result
    }

    /// Cuts by `first`, then by the planes of `order`, each unless the box of the
    /// polytope decides it, and finishes.
    fn apply(
        &mut self,
        (a, b): (&Polyhedron, &Polyhedron),
        first: usize,
        order: &[(f64, u32)],
        tol: f64,
        eps: f64,
        (mut c, mut h): (Vector3<f64>, Vector3<f64>),
    ) -> Outcome {
        for k in std::iter::once(first).chain(order.iter().map(|&(_, k)| k as usize)) {
            let f = &b.faces()[k];
            let step = match box_side(&f.normal, f.offset, &c, &h, tol) {
                Some(step) => step,
                None => self.cutter.cut(&mut self.cur, b, k, tol),
            };
            match step {
                Step::Kept => {}
                Step::Cut => {
                    let (lo, hi) = (self.cur.lo, self.cur.hi);
                    (c, h) = ((hi + lo) * 0.5, (hi - lo) * 0.5);
                }
                Step::Empty => return Outcome::Empty,
                Step::Ambiguous => return Outcome::Undecided,
            }
        }
        self.finish(a, b, eps.max(tol))
    }

    /// Whether the clipped polytope is kept: its inscribed ball about the vertex
    /// centroid is wider than `min_radius`. Then `faces` lists its faces in result
    /// order: those of A first, then those of B, each in index order (the exact path's
    /// order).
    fn finish(&mut self, a: &Polyhedron, b: &Polyhedron, min_radius: f64) -> Outcome {
        let Work { cur, faces, .. } = self;
        if !cur.close(a.faces().len() + b.faces().len()) {
            return Outcome::Undecided;
        }
        faces.clear();
        faces.extend(0..cur.faces.len() as u32);
        if faces.len() < 4 {
            return Outcome::Undecided;
        }
        let centroid = cur
            .live
            .iter()
            .map(|&v| cur.verts[v as usize].p)
            .sum::<Vector3<f64>>()
            / cur.live.len() as f64;
        let radius = faces
            .iter()
            .map(|&i| {
                let f = plane(a, b, cur, i).0;
                f.offset - f.normal.dot(&centroid)
            })
            .fold(f64::INFINITY, f64::min);
        if radius.is_nan() || radius <= min_radius {
            return Outcome::Undecided;
        }
        Outcome::Overlap(centroid, radius)
    }

    /// The kept polytope as an [`Intersection`].
    fn build(
        &mut self,
        a: &Polyhedron,
        b: &Polyhedron,
        centroid: Vector3<f64>,
        radius: f64,
    ) -> Intersection {
        let Work {
            cur, map, faces, ..
        } = self;
        cur.live_index(map);
        let mut out = Vec::with_capacity(faces.len());
        let mut sources = Vec::with_capacity(faces.len());
        for &i in faces.iter() {
            let f = &cur.faces[i as usize];
            let (p, src) = plane(a, b, cur, i);
            out.push(Face {
                vertices: cur.idx[f.start as usize..(f.start + f.len) as usize]
                    .iter()
                    .map(|&v| map[v as usize] as usize)
                    .collect(),
                normal: p.normal,
                offset: p.offset,
            });
            sources.push(src);
        }
        let vertices = cur
            .live
            .iter()
            .map(|&v| Point3::from(cur.verts[v as usize].p))
            .collect();
        Intersection {
            polyhedron: Polyhedron::from_parts(vertices, out),
            sources,
            centre: ChebyshevCentre {
                point: centroid.into(),
                radius,
                active: Vec::new(),
            },
        }
    }
}

/// The plane and source of face `i` of the work polytope.
fn plane<'p>(a: &'p Polyhedron, b: &'p Polyhedron, cur: &Poly, i: u32) -> (&'p Face, FaceSource) {
    let (p, na) = (cur.faces[i as usize].plane as usize, cur.na as usize);
    if p < na {
        (
            &a.faces()[p],
            FaceSource {
                a: Some(p),
                b: None,
            },
        )
    } else {
        (
            &b.faces()[p - na],
            FaceSource {
                a: None,
                b: Some(p - na),
            },
        )
    }
}

/// A ∩ B as clipping left it, read in place ([`Surface`]): the faces of the
/// [`Intersection`] that [`intersect`](crate::intersect) would build, in its order, with
/// the same vertices, and its interior point (the vertex centroid).
pub struct View<'w> {
    work: &'w Work,
    a: &'w Polyhedron,
    b: &'w Polyhedron,
    centroid: Vector3<f64>,
}

impl Surface for View<'_> {
    fn vertex_count(&self) -> usize {
        self.work.cur.live.len()
    }
    fn vertex(&self, i: usize) -> Vector3<f64> {
        let cur = &self.work.cur;
        cur.verts[cur.live[i] as usize].p
    }
    fn face_count(&self) -> usize {
        self.work.faces.len()
    }
    fn face(&self, f: usize) -> (usize, Vector3<f64>, FaceSource) {
        let (cur, i) = (&self.work.cur, self.work.faces[f]);
        let (p, src) = plane(self.a, self.b, cur, i);
        (cur.faces[i as usize].len as usize, p.normal, src)
    }
    fn face_point(&self, f: usize, k: usize) -> Vector3<f64> {
        let cur = &self.work.cur;
        let rec = &cur.faces[self.work.faces[f] as usize];
        cur.verts[cur.idx[rec.start as usize + k] as usize].p
    }
    fn face_area_centroid(
        &self,
        f: usize,
        len: usize,
        normal: &Vector3<f64>,
    ) -> (f64, Point3<f64>) {
        // The face's cycle looked up once, not per vertex.
        let cur = &self.work.cur;
        let rec = &cur.faces[self.work.faces[f] as usize];
        let cycle = &cur.idx[rec.start as usize..][..len];
        polygon_area_centroid_along(len, |k| cur.verts[cycle[k] as usize].p, normal)
    }
    fn interior_point(&self) -> Vector3<f64> {
        self.centroid
    }
}

/// Runs `f` on the work area of this thread (a fresh one if it is in use).
fn with_work<R>(f: impl FnOnce(&mut Work) -> R) -> R {
    WORK.with(|w| match w.try_borrow_mut() {
        Ok(mut w) => f(&mut w),
        Err(_) => f(&mut Work::default()),
    })
}

/// `then` on A ∩ B when clipping finds an overlap in general position (see the module
/// doc), read in place; `None` otherwise (apart, or undecided): then
/// [`intersect_exact`](crate::intersect_exact) gives what [`intersect`](crate::intersect)
/// would. `eps` (length) is the geometric epsilon.
pub fn clip_then<R>(
    a: &Polyhedron,
    b: &Polyhedron,
    eps: f64,
    then: impl FnOnce(&View<'_>) -> R,
) -> Option<R> {
    clip_then_sized(a, b, eps, |view, _| then(view)).ok()
}

/// [`clip_then`], with the larger bounding-box diagonal of A and B (bit for bit
/// `a.diameter().max(b.diameter())`) passed to `then`, or returned as the error when
/// `then` is not called (`None` if clipping stopped before computing it): the exact
/// path and GJK need not scan the vertices for it again.
pub(crate) fn clip_then_sized<R>(
    a: &Polyhedron,
    b: &Polyhedron,
    eps: f64,
    then: impl FnOnce(&View<'_>, f64) -> R,
) -> Result<R, Option<f64>> {
    with_work(|w| match w.run(a, b, eps) {
        Outcome::Overlap(centroid, _) => {
            let size = w.size.unwrap_or_else(|| a.diameter().max(b.diameter()));
            let view = View {
                work: w,
                a,
                b,
                centroid,
            };
            Ok(then(&view, size))
        }
        _ => Err(w.size),
    })
}

/// A ∩ B by clipping (see the module doc); `eps` (length) is the geometric epsilon.
pub(crate) fn clip(a: &Polyhedron, b: &Polyhedron, eps: f64) -> Clipped {
    with_work(|w| match w.run(a, b, eps) {
        Outcome::Overlap(centroid, radius) => Clipped::Overlap(w.build(a, b, centroid, radius)),
        Outcome::Empty => Clipped::Empty,
        Outcome::Undecided => Clipped::Undecided,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{corner_tetrahedron, cube, prism, rock};
    use crate::polar::intersect_exact;
    use crate::polyhedron::polygon_area_centroid;
    use nalgebra::{Isometry3, Point3, UnitQuaternion};
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

    /// A vertex of B with more than three faces inside A: the planes after the third
    /// pass through it (it is "on" them, and repeated in place while clipping). The
    /// tip of an n-sided pyramid poking through the top of a cube comes out with each
    /// vertex once, n + 1 faces, and the volume of the tip in closed form
    /// (`area(h) h / 3`, the section a regular n-gon of circumradius `r h / H`).
    #[test]
    fn a_vertex_of_b_on_many_planes_is_one_vertex() {
        let a = cube(1.0).unwrap();
        let (apex, top, r) = (0.3, 1.3, 0.7);
        for n in 4..=8 {
            let mut pts = vec![Point3::new(0.0, 0.0, apex)];
            for k in 0..n {
                let phi = 0.3 + std::f64::consts::TAU * k as f64 / n as f64;
                pts.push(Point3::new(r * phi.cos(), r * phi.sin(), top));
            }
            let b = Polyhedron::from_points(&pts).unwrap();
            let Clipped::Overlap(i) = clip(&a, &b, 1e-9) else {
                panic!("{n}-sided pyramid: not clipped");
            };
            let p = &i.polyhedron;
            assert_eq!(p.vertices().len(), n + 1, "{n}-sided pyramid");
            assert_eq!(p.faces().len(), n + 1, "{n}-sided pyramid");
            for (j, v) in p.vertices().iter().enumerate() {
                for w in &p.vertices()[..j] {
                    assert!((v - w).norm() > 1e-3, "{n}-sided pyramid: repeated vertex");
                }
            }
            let h = 0.5 - apex;
            let rh = r * h / (top - apex);
            let n_f = n as f64;
            let area = 0.5 * n_f * rh * rh * (std::f64::consts::TAU / n_f).sin();
            let volume = area * h / 3.0;
            assert!(
                (p.volume() - volume).abs() < 1e-14,
                "{n}-sided pyramid: volume {} vs {volume}",
                p.volume()
            );
        }
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
