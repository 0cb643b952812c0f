//! The L6Geom update step (the formulas of the module docs), written once over lanes: for
//! one contact with `f64` ([`super::L6State::update`]) and for four contacts at a time with
//! [`F64x4`] ([`update_block`], the solver's pass over a chunk of contacts). Both run the
//! same IEEE operations in the same order, so they agree bitwise; the branches of the
//! scalar formulas (the quaternion's largest term, the hemisphere of the half-way
//! rotation, the branch vector of a wall) are selections per lane.

use super::options::L6Options;
use crate::model::blocks::{self as hot, FRAME, PHI, PHI_DOT, POINT, U, U_DOT};
use crate::model::particles::Particles;
use dem_api::lane::{F64x4, Lane};
use dem_api::sdk::prefetch;
use dem_api::RawGeom;

/// A 3-vector of lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct V3<L> {
    pub x: L,
    pub y: L,
    pub z: L,
}

impl<L: Lane> V3<L> {
    #[inline(always)]
    pub(crate) fn new(x: L, y: L, z: L) -> Self {
        V3 { x, y, z }
    }
    #[inline(always)]
    pub(crate) fn add(self, o: Self) -> Self {
        V3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
    #[inline(always)]
    pub(crate) fn sub(self, o: Self) -> Self {
        V3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
    #[inline(always)]
    pub(crate) fn scale(self, s: L) -> Self {
        V3::new(self.x * s, self.y * s, self.z * s)
    }
    #[inline(always)]
    pub(crate) fn dot(self, o: Self) -> L {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    #[inline(always)]
    pub(crate) fn cross(self, o: Self) -> Self {
        V3::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }
    #[inline(always)]
    pub(crate) fn norm(self) -> L {
        self.dot(self).sqrt()
    }
    #[inline(always)]
    pub(crate) fn select(m: L::Mask, a: Self, b: Self) -> Self {
        V3::new(
            L::select(m, a.x, b.x),
            L::select(m, a.y, b.y),
            L::select(m, a.z, b.z),
        )
    }
}

/// A rotation matrix by rows.
pub(crate) type Rows<L> = [V3<L>; 3];

#[inline(always)]
fn mat_vec<L: Lane>(m: &Rows<L>, v: V3<L>) -> V3<L> {
    V3::new(m[0].dot(v), m[1].dot(v), m[2].dot(v))
}

/// A quaternion `[w, i, j, k]`.
pub(crate) type Quat<L> = [L; 4];

/// What the update reads of a contact's previous state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prev<L> {
    /// Rows of the frame.
    pub frame: Rows<L>,
    /// The frame's quaternion.
    pub quat: Quat<L>,
    pub point: V3<L>,
    pub u: V3<L>,
    pub phi: V3<L>,
}

/// What a geometry functor reports now.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Now<L> {
    pub normal: V3<L>,
    pub point: V3<L>,
    pub gap: L,
    pub radius: [L; 2],
    pub area: L,
}

/// One body: position at t, velocities at t - dt/2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kin<L> {
    pub pos: V3<L>,
    pub vel: V3<L>,
    pub angvel: V3<L>,
}

/// The contact's state after the update.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Next<L> {
    pub frame: Rows<L>,
    pub quat: Quat<L>,
    pub point: V3<L>,
    pub u: V3<L>,
    pub phi: V3<L>,
    pub u_dot: V3<L>,
    pub phi_dot: V3<L>,
    pub lens: [L; 2],
    pub area: L,
}

/// Branch vector of body `i` (`sign` +1 for body 1, -1 for body 2) from its position
/// `pos` to the contact point `point`: `sign r n` with `no_ratch` and a finite radius `r`,
/// else `point - pos`.
#[inline(always)]
fn branch<L: Lane>(point: V3<L>, pos: V3<L>, r: L, sign: f64, n: V3<L>, opt: &L6Options) -> V3<L> {
    let true_branch = point.sub(pos);
    if !opt.no_ratch {
        return true_branch;
    }
    V3::select(r.finite(), n.scale(L::splat(sign) * r), true_branch)
}

/// Relative velocity of body 2 w.r.t. body 1 at the contact point `point` with normal `n`,
/// the bodies at `pos1`, `pos2`: `(v2 + w2 x b2) - (v1 + w1 x b1)` with the branch
/// vectors of [`branch`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn velocity_at<L: Lane>(
    point: V3<L>,
    n: V3<L>,
    radius: [L; 2],
    b1: &Kin<L>,
    pos1: V3<L>,
    b2: &Kin<L>,
    pos2: V3<L>,
    opt: &L6Options,
) -> V3<L> {
    let br1 = branch(point, pos1, radius[0], 1.0, n, opt);
    let br2 = branch(point, pos2, radius[1], -1.0, n, opt);
    b2.vel
        .add(b2.angvel.cross(br2))
        .sub(b1.vel.add(b1.angvel.cross(br1)))
}

/// Relative velocity at the contact of a new contact: the geometry at `t` (the only one
/// known), the velocities at `t - dt/2`; the solver applies the contact's first force with
/// the same branch vectors.
#[inline(always)]
pub(crate) fn relative_velocity<L: Lane>(
    now: &Now<L>,
    b1: &Kin<L>,
    b2: &Kin<L>,
    n: V3<L>,
    opt: &L6Options,
) -> V3<L> {
    velocity_at(now.point, n, now.radius, b1, b1.pos, b2, b2.pos, opt)
}

/// Relative velocity over the step `[t - dt, t]` of an existing contact: the velocities
/// are at `t - dt/2`, and so is the geometry the branch vectors are taken from (contact
/// point `(c_prev + c)/2`, body positions `x - v dt/2`, the mid-step normal `n_mid`). The
/// force of the step before acted through the branch vectors at `t - dt`, the force of
/// this step through those at `t`: the mid-step ones make the work the law books from
/// `u_dot` equal to the work the two forces do on the bodies, to second order in `dt`
/// (with the branch vectors at `t` the difference is first order; see the module docs).
#[inline(always)]
fn mid_step_relative_velocity<L: Lane>(
    prev: &Prev<L>,
    now: &Now<L>,
    b1: &Kin<L>,
    b2: &Kin<L>,
    n_mid: V3<L>,
    dt: f64,
    opt: &L6Options,
) -> V3<L> {
    let c = prev.point.add(now.point).scale(L::splat(0.5));
    let back = L::splat(0.5 * dt);
    let mid = |b: &Kin<L>| b.pos.sub(b.vel.scale(back));
    velocity_at(c, n_mid, now.radius, b1, mid(b1), b2, mid(b2), opt)
}

/// Re-orthonormalises a frame keeping row 0 (the normal) exact.
#[inline(always)]
fn orthonormalize<L: Lane>(m: &Rows<L>) -> Rows<L> {
    let one = L::splat(1.0);
    let x = m[0].scale(one / m[0].norm());
    let y = m[1].sub(x.scale(x.dot(m[1])));
    let y = y.scale(one / y.norm());
    [x, y, x.cross(y)]
}

/// The unit quaternion `[w, i, j, k]` of a rotation matrix (Shepperd's choice of the
/// largest diagonal term, so that the square root is of a number >= 1/4 and one reciprocal
/// serves all components).
#[inline(always)]
pub(crate) fn quaternion<L: Lane>(m: &Rows<L>) -> Quat<L> {
    let (m00, m11, m22) = (m[0].x, m[1].y, m[2].z);
    let (m01, m02, m10, m12, m20, m21) = (m[0].y, m[0].z, m[1].x, m[1].z, m[2].x, m[2].y);
    let one = L::splat(1.0);
    let trace = m00 + m11 + m22;
    // The case of each lane: a (trace), b (m00 largest), c (m11), else d (m22).
    let a = trace.gt(L::splat(0.0));
    let b = L::and(m00.gt(m11), m00.gt(m22));
    let c = m11.gt(m22);
    let pick =
        |qa: L, qb: L, qc: L, qd: L| L::select(a, qa, L::select(b, qb, L::select(c, qc, qd)));
    let s = L::splat(2.0)
        * pick(
            trace + one,
            one + m00 - m11 - m22,
            one + m11 - m00 - m22,
            one + m22 - m00 - m11,
        )
        .sqrt();
    let r = one / s;
    let quarter = L::splat(0.25) * s;
    let (d21_12, d02_20, d10_01) = ((m21 - m12) * r, (m02 - m20) * r, (m10 - m01) * r);
    let (s01_10, s02_20, s12_21) = ((m01 + m10) * r, (m02 + m20) * r, (m12 + m21) * r);
    [
        pick(quarter, d21_12, d02_20, d10_01),
        pick(d21_12, quarter, s01_10, s02_20),
        pick(d02_20, s01_10, quarter, s12_21),
        pick(d10_01, s02_20, s12_21, quarter),
    ]
}

/// The rotation half-way between two unit quaternions `[w, i, j, k]`, as rows: on the same
/// hemisphere this is exactly `normalize(qa + qb)` (no acos near 1, no round-off growth for
/// the tiny per-step rotations of a contact frame).
#[inline(always)]
pub(crate) fn slerp_half<L: Lane>(qa: &Quat<L>, qb: &Quat<L>) -> Rows<L> {
    let [aw, ai, aj, ak] = *qa;
    let [bw, bi, bj, bk] = *qb;
    // Sums in nalgebra's order over its storage `[i, j, k, w]`.
    let dot = (ai * bi + ak * bk) + (aj * bj + aw * bw);
    let flip = dot.lt(L::splat(0.0));
    let side = |x: L| L::select(flip, -x, x);
    let (w, i, j, k) = (aw + side(bw), ai + side(bi), aj + side(bj), ak + side(bk));
    let norm = ((i * i + k * k) + (j * j + w * w)).sqrt();
    let inv = L::splat(1.0) / norm;
    let (w, i, j, k) = (w * inv, i * inv, j * inv, k * inv);
    let two = L::splat(2.0);
    let (ww, ii, jj, kk) = (w * w, i * i, j * j, k * k);
    let (ij, wk, wj) = (i * j * two, w * k * two, w * j * two);
    let (ik, jk, wi) = (i * k * two, j * k * two, w * i * two);
    [
        V3::new(ww + ii - jj - kk, ij - wk, wj + ik),
        V3::new(wk + ij, ww - ii + jj - kk, jk - wi),
        V3::new(ik - wj, wi + jk, ww - ii - jj + kk),
    ]
}

/// Advances one contact (or one lane of contacts) by a step `dt` to the functor's current
/// geometry.
#[inline(always)]
pub(crate) fn step<L: Lane>(
    prev: &Prev<L>,
    now: &Now<L>,
    b1: &Kin<L>,
    b2: &Kin<L>,
    dt: f64,
    opt: &L6Options,
) -> Next<L> {
    let (half, one, dtl) = (L::splat(0.5), L::splat(1.0), L::splat(dt));
    let n_prev = prev.frame[0];
    let n = now.normal;
    let o_r = n_prev.cross(n);
    let mut n_mid = if opt.no_mid_normal {
        n_prev
    } else {
        n_prev.add(n).scale(half)
    };
    if !opt.no_renorm {
        n_mid = n_mid.scale(one / n_mid.norm());
    }
    let o_t = n_mid.scale(n_mid.dot(b1.angvel.add(b2.angvel).scale(half)) * dtl);
    let v_r = mid_step_relative_velocity(prev, now, b1, b2, n_mid, dt, opt);
    let v_t = v_r.sub(n_mid.scale(n_mid.dot(v_r)));

    // Bending and twist together: v - v x o_r - v x o_t = v - v x (o_r + o_t).
    let o = o_r.add(o_t);
    let rot = |v: V3<L>| v.sub(v.cross(o));
    let mut frame = [n, rot(prev.frame[1]), rot(prev.frame[2])];
    if !opt.no_renorm {
        frame = orthonormalize(&frame);
    }
    let quat = quaternion(&frame);
    let mid = if opt.no_mid_frame {
        prev.frame
    } else {
        slerp_half(&prev.quat, &quat)
    };

    let mut u_dot = mat_vec(&mid, v_t);
    u_dot.x = if opt.point_rate {
        // Velocities are at t - dt/2: so are the point and the positions used.
        let c = prev.point.add(now.point).scale(half);
        let back = L::splat(0.5 * dt);
        let at = |b: &Kin<L>| {
            b.vel
                .add(b.angvel.cross(c.sub(b.pos.sub(b.vel.scale(back)))))
        };
        n_mid.dot(at(b2).sub(at(b1)))
    } else {
        (now.gap - prev.u.x) / dtl
    };
    let u = V3::new(now.gap, prev.u.y + u_dot.y * dtl, prev.u.z + u_dot.z * dtl);
    let phi_dot = mat_vec(&mid, b2.angvel.sub(b1.angvel));
    Next {
        frame,
        quat,
        point: now.point,
        u,
        phi: prev.phi.add(phi_dot.scale(dtl)),
        u_dot,
        phi_dot,
        lens: now.radius,
        area: now.area,
    }
}

/// Field `f` of the contacts `k` of a hot block; `RUN` when they are consecutive (then
/// one vector load). A function, not a closure, so that it is inlined into each CPU
/// level's copy of the loop (a closure the compiler leaves out of line is compiled for
/// the baseline CPU and costs a call per field). `RUN` is a constant so that the loop over
/// consecutive contacts holds no address arithmetic of the other case.
#[inline(always)]
fn load<const RUN: bool>(block: &[f64], f: usize, k: &[usize; 4]) -> F64x4 {
    if RUN {
        F64x4::load(block, hot::index(f, k[0]))
    } else {
        F64x4([
            block[hot::index(f, k[0])],
            block[hot::index(f, k[1])],
            block[hot::index(f, k[2])],
            block[hot::index(f, k[3])],
        ])
    }
}

/// Fields `f`, `f + 1`, `f + 2` of the contacts `k` of a hot block (see [`load`]).
#[inline(always)]
fn load3<const RUN: bool>(block: &[f64], f: usize, k: &[usize; 4]) -> V3<F64x4> {
    V3::new(
        load::<RUN>(block, f, k),
        load::<RUN>(block, f + 1, k),
        load::<RUN>(block, f + 2, k),
    )
}

/// Writes `v` to fields `f`, `f + 1`, `f + 2` of the contacts `k` of a hot block.
#[inline(always)]
fn store3<const RUN: bool>(block: &mut [f64], f: usize, k: &[usize; 4], v: &V3<F64x4>) {
    store::<RUN>(block, f, k, v.x);
    store::<RUN>(block, f + 1, k, v.y);
    store::<RUN>(block, f + 2, k, v.z);
}

/// Writes `v` to field `f` of the contacts `k` of a hot block (see [`load`]).
#[inline(always)]
fn store<const RUN: bool>(block: &mut [f64], f: usize, k: &[usize; 4], v: F64x4) {
    if RUN {
        v.store(block, hot::index(f, k[0]));
    } else {
        block[hot::index(f, k[0])] = v.0[0];
        block[hot::index(f, k[1])] = v.0[1];
        block[hot::index(f, k[2])] = v.0[2];
        block[hot::index(f, k[3])] = v.0[3];
    }
}

/// Columns of what [`update_block`] gathers per contact before the update: the functor's
/// normal (3), point (3), gap, radii (2) and area; each body's position, velocity and
/// angular velocity (9 + 9).
pub(crate) const GATHERED: usize = 28;

/// Updates the L6Geom of contacts `ks` of a hot block (see [`crate::engines::contacts`]), four at a
/// time, each with the functor's geometry `raw[k]` and its bodies `bodies[k]` (body 1,
/// body 2). `cols` is room for [`GATHERED`] columns of [`hot::PITCH`] values. The frame's
/// quaternion is extracted from the frame. `state` is the chunk's state
/// block (the law reads it next), whose lines are asked for with the hot block's, a few
/// contacts ahead of the update: on a bed larger than the cache both are misses. (With
/// the forces' lines that local-to-global asks for, this took 8 to 10 % off the whole
/// run on the dense bed at N = 100,000, on one AMD Zen 3 core.)
///
/// Two loops: the first copies what each contact reads of its geometry and its bodies into
/// the columns `cols`, the second updates four contacts at a time from them with vector
/// loads. (Read lane by lane from the records, these values were held apart and put
/// together into vectors again at each use.)
#[allow(clippy::too_many_arguments)]
pub(crate) fn update_block(
    (block, state): (&mut [f64], &[f64]),
    ks: &[usize],
    raw: &[RawGeom],
    bodies: &[[u32; 2]],
    p: &Particles,
    dt: f64,
    opt: &L6Options,
    cols: &mut [f64],
) {
    if ks.is_empty() {
        return;
    }
    let cols = &mut cols[..GATHERED * hot::PITCH];
    gather(cols, ks, raw, bodies, p);
    update_groups((block, state), ks, cols, dt, opt);
}

/// The first loop of [`update_block`]; the last contact is repeated up to a multiple of
/// four.
fn gather(cols: &mut [f64], ks: &[usize], raw: &[RawGeom], bodies: &[[u32; 2]], p: &Particles) {
    let n = ks.len();
    // A chunk's contacts: every place `g` below is inside a column, and the particle
    // columns cut to one length take one test of an index.
    assert!(n <= hot::PITCH - 4, "at most a chunk of contacts");
    let cols = &mut cols[..GATHERED * hot::PITCH];
    let m = p.pos.len();
    let (pos, vel, angvel) = (&p.pos[..m], &p.vel[..m], &p.angvel[..m]);
    let last = ks[n - 1];
    let padded = ks.iter().chain(std::iter::repeat(&last));
    for (g, &k) in padded.take(n.next_multiple_of(4)).enumerate() {
        // The velocities of the bodies a few contacts ahead, asked for now: on a large bed
        // they are cache misses (the positions are in cache: the functor read them).
        if let Some(&ahead) = ks.get(g + AHEAD) {
            for b in bodies[ahead] {
                let b = (b as usize).min(m - 1);
                prefetch(&vel[b]);
                prefetch(&angvel[b]);
            }
        }
        let r = &raw[k];
        let [b1, b2] = bodies[k].map(|b| b as usize);
        let values = [
            r.normal.x, r.normal.y, r.normal.z, r.point.x, r.point.y, r.point.z, r.gap, r.radius1,
            r.radius2, r.area,
        ];
        for (f, v) in values.into_iter().enumerate() {
            cols[f * hot::PITCH + g] = v;
        }
        for (i, b) in [b1, b2].into_iter().enumerate() {
            for (j, v) in [&pos[b], &vel[b], &angvel[b]].into_iter().enumerate() {
                let f = 10 + 9 * i + 3 * j;
                cols[f * hot::PITCH + g] = v.x;
                cols[(f + 1) * hot::PITCH + g] = v.y;
                cols[(f + 2) * hot::PITCH + g] = v.z;
            }
        }
    }
}

/// How many contacts ahead [`gather`] asks for the bodies' velocities (on the dense bed at
/// N = 100,000, 16 took 3.7 % less time in all than none; 8 saved less).
const AHEAD: usize = 16;

// AVX-512 first: `multiversion` runs the first target the CPU has.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
fn update_groups(
    (block, state): (&mut [f64], &[f64]),
    ks: &[usize],
    cols: &[f64],
    dt: f64,
    opt: &L6Options,
) {
    let block = hot::whole(block);
    let cols = &cols[..GATHERED * hot::PITCH];
    let mut next_line = 0;
    for (group, first) in ks.chunks(4).zip((0..).step_by(4)) {
        // A short last group repeats its last contact: the same values, written twice.
        let last = group.len() - 1;
        let k = [
            group[0],
            group[1.min(last)],
            group[2.min(last)],
            group[last],
        ];
        // Four consecutive contacts (the usual case) are read and written as vectors. (A
        // short group is never a run: [9, 10, 12] padded to [9, 10, 12, 12] spans four
        // places, but not with these contacts.)
        if group.len() == 4 && k[3] == k[0] + 3 {
            // Once per line of eight contacts (a group may start anywhere in one when
            // contacts ended before it).
            if k[0] >= next_line {
                ahead(block, state, k[0] + BLOCK_AHEAD);
                next_line = (k[0] / 8 + 1) * 8;
            }
            update_group::<true>(block, &k, cols, first, dt, opt);
        } else {
            update_group::<false>(block, &k, cols, first, dt, opt);
        }
    }
}

/// How many contacts ahead [`update_groups`] asks for the hot block's lines.
const BLOCK_AHEAD: usize = 32;

/// Asks for the cache line of every field of contact `k` of a hot block and of the
/// chunk's state block (beyond a block's end, nothing: a prefetch never faults).
#[inline(always)]
fn ahead(block: &[f64], state: &[f64], k: usize) {
    let base = block.as_ptr();
    // Not the onset's fields: the update does not read them.
    for f in 0..hot::ONSET {
        prefetch(base.wrapping_add(hot::index(f, k)));
    }
    let base = state.as_ptr();
    for f in 0..state.len() / hot::PITCH {
        prefetch(base.wrapping_add(hot::index(f, k)));
    }
}

/// Four values of gathered column `f` from `first` (see [`update_block`]).
#[inline(always)]
fn gathered(cols: &[f64], f: usize, first: usize) -> F64x4 {
    F64x4::load(cols, f * hot::PITCH + first)
}

/// Three gathered columns from `f`.
#[inline(always)]
fn gathered3(cols: &[f64], f: usize, first: usize) -> V3<F64x4> {
    V3::new(
        gathered(cols, f, first),
        gathered(cols, f + 1, first),
        gathered(cols, f + 2, first),
    )
}

/// A body's kinematics from the gathered columns (`f` its first).
#[inline(always)]
fn kin(cols: &[f64], f: usize, first: usize) -> Kin<F64x4> {
    Kin {
        pos: gathered3(cols, f, first),
        vel: gathered3(cols, f + 3, first),
        angvel: gathered3(cols, f + 6, first),
    }
}

/// The update of the four contacts `k` (consecutive when `RUN`).
#[inline(always)]
fn update_group<const RUN: bool>(
    block: &mut [f64],
    k: &[usize; 4],
    cols: &[f64],
    first: usize,
    dt: f64,
    opt: &L6Options,
) {
    // Two tests from which the compiler knows every field's four places below to be in
    // their block (instead of a test per field: 36 of the group's 700 instructions).
    assert!(k[0] + 4 <= hot::PITCH && first + 4 <= hot::PITCH);
    let b = &*block;
    let frame = [
        load3::<RUN>(b, FRAME, k),
        load3::<RUN>(b, FRAME + 3, k),
        load3::<RUN>(b, FRAME + 6, k),
    ];
    let prev = Prev {
        frame,
        quat: quaternion(&frame),
        point: load3::<RUN>(b, POINT, k),
        u: load3::<RUN>(b, U, k),
        phi: load3::<RUN>(b, PHI, k),
    };
    let now = Now {
        normal: gathered3(cols, 0, first),
        point: gathered3(cols, 3, first),
        gap: gathered(cols, 6, first),
        radius: [gathered(cols, 7, first), gathered(cols, 8, first)],
        area: gathered(cols, 9, first),
    };
    let (b1, b2) = (kin(cols, 10, first), kin(cols, 19, first));
    let next = step(&prev, &now, &b1, &b2, dt, opt);
    for (r, row) in next.frame.iter().enumerate() {
        store3::<RUN>(block, FRAME + 3 * r, k, row);
    }
    store3::<RUN>(block, POINT, k, &next.point);
    store3::<RUN>(block, U, k, &next.u);
    store3::<RUN>(block, PHI, k, &next.phi);
    store3::<RUN>(block, U_DOT, k, &next.u_dot);
    store3::<RUN>(block, PHI_DOT, k, &next.phi_dot);
    store::<RUN>(block, hot::LENS, k, next.lens[0]);
    store::<RUN>(block, hot::LENS + 1, k, next.lens[1]);
    store::<RUN>(block, hot::AREA, k, next.area);
}

#[cfg(test)]
#[path = "update_tests.rs"]
mod tests;
