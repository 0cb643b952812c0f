//! Local to global: the force and torques of a chunk's contacts in the global frame, from
//! the law's output (local frame), the contact's frame, point and branch lengths (its hot
//! block) and its bodies' positions, four contacts at a time, written with the law's output
//! into the chunk's forces (see [`super::forces`]), which the gather reads. The same
//! arithmetic as the law pass's contact-by-contact loop ([`super::step`]), which runs
//! instead for a chunk that mixes laws or whose law returned a non-finite value (to name
//! the contact).

use super::contact::Contact;
use super::forces::{ENERGY, FORCE, GROUP, TORQUE};
use crate::engines::l6geom::torques;
use crate::engines::l6geom::update::V3;
use crate::engines::l6geom::L6Options;
use crate::model::blocks::{self, FRAME, LENS, POINT};
use crate::model::particles::Particles;
use dem_api::lane::{F64x4, Lane, M64x4};
use dem_api::sdk::prefetch;
use dem_api::RawGeom;

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

/// Positions of the bodies `body` (0 or 1) of the contacts `at`, whose bodies are
/// `pairs`.
#[inline(always)]
fn positions(pairs: &[[u32; 2]], p: &Particles, at: &[usize; 4], body: usize) -> V3<F64x4> {
    let x = [
        &p.pos[pairs[at[0]][body] as usize],
        &p.pos[pairs[at[1]][body] as usize],
        &p.pos[pairs[at[2]][body] as usize],
        &p.pos[pairs[at[3]][body] as usize],
    ];
    V3::new(
        F64x4([x[0].x, x[1].x, x[2].x, x[3].x]),
        F64x4([x[0].y, x[1].y, x[2].y, x[3].y]),
        F64x4([x[0].z, x[1].z, x[2].z, x[3].z]),
    )
}

/// How many groups of four contacts ahead [`to_global`] asks for the lines of the forces.
const GROUPS_AHEAD: usize = 4;

/// Writes the [`Forces`](super::Forces) of every contact of a chunk into its `forces` (see
/// [`super::forces`]; `hot` its hot block, `raw` its geometry, `pairs` its bodies, `local`
/// the law's output for all of them), four at a time. Returns false, before any contact is
/// written, when an output is not finite.
// AVX-512 first: `multiversion` runs the first target the CPU has.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
#[allow(clippy::too_many_arguments)]
pub(super) fn to_global(
    list: &[Contact],
    hot: &[f64],
    (raw, pairs): (&[RawGeom], &[[u32; 2]]),
    local: &Local<'_>,
    p: &Particles,
    opt: &L6Options,
    forces: &mut [f64],
) -> bool {
    let n = list.len();
    let hot = &hot[..blocks::HOT * blocks::PITCH];
    let mut first = 0;
    // Cut to the chunk's length, so that one test of an index covers them all.
    let all = (list, &raw[..n], &pairs[..n]);
    while first + 4 <= n {
        // The lines of the forces a few groups ahead, asked for before they are written:
        // on a bed larger than the cache each is a miss.
        let ahead = forces
            .as_ptr()
            .wrapping_add((first / 4 + GROUPS_AHEAD) * GROUP);
        for line in 0..GROUP / 8 {
            prefetch(ahead.wrapping_add(8 * line));
        }
        let at = [first, first + 1, first + 2, first + 3];
        if !group::<true>(all, hot, local, p, opt, &at, forces) {
            return false;
        }
        first += 4;
    }
    if first < n {
        // A short last group repeats its last contact (its lanes past the chunk are not
        // read).
        let at = [first, (first + 1).min(n - 1), (first + 2).min(n - 1), n - 1];
        return group::<false>(all, hot, local, p, opt, &at, forces);
    }
    true
}

/// The contacts `at` of [`to_global`] (the four from `at[0]` when `WHOLE`, else those of
/// a short last group, its last repeated), stored into their group of the forces.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn group<const WHOLE: bool>(
    (list, raw, pairs): (&[Contact], &[RawGeom], &[[u32; 2]]),
    hot: &[f64],
    local: &Local<'_>,
    p: &Particles,
    opt: &L6Options,
    at: &[usize; 4],
    forces: &mut [f64],
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
    let bodies = [positions(pairs, p, at, 0), positions(pairs, p, at, 1)];
    let point = field3::<WHOLE>(hot, POINT, first, at);
    let [t1, t2] = torques(point, rows[0], lens, bodies, f, opt);
    let (t1, t2) = (t1.sub(extra), t2.add(extra));
    // A contact that ended in the step pushes nothing: only the dissipation of its last
    // interval counts.
    let ending = M64x4::from_fn(|l| list[at[l]].ending);
    let live = |v: F64x4| F64x4::select(ending, F64x4::splat(0.0), v);
    // `first` is a multiple of four: the group's values in field order (see
    // `super::forces`). Forces and energies of this term count `weight` times; the law's
    // own force stays in its local frame, unweighted.
    let g = &mut forces[first * GROUP / 4..(first / 4 + 1) * GROUP];
    let mut put = |f: usize, v: F64x4| v.store(g, 4 * f);
    put(0, live(force.x));
    put(1, live(force.y));
    put(2, live(force.z));
    put(3, live(torque.x));
    put(4, live(torque.y));
    put(5, live(torque.z));
    put(ENERGY, live(elastic * weight));
    put(ENERGY + 1, friction * weight);
    put(ENERGY + 2, damping * weight);
    put(FORCE, live(f.x));
    put(FORCE + 1, live(f.y));
    put(FORCE + 2, live(f.z));
    put(TORQUE, live(t1.x));
    put(TORQUE + 1, live(t1.y));
    put(TORQUE + 2, live(t1.z));
    put(TORQUE + 3, live(t2.x));
    put(TORQUE + 4, live(t2.y));
    put(TORQUE + 5, live(t2.z));
    true
}
