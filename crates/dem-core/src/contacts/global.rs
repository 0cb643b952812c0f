//! Local to global: the force and torques of a chunk's contacts in the global frame, from
//! the law's output (local frame), the contact's frame, point and branch lengths (its hot
//! block) and its bodies' positions, four contacts at a time. The same arithmetic as the
//! law pass's contact-by-contact loop ([`super::step`]), which runs instead for a chunk that
//! mixes laws or whose law returned a non-finite value (to name the contact).

use super::blocks::{self, FRAME, LENS, POINT};
use super::Contact;
use crate::l6geom::torques;
use crate::l6geom::update::V3;
use crate::particles::Particles;
use crate::scene::L6Options;
use dem_api::lane::{F64x4, Lane};
use dem_api::{LawOutput, RawGeom, Vec3};
use nalgebra::Vector3;

/// The law's output columns of a chunk: force and torque (local frame), elastic energy,
/// friction and damping.
pub(super) struct Local<'a> {
    pub(super) force: [&'a [f64]; 3],
    pub(super) torque: [&'a [f64]; 3],
    pub(super) energy: [&'a [f64]; 3],
}

/// Four values of column `c` from item `first`: one vector load when `WHOLE` (the four are
/// whole), else the items `at`. (Functions, not closures, so that they are inlined into
/// each CPU level's copy of the loop: a closure left out of line is compiled for the
/// baseline CPU and costs a call per field. `WHOLE` is a constant so that the loop over
/// whole groups holds no address arithmetic of the short last group.)
#[inline(always)]
fn col<const WHOLE: bool>(c: &[f64], first: usize, at: &[usize; 4]) -> F64x4 {
    if WHOLE {
        F64x4::load(c, first)
    } else {
        F64x4([c[at[0]], c[at[1]], c[at[2]], c[at[3]]])
    }
}

/// Three columns as a vector of lanes (see [`col`]).
#[inline(always)]
fn col3<const WHOLE: bool>(c: [&[f64]; 3], first: usize, at: &[usize; 4]) -> V3<F64x4> {
    V3::new(
        col::<WHOLE>(c[0], first, at),
        col::<WHOLE>(c[1], first, at),
        col::<WHOLE>(c[2], first, at),
    )
}

/// Field `f` of a hot block (see [`col`]).
#[inline(always)]
fn field<const WHOLE: bool>(hot: &[f64], f: usize, first: usize, at: &[usize; 4]) -> F64x4 {
    col::<WHOLE>(&hot[f * blocks::PITCH..(f + 1) * blocks::PITCH], first, at)
}

/// Fields `f`, `f + 1`, `f + 2` of a hot block.
#[inline(always)]
fn field3<const WHOLE: bool>(hot: &[f64], f: usize, first: usize, at: &[usize; 4]) -> V3<F64x4> {
    V3::new(
        field::<WHOLE>(hot, f, first, at),
        field::<WHOLE>(hot, f + 1, first, at),
        field::<WHOLE>(hot, f + 2, first, at),
    )
}

/// The frame's transpose times the local vector `v` (the rows weighted by its
/// components), times the term's weight.
#[inline(always)]
fn global(rows: &[V3<F64x4>; 3], v: V3<F64x4>, weight: F64x4) -> V3<F64x4> {
    rows[0]
        .scale(v.x)
        .add(rows[1].scale(v.y))
        .add(rows[2].scale(v.z))
        .scale(weight)
}

/// Positions of the bodies `body` (0 or 1) of the contacts `at`.
#[inline(always)]
fn positions(list: &[Contact], p: &Particles, at: &[usize; 4], body: usize) -> V3<F64x4> {
    let id = |c: &Contact| {
        let (b1, b2) = c.bodies();
        if body == 0 {
            b1
        } else {
            b2
        }
    };
    let x = [
        &p.pos[id(&list[at[0]])],
        &p.pos[id(&list[at[1]])],
        &p.pos[id(&list[at[2]])],
        &p.pos[id(&list[at[3]])],
    ];
    V3::new(
        F64x4([x[0].x, x[1].x, x[2].x, x[3].x]),
        F64x4([x[0].y, x[1].y, x[2].y, x[3].y]),
        F64x4([x[0].z, x[1].z, x[2].z, x[3].z]),
    )
}

/// Columns of [`to_global`]'s results: force (3), torque on body 1 (3), on body 2 (3).
pub(super) const GLOBAL: usize = 9;

/// Sets `force`, `torque` and `out` of every contact of a chunk (`hot` its block, `raw` its
/// geometry, `local` the law's output for all of them). `cols` is room for [`GLOBAL`]
/// columns of [`blocks::PITCH`] values. Returns false, before any contact is written, when
/// an output is not finite.
///
/// Two loops: the first computes four contacts at a time into the columns `cols` (vector
/// stores), the second copies them into the contacts. (Written straight into the
/// contacts, the stores of a contact's components led the compiler to compute each
/// contact's x and y together and z alone, with the lanes moved in and out of vectors.)
pub(super) fn to_global(
    list: &mut [Contact],
    hot: &[f64],
    raw: &[RawGeom],
    local: &Local<'_>,
    p: &Particles,
    opt: &L6Options,
    cols: &mut [f64],
) -> bool {
    let cols = &mut cols[..GLOBAL * blocks::PITCH];
    if !compute(list, hot, raw, local, p, opt, cols) {
        return false;
    }
    let col = |f: usize| &cols[f * blocks::PITCH..(f + 1) * blocks::PITCH];
    let (fx, fy, fz) = (col(0), col(1), col(2));
    let (t1x, t1y, t1z, t2x, t2y, t2z) = (col(3), col(4), col(5), col(6), col(7), col(8));
    for (j, c) in list.iter_mut().enumerate() {
        let w = raw[j].weight;
        let (friction, damping) = (local.energy[1][j], local.energy[2][j]);
        if c.ending {
            // The contact is over: only the dissipation of its last interval counts.
            c.force = Vector3::zeros();
            c.torque = [Vector3::zeros(); 2];
            c.out = LawOutput {
                friction: w * friction,
                damping: w * damping,
                ..LawOutput::default()
            };
            continue;
        }
        c.force = Vector3::new(fx[j], fy[j], fz[j]);
        c.torque = [
            Vector3::new(t1x[j], t1y[j], t1z[j]),
            Vector3::new(t2x[j], t2y[j], t2z[j]),
        ];
        // Forces and energies of this term count `w` times; `out` keeps what the ledger
        // books (the law's own force stays in its local frame, unweighted).
        let (f, t) = (local.force, local.torque);
        c.out = LawOutput {
            force: Vec3::new(f[0][j], f[1][j], f[2][j]),
            torque: Vec3::new(t[0][j], t[1][j], t[2][j]),
            elastic: w * local.energy[0][j],
            friction: w * friction,
            damping: w * damping,
        };
    }
    true
}

/// The first loop of [`to_global`]: false when an output is not finite.
#[multiversion::multiversion(targets("x86_64+avx2+fma", "x86_64+avx512f+avx512vl+avx2+fma"))]
fn compute(
    list: &[Contact],
    hot: &[f64],
    raw: &[RawGeom],
    local: &Local<'_>,
    p: &Particles,
    opt: &L6Options,
    cols: &mut [f64],
) -> bool {
    let n = list.len();
    let hot = &hot[..blocks::HOT * blocks::PITCH];
    let mut first = 0;
    while first + 4 <= n {
        let at = [first, first + 1, first + 2, first + 3];
        if !group::<true>(list, hot, raw, local, p, opt, &at, cols) {
            return false;
        }
        first += 4;
    }
    if first < n {
        // A short last group repeats its last contact (its lanes past the chunk are not
        // read).
        let at = [first, (first + 1).min(n - 1), (first + 2).min(n - 1), n - 1];
        return group::<false>(list, hot, raw, local, p, opt, &at, cols);
    }
    true
}

/// The contacts `at` of [`compute`] (the four from `at[0]` when `WHOLE`, else those of a
/// short last group, its last repeated), stored into the columns from `at[0]`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn group<const WHOLE: bool>(
    list: &[Contact],
    hot: &[f64],
    raw: &[RawGeom],
    local: &Local<'_>,
    p: &Particles,
    opt: &L6Options,
    at: &[usize; 4],
    cols: &mut [f64],
) -> bool {
    let first = at[0];
    let force = col3::<WHOLE>(local.force, first, at);
    let torque = col3::<WHOLE>(local.torque, first, at);
    let elastic = col::<WHOLE>(local.energy[0], first, at);
    let friction = col::<WHOLE>(local.energy[1], first, at);
    let damping = col::<WHOLE>(local.energy[2], first, at);
    let sum = force.x + force.y + force.z + torque.x + torque.y + torque.z;
    if F64x4::any(F64x4::not((sum + elastic + friction + damping).finite())) {
        return false;
    }
    let rows = [
        field3::<WHOLE>(hot, FRAME, first, at),
        field3::<WHOLE>(hot, FRAME + 3, first, at),
        field3::<WHOLE>(hot, FRAME + 6, first, at),
    ];
    let weight = F64x4([
        raw[at[0]].weight,
        raw[at[1]].weight,
        raw[at[2]].weight,
        raw[at[3]].weight,
    ]);
    let (f, extra) = (global(&rows, force, weight), global(&rows, torque, weight));
    let lens = [
        field::<WHOLE>(hot, LENS, first, at),
        field::<WHOLE>(hot, LENS + 1, first, at),
    ];
    let bodies = [positions(list, p, at, 0), positions(list, p, at, 1)];
    let point = field3::<WHOLE>(hot, POINT, first, at);
    let [t1, t2] = torques(point, rows[0], lens, bodies, f, opt);
    let (t1, t2) = (t1.sub(extra), t2.add(extra));
    for (k, v) in [f, t1, t2].iter().enumerate() {
        v.x.store(cols, (3 * k) * blocks::PITCH + first);
        v.y.store(cols, (3 * k + 1) * blocks::PITCH + first);
        v.z.store(cols, (3 * k + 2) * blocks::PITCH + first);
    }
    true
}
