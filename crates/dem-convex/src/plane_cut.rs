//! The work polytope of [`crate::clip`] and its cut by one plane of B, in place.
//!
//! Vertices are never renumbered while clipping: a cut marks the vertices outside the
//! plane dead (they drop out of the list of live vertices), appends one new vertex per
//! crossed edge, rewrites only the faces it crosses (their new cycles appended to the
//! index buffer, the old ones left unused), drops the faces wholly outside and
//! appends the cap. So a cut costs the sign test of the live vertices and a scan of the face
//! cycles, plus work in proportion to what it changes, not a copy of the polytope.
//! Live vertices keep their relative order and new ones come last, as do the faces:
//! the numbering made dense at the end ([`Poly::live_index`]) is the one a copy at every
//! cut would give.

use crate::polyhedron::Polyhedron;
use nalgebra::Vector3;

/// A face of the work polytope: its cycle `idx[start..start + len]` (`len` 0 once
/// the face is cut away, until the cut ends and drops it) and its plane: face `plane` of A, or face `plane - na` of B
/// for `plane >= na` (`na` the face count of A). Each plane bounds at most one face.
#[derive(Clone, Copy)]
pub(crate) struct FaceRec {
    pub start: u32,
    pub len: u32,
    pub plane: u32,
}

/// No vertex or plane of B.
pub(crate) const NONE: u32 = u32::MAX;

/// A vertex of the work polytope, with the planes of B it lies on as known from how it
/// was made (not from its coordinates): `bv` a vertex of B (on every face of B around
/// it), else up to three planes of B in `bp` (three only for a point that is not a
/// vertex of B: outside B, to be cut off by a later plane).
#[derive(Clone, Copy)]
pub(crate) struct Vert {
    pub p: Vector3<f64>,
    pub bv: u32,
    pub bp: [u32; 3],
}

/// The work polytope: every vertex ever made (`live` lists those still in use, in
/// increasing order), the face cycles (old ones left unused in `idx`), the faces, and
/// the face count of A (see [`FaceRec`]).
#[derive(Default)]
pub(crate) struct Poly {
    pub verts: Vec<Vert>,
    pub live: Vec<u32>,
    pub idx: Vec<u32>,
    pub faces: Vec<FaceRec>,
    pub na: u32,
}

impl Poly {
    /// Loads A (allocations kept from the previous use).
    pub fn load(&mut self, a: &Polyhedron) {
        self.verts.clear();
        self.live.clear();
        self.idx.clear();
        self.faces.clear();
        self.verts.extend(a.vertices().iter().map(|p| Vert {
            p: p.coords,
            bv: NONE,
            bp: [NONE; 3],
        }));
        self.live.extend(0..a.vertices().len() as u32);
        self.na = a.faces().len() as u32;
        for (i, f) in a.faces().iter().enumerate() {
            let start = self.idx.len() as u32;
            self.idx.extend(f.vertices.iter().map(|&v| v as u32));
            self.faces.push(FaceRec {
                start,
                len: f.vertices.len() as u32,
                plane: i as u32,
            });
        }
    }

    /// Bounding box (min, max) of the live vertices.
    pub fn aabb(&self) -> (Vector3<f64>, Vector3<f64>) {
        let p = self.verts[self.live[0] as usize].p;
        let (mut lo, mut hi) = ([p.x, p.y, p.z], [p.x, p.y, p.z]);
        for &v in &self.live {
            let p = &self.verts[v as usize].p;
            for i in 0..3 {
                if p[i] < lo[i] {
                    lo[i] = p[i];
                }
                if p[i] > hi[i] {
                    hi[i] = p[i];
                }
            }
        }
        (lo.into(), hi.into())
    }

    /// Fills `map` with the dense index of each live vertex (its rank in `live`).
    pub fn live_index(&self, map: &mut Vec<u32>) {
        map.clear();
        map.resize(self.verts.len(), NONE);
        for (i, &v) in self.live.iter().enumerate() {
            map[v as usize] = i as u32;
        }
    }
}

/// Side of a vertex, as bit flags (so that a face's sides combine by `|`): strictly
/// inside, on the plane (a vertex of B on the face, or a new vertex), outside.
const IN: u8 = 1;
const ON: u8 = 2;
const OUT: u8 = 4;

/// Outcome of a cut (or of the box test that spares it).
pub(crate) enum Step {
    /// Every vertex inside: the polytope is unchanged.
    Kept,
    /// The polytope was cut.
    Cut,
    /// Every vertex outside: A ∩ B is empty.
    Empty,
    /// Not decided here (a vertex near the plane, an unexpected topology); the
    /// polytope may be left half cut.
    Ambiguous,
}

/// Scratch of a cut, per vertex ever made and per crossed edge.
#[derive(Default)]
pub(crate) struct Cutter {
    side: Vec<u8>,
    s: Vec<f64>,
    /// Crossed edges (lower, higher vertex index) and their new vertex.
    cuts: Vec<(u32, u32, u32)>,
    /// Cap edges (from, to).
    cap: Vec<(u32, u32)>,
    /// The new cycle of a crossed face.
    fresh: Vec<u32>,
    /// Per vertex: the end of its cap edge (`NONE` outside a cut).
    cap_next: Vec<u32>,
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

impl Cutter {
    /// Cuts `poly` by the plane of B's face `k`; vertices within `tol` of the plane
    /// make the cut ambiguous.
    pub fn cut(&mut self, poly: &mut Poly, b: &Polyhedron, k: usize, tol: f64) -> Step {
        let Cutter {
            side,
            s,
            cuts,
            cap,
            fresh,
            cap_next,
        } = self;
        let face = &b.faces()[k];
        let (n, d) = (face.normal, face.offset);
        let old = poly.verts.len();
        side.resize(old, OUT);
        s.resize(old, 0.0);
        let (mut ins, mut outs) = (0usize, 0usize);
        for &v in &poly.live {
            let vert = &poly.verts[v as usize];
            let sv = n.dot(&vert.p) - d;
            let c = if vert.bv != NONE && face.vertices.contains(&(vert.bv as usize)) {
                ON
            } else if sv > tol {
                outs += 1;
                OUT
            } else if sv < -tol {
                ins += 1;
                IN
            } else {
                return Step::Ambiguous; // near the plane, or NaN
            };
            side[v as usize] = c;
            s[v as usize] = sv;
        }
        if outs == 0 {
            return Step::Kept;
        }
        if ins == 0 {
            // Nothing strictly inside: empty, or at most a face of zero volume.
            return if outs == poly.live.len() {
                Step::Empty
            } else {
                Step::Ambiguous
            };
        }
        // New vertices are on the plane (marked so; no old cycle holds them).
        cuts.clear();
        cap.clear();
        let mut dropped = false;
        for fi in 0..poly.faces.len() {
            let (start, len) = (poly.faces[fi].start as usize, poly.faces[fi].len as usize);
            let cyc = &poly.idx[start..start + len];
            let all = cyc.iter().fold(0, |m, &v| m | side[v as usize]);
            let cyc = if all & OUT == 0 {
                if all & ON == 0 || cyc.iter().filter(|&&v| side[v as usize] == ON).count() < 2 {
                    continue; // not crossed, no edge on the plane: unchanged
                }
                cyc
            } else if all & IN == 0 {
                // Outside, or touching the plane at an edge or a vertex.
                poly.faces[fi].len = 0;
                dropped = true;
                continue;
            } else {
                fresh.clear();
                let mut sv = side[cyc[0] as usize];
                for (&v, &w) in cyc.iter().zip(cyc[1..].iter().chain(&cyc[..1])) {
                    let sw = side[w as usize];
                    if sv != OUT {
                        fresh.push(v);
                    }
                    if sv | sw == IN | OUT {
                        let (lo, hi) = (v.min(w), v.max(w));
                        let c = match cuts.iter().find(|e| e.0 == lo && e.1 == hi) {
                            Some(e) => e.2,
                            None => {
                                let (pl, ph) = (&poly.verts[lo as usize], &poly.verts[hi as usize]);
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
                                let c = poly.verts.len() as u32;
                                poly.verts.push(vert);
                                side.push(ON);
                                cuts.push((lo, hi, c));
                                c
                            }
                        };
                        fresh.push(c);
                    }
                    sv = sw;
                }
                &fresh[..]
            };
            // Edges of the kept polygon on the plane border the cap, which runs back.
            if cyc.len() < 3 || cyc.iter().all(|&v| side[v as usize] == ON) {
                return Step::Ambiguous;
            }
            let mut x = cyc[cyc.len() - 1];
            for &y in cyc {
                if side[x as usize] == ON && side[y as usize] == ON {
                    cap.push((y, x));
                }
                x = y;
            }
            if all & OUT != 0 {
                poly.faces[fi] = FaceRec {
                    start: poly.idx.len() as u32,
                    len: fresh.len() as u32,
                    plane: poly.faces[fi].plane,
                };
                poly.idx.extend_from_slice(fresh);
            }
        }
        // The cap: one cycle through every cap edge (each vertex the start of one).
        if cap.len() < 3 {
            return Step::Ambiguous;
        }
        cap_next.resize(poly.verts.len(), NONE);
        let mut closed = true;
        for &(from, to) in cap.iter() {
            closed &= cap_next[from as usize] == NONE;
            cap_next[from as usize] = to;
        }
        let start = poly.idx.len();
        let first = cap[0].0;
        let mut at = first;
        while closed {
            let to = cap_next[at as usize];
            if to == NONE || poly.idx.len() - start == cap.len() {
                closed = false;
                break;
            }
            poly.idx.push(at);
            at = to;
            if at == first {
                break;
            }
        }
        for &(from, _) in cap.iter() {
            cap_next[from as usize] = NONE;
        }
        if !closed || poly.idx.len() - start != cap.len() {
            return Step::Ambiguous;
        }
        poly.faces.push(FaceRec {
            start: start as u32,
            len: cap.len() as u32,
            plane: poly.na + k as u32,
        });
        // The faces cut away leave the list (so later cuts do not scan them), and the
        // live vertices are those kept, then the new ones.
        if dropped {
            poly.faces.retain(|f| f.len > 0);
        }
        poly.live.retain(|&v| side[v as usize] != OUT);
        poly.live.extend(old as u32..poly.verts.len() as u32);
        Step::Cut
    }
}
