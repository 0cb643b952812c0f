//! The contact of two convex bodies from their support functions: the **common normal**.
//!
//! For bodies `A` and `B` with centres `ca`, `cb` and support functions `h_A`, `h_B`
//! (about their centres), the function on unit directions
//!
//! `F(n) = h_A(n) + h_B(-n) - (cb - ca) . n`
//!
//! is the support function of the Minkowski difference `A - B` seen from the origin. Its
//! minimum over `n` is the signed overlap: the depth of penetration (the shortest
//! translation that separates the bodies) when they overlap, minus the distance between
//! them when they are apart. At the minimum the two support points `pa = ca + s_A(n)`
//! and `pb = cb + s_B(-n)` lie on one line along `n`: `n` is the common normal, from `A`
//! towards `B`, and `F = n . (pa - pb)`. This is the same contact as the "common normal"
//! formulations of superquadric DEM (Podlozhnyuk et al. 2017 solve for it by a midway
//! point; here it is found on the sphere of directions).
//!
//! `F` is minimised by Newton's method on the sphere. Its gradient is `pa - pb - (cb -
//! ca)` projected on the tangent plane; its Hessian is the sum of the two support maps'
//! Jacobians (their principal radii of curvature at the support points, exact: see
//! [`crate::real`]) less `F` times the identity, its eigenvalues taken by magnitude.
//! Steps are limited and backed off until `F` decreases; a zig-zag across a narrow
//! valley (a blocky body's rim on a flat side) is carried along the valley's floor by
//! the parallel-tangents acceleration (see `across`).
//!
//! `F` has one minimum near any start for smooth strictly convex bodies touching lightly,
//! but elongated bodies give it others (a far face). So a contact starts from the best of
//! several directions (centre to centre and each body's axes) and then follows its own
//! normal from step to step (the functors keep it as contact state).

use dem_api::nalgebra::{Matrix2, Vector2, Vector3};

type V = Vector3<f64>;

/// A convex body posed in the global frame: its support map about its centre.
pub trait Convex {
    /// The support point along the unit global direction `n`, relative to the centre, m.
    fn support(&self, n: &V) -> V;
    /// Directions worth trying as a first normal (the body's axes), unit, global.
    fn axes(&self) -> [V; 3];
    /// A length of the body's size (its bounding radius), m.
    fn size(&self) -> f64;
    /// An upper bound of the support function along the unit global direction `n`
    /// (`n . support(n)`), cheap to compute, m: that of a box or a ball around the body.
    /// Default: the bounding radius.
    fn bound(&self, n: &V) -> f64 {
        let _ = n;
        self.size()
    }
    /// The support map's Jacobian at the unit direction `n` in the tangent plane
    /// `(t.0, t.1)`: `J[i][j] = t_i . ds/dt_j`, m (the principal radii of curvature at
    /// the support point are its eigenvalues).
    fn tangent_jacobian(&self, n: &V, t: &(V, V)) -> Matrix2<f64>;
}

/// The common normal of two bodies.
#[derive(Clone, Copy, Debug)]
pub struct Contact {
    /// Unit normal from A towards B.
    pub normal: V,
    /// Overlap `F`, m: positive when the bodies overlap, minus their distance when apart.
    pub overlap: f64,
    /// The support point of A along the normal, global, m.
    pub on_a: V,
    /// The support point of B against the normal, global, m.
    pub on_b: V,
    /// The radii A and B show a contact law at their support points ([`contact_radius`]:
    /// the geometric means of their principal radii of curvature, at most their bounding
    /// radii), m.
    pub radii: [f64; 2],
}

/// An orthonormal pair spanning the plane normal to unit `n`.
fn tangents(n: &V) -> (V, V) {
    let helper = if n.x.abs() < 0.6 { V::x() } else { V::y() };
    let t1 = n.cross(&helper).normalize();
    (t1, n.cross(&t1))
}

/// What one direction gives: `F`, the two support offsets.
struct Probe {
    n: V,
    f: f64,
    sa: V,
    sb: V,
}

fn probe(a: &dyn Convex, b: &dyn Convex, d: &V, n: V) -> Probe {
    let sa = a.support(&n);
    let sb = b.support(&-n);
    let f = n.dot(&(sa - sb - d));
    Probe { n, f, sa, sb }
}

/// The radius `body` shows a contact law at its support point along the unit direction
/// `n`, m: see [`contact_radius`].
pub fn curvature_radius(body: &dyn Convex, n: &V) -> f64 {
    contact_radius(body, &body.tangent_jacobian(n, &tangents(n)))
}

/// The radius `body` shows a contact law where its support map's Jacobian is `j`, m: the
/// geometric mean of the principal radii of curvature there, at most the body's bounding
/// radius.
///
/// The middle of a blocky face is flat: its radii of curvature are unbounded (a contact
/// of (6, 6) bodies of 2 mm pushed with 12.1 N at 8.1 um overlap, the stiffness `2 E r`
/// of radii near 1.5 m). A law whose stiffness grows with
/// the radius (linear `2 E r`, Hertz) would then be far stiffer than the solver's
/// critical step reckons, which takes each body's contacts at its bounding radius: a
/// (6, 6) heap gained energy from such contacts (a contact of 8 um overlap pushing with
/// 12 N). A face cannot bear on more than the body's extent, and the bound keeps the
/// contacts within the step the solver chose. Spheres and prolate spheroids are not
/// affected; a triaxial or oblate ellipsoid is at its flattest pole (`b c / a` there, for
/// the shortest half-axis `a`, is above the longest half-axis).
pub fn contact_radius(body: &dyn Convex, j: &Matrix2<f64>) -> f64 {
    j.determinant().max(0.0).sqrt().min(body.size())
}

/// The round-off of `F`, relative to the bodies' size (`F` is a difference of terms of
/// that size).
const ROUND_OFF: f64 = 1e-15;

/// Largest Newton iterations before giving up.
const MAX_ITERATIONS: usize = 5000;

/// Iterations from a kept normal before starting afresh (see [`common_normal`]).
const WARM_ITERATIONS: usize = 200;

/// Finds the common normal of `a` (centre `ca`) and `b` (centre `cb`), starting from
/// `start` (a unit vector) or, when it is `None`, from the best of the centre-to-centre
/// direction and the bodies' axes; `Ok(None)` as soon as a direction shows the gap to
/// be above `distance` (m): `F` there bounds the overlap from above, so a separating
/// direction is proof enough, and the minimum need not be sought. `Err` when Newton's
/// method does not converge.
///
/// A kept normal that has not converged within `WARM_ITERATIONS` (200) is dropped and the
/// search starts afresh: near the rim of a blocky body's flat face the support point
/// jumps from one side of the rim to the other as the normal turns, and an iteration that
/// entered that valley from the side zig-zags across it, `F` falling by parts in 1e7
/// per iteration (measured: a pair of near-cylinders (5, 2) still 2e-2 of the size from
/// the minimum after 5000 iterations, which a fresh start reached in 4).
pub fn common_normal(
    a: &dyn Convex,
    ca: &V,
    b: &dyn Convex,
    cb: &V,
    start: Option<V>,
    distance: f64,
) -> Result<Option<Contact>, String> {
    let d = cb - ca;
    let size = a.size() + b.size();
    let cold = || {
        let mut tries = Vec::with_capacity(13);
        if d.norm() > 1e-9 * size {
            tries.push(d.normalize());
        }
        for axis in a.axes().into_iter().chain(b.axes()) {
            tries.extend([axis, -axis]);
        }
        // The first direction that proves the pair apart ends the search.
        let mut best: Option<Probe> = None;
        for n in tries {
            let p = probe(a, b, &d, n);
            if p.f < -distance {
                return p;
            }
            if best.as_ref().is_none_or(|q| p.f < q.f) {
                best = Some(p);
            }
        }
        best.expect("at least the axes")
    };
    // A pair without a kept normal is first tested with the bodies' cheap bounds of their
    // support functions (see [`Convex::bound`]): a direction along which the bounds are
    // apart by more than `distance` proves the bodies apart without a support point.
    // (Most pairs the broad phase offers are apart: in a heap of (3, 3) bodies they were
    // 60 % of the calls, at 7 probes each.)
    if start.is_none() {
        let centre = (d.norm() > 1e-9 * size).then(|| d.normalize());
        let axes = a.axes().into_iter().chain(b.axes());
        let apart = centre
            .into_iter()
            .chain(axes)
            .any(|n| a.bound(&n) + b.bound(&-n) - d.dot(&n) < -distance);
        if apart {
            return Ok(None);
        }
    }
    let bodies = Bodies { a, ca, b, cb };
    let found = match start {
        Some(n) => match descend(&bodies, probe(a, b, &d, n), distance, WARM_ITERATIONS) {
            Err(_) => descend(&bodies, cold(), distance, MAX_ITERATIONS),
            found => found,
        },
        None => descend(&bodies, cold(), distance, MAX_ITERATIONS),
    };
    found.map_err(|p| {
        format!(
            "the common normal did not converge in {MAX_ITERATIONS} iterations (last normal \
             {:?}, overlap {:e} m)",
            p.n.as_slice(),
            p.f
        )
    })
}

/// The two bodies of a search and their centres.
struct Bodies<'a> {
    a: &'a dyn Convex,
    ca: &'a V,
    b: &'a dyn Convex,
    cb: &'a V,
}

/// Newton's method on the sphere from the probe `p`, for at most `iterations`; the
/// last probe when it has not converged.
fn descend(
    bodies: &Bodies<'_>,
    mut p: Probe,
    distance: f64,
    iterations: usize,
) -> Result<Option<Contact>, Probe> {
    let Bodies { a, ca, b, cb } = *bodies;
    let apart = |p: &Probe| p.f < -distance;
    let d = cb - ca;
    let size = a.size() + b.size();
    // Converged when the support points face each other to round-off, or when the
    // normal no longer moves: near the flat middle of a blocky face the support point
    // slides fast as the normal turns (`F` grows as a power below 2 of the angle), so the
    // mismatch shrinks far more slowly than the angle does.
    let tolerance = 1e-12 * size;
    // `F` a few iterations back: when it has not fallen by 1e-10 of the size plus 1e-6
    // of itself over them, the minimum is reached (along a blocky body's near-kink, or
    // between two nearly flat faces, the normal then creeps by steps that change `F` by
    // parts in 1e8 each: a (3, 3) heap met one still creeping after 5000 iterations).
    let mut history = [f64::INFINITY; 4];
    // The normal of the iteration before the current one (see [`across`]).
    let mut two_back: Option<V> = None;
    for k in 0..iterations {
        if apart(&p) {
            return Ok(None);
        }
        let t = tangents(&p.n);
        let g = p.sa - p.sb - d;
        let gt = Vector2::new(t.0.dot(&g), t.1.dot(&g));
        let (ja, jb) = (a.tangent_jacobian(&p.n, &t), b.tangent_jacobian(&-p.n, &t));
        // The contact at probe `q`, with the radii of curvature at its own normal (the
        // Jacobians `at` it when known: those of this iteration's probe).
        let done = |q: &Probe, at: Option<(Matrix2<f64>, Matrix2<f64>)>| {
            Ok::<_, Probe>((!apart(q)).then(|| {
                let (ja, jb) = at.unwrap_or_else(|| {
                    let tq = tangents(&q.n);
                    (
                        a.tangent_jacobian(&q.n, &tq),
                        b.tangent_jacobian(&-q.n, &tq),
                    )
                });
                Contact {
                    normal: q.n,
                    overlap: q.f,
                    on_a: ca + q.sa,
                    on_b: cb + q.sb,
                    radii: [contact_radius(a, &ja), contact_radius(b, &jb)],
                }
            }))
        };
        if gt.norm() <= tolerance {
            return done(&p, Some((ja, jb)));
        }
        // Modified Newton: the Hessian's eigenvalues taken by magnitude, at least a small
        // fraction of the bodies' scale, so that a step is a descent step and runs along
        // a narrow valley (a blocky body's near-kink) instead of across it.
        let h = ja + jb - Matrix2::identity() * p.f;
        let eig = h.symmetric_eigen();
        let floor = 1e-6 * size;
        let inverse = eig.eigenvectors
            * Matrix2::from_diagonal(&eig.eigenvalues.map(|l| 1.0 / l.abs().max(floor)))
            * eig.eigenvectors.transpose();
        let newton = -(inverse * gt);
        // Backtracking along Newton's step until F decreases; where that step is no
        // descent (the support map's derivative is singular at the flat middle of a
        // blocky face, so the Hessian there is garbage), along the steepest descent.
        // Neither decreasing F down to 1e-13 rad means the normal is a minimum to
        // round-off.
        let steepest = -gt / size;
        let mut next = None;
        for first in [newton, steepest] {
            let mut step = first;
            if !step.iter().all(|x| x.is_finite()) {
                continue;
            }
            let cap = 0.3;
            if step.norm() > cap {
                step *= cap / step.norm();
            }
            // Halved until F decreases, while the step is above 1e-13 rad and the change
            // it promises (first order, `gt . step`) is above F's round-off: a smaller
            // change cannot be told from round-off. (Near the minimum these halvings were
            // most of a resting contact's probes: about 10 per contact and step in a
            // heap of (3, 3) bodies.)
            while step.norm() > 1e-13 && gt.dot(&step).abs() > ROUND_OFF * size {
                let n = (p.n + t.0 * step.x + t.1 * step.y).normalize();
                let q = probe(a, b, &d, n);
                if q.f < p.f {
                    next = Some((q, step.norm()));
                    break;
                }
                step *= 0.5;
            }
            if next.is_some() {
                break;
            }
        }
        let back = history[k % 4];
        history[k % 4] = p.f;
        // Stopping on a stalled `F` before the support points face each other is allowed
        // only once they nearly do (to 1e-2 of the size). Near the flat middle of a
        // blocky face the support point runs far for a tiny turn of the normal, so a
        // mismatch of that order remains when `F`, the overlap, is exact to round-off
        // (two flat faces together: 1.6e-3 of the size, measured); but a normal stopped
        // far from the minimum reports too deep an overlap, a force from nowhere
        // (measured: a rounded cube on a bed of spheres gained 18 % of its energy change
        // so; with this rule its ledger closes to 1e-4, second order in the step).
        let close = gt.norm() <= 1e-2 * size;
        match next {
            Some((q, moved))
                if close && (moved <= 1e-12 || back - q.f < 1e-10 * size + 1e-6 * q.f.abs()) =>
            {
                return done(&q, None)
            }
            Some((q, _)) => {
                let before = two_back.replace(p.n);
                p = match before {
                    Some(n0) => across(a, b, &d, n0, p.n, q),
                    None => q,
                };
            }
            None => return done(&p, Some((ja, jb))),
        }
    }
    Err(p)
}

/// The parallel-tangents acceleration (PARTAN) of a zig-zag: when the step from `n1` to
/// `q` turns back on the step from `n0` to `n1` (an angle over 120 degrees), the
/// iteration is bouncing between the walls of a narrow valley (a blocky body's rim
/// pressed on the other's flat side: the support point jumps from one wall to the other)
/// and the net progress of the two steps, `q - n0`, runs along its floor. The normal is
/// carried along that direction, by steps doubling while `F` falls (up to 0.3 rad);
/// else `q` as it is. (Measured: two near-cylinders (5, 2), a rim on a side, bounced
/// 5000 times at 1e-8 rad a step.)
fn across(a: &dyn Convex, b: &dyn Convex, d: &V, n0: V, n1: V, q: Probe) -> Probe {
    let (back, on) = (n1 - n0, q.n - n1);
    if back.dot(&on) >= -0.5 * back.norm() * on.norm() {
        return q;
    }
    let floor = q.n - n0;
    let mut best = q;
    let mut along = floor;
    while along.norm() <= 0.3 {
        let r = probe(a, b, d, (best.n + along).normalize());
        if r.f >= best.f {
            break;
        }
        best = r;
        along *= 2.0;
    }
    best
}

/// A ball of radius `r`, for sphere-superquadric contacts.
pub struct Ball(pub f64);

impl Convex for Ball {
    fn support(&self, n: &V) -> V {
        n * self.0
    }
    fn axes(&self) -> [V; 3] {
        [V::x(), V::y(), V::z()]
    }
    fn size(&self) -> f64 {
        self.0
    }
    fn bound(&self, _: &V) -> f64 {
        self.0
    }
    fn tangent_jacobian(&self, _: &V, _: &(V, V)) -> Matrix2<f64> {
        Matrix2::identity() * self.0
    }
}

impl Contact {
    /// The contact as a geometry functor reports it, or `None` when the gap is not below
    /// `distance` (m): normal from A to B, the point halfway between the support points.
    pub fn raw(&self, distance: f64) -> Option<dem_api::RawGeom> {
        let gap = -self.overlap;
        (gap < distance).then(|| dem_api::RawGeom {
            touching: 1,
            point: ((self.on_a + self.on_b) * 0.5).into(),
            normal: self.normal.into(),
            gap,
            radius1: self.radii[0],
            radius2: self.radii[1],
            area: 0.0,
            weight: 1.0,
        })
    }
}

/// Slots of contact state the functors keep: the last common normal (zero: none yet).
pub const STATE_LEN: usize = 3;

/// The normal kept in `state`, if any.
pub fn kept(state: &[f64]) -> Option<V> {
    let n = V::new(state[0], state[1], state[2]);
    (n.norm_squared() > 0.5).then(|| n.normalize())
}

/// A functor's result for a pair seen without a kept normal (the SDK's `geom` and
/// `try_term`, which have no state): `try_term_kept` with the state at zero.
pub fn unkept<G: dem_api::sdk::Geometry>(
    g: &G,
    b1: &dem_api::BodyView<'_>,
    b2: &dem_api::BodyView<'_>,
    distance: f64,
) -> Result<Option<dem_api::RawGeom>, String> {
    g.try_term_kept(b1, b2, distance, 0, &mut [], &mut [0.0; STATE_LEN])
}

/// Keeps `n` in `state`.
pub fn keep(state: &mut [f64], n: &V) {
    state[..3].copy_from_slice(n.as_slice());
}
