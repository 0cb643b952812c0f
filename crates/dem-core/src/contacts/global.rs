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

/// Four values of column `c` from item `first`: one vector load when the four are whole,
/// else the items `at`. (Functions, not closures, so that they are inlined into each CPU
/// level's copy of the loop: a closure left out of line is compiled for the baseline CPU
/// and costs a call per field.)
#[inline(always)]
fn col(c: &[f64], first: usize, at: &[usize; 4], whole: bool) -> F64x4 {
    match whole {
        true => F64x4::load(c, first),
        false => F64x4::from_fn(|j| c[at[j]]),
    }
}

/// Three columns as a vector of lanes (see [`col`]).
#[inline(always)]
fn col3(c: [&[f64]; 3], first: usize, at: &[usize; 4], whole: bool) -> V3<F64x4> {
    V3::new(
        col(c[0], first, at, whole),
        col(c[1], first, at, whole),
        col(c[2], first, at, whole),
    )
}

/// Field `f` of a hot block (see [`col`]).
#[inline(always)]
fn field(hot: &[f64], f: usize, first: usize, at: &[usize; 4], whole: bool) -> F64x4 {
    let c = &hot[f * blocks::PITCH..(f + 1) * blocks::PITCH];
    col(c, first, at, whole)
}

/// Fields `f`, `f + 1`, `f + 2` of a hot block.
#[inline(always)]
fn field3(hot: &[f64], f: usize, first: usize, at: &[usize; 4], whole: bool) -> V3<F64x4> {
    V3::new(
        field(hot, f, first, at, whole),
        field(hot, f + 1, first, at, whole),
        field(hot, f + 2, first, at, whole),
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
    let x: [Vector3<f64>; 4] = std::array::from_fn(|j| {
        let (b1, b2) = list[at[j]].bodies();
        p.pos[if body == 0 { b1 } else { b2 }]
    });
    V3::new(
        F64x4::from_fn(|j| x[j].x),
        F64x4::from_fn(|j| x[j].y),
        F64x4::from_fn(|j| x[j].z),
    )
}

/// Lane `j` of `v`.
#[inline(always)]
fn lane(v: &V3<F64x4>, j: usize) -> Vector3<f64> {
    Vector3::new(v.x.0[j], v.y.0[j], v.z.0[j])
}

/// Sets `force`, `torque` and `out` of every contact of a chunk (`hot` its block, `raw` its
/// geometry, `local` the law's output for all of them). Returns false, before any contact
/// of its group of four is written, when an output is not finite.
#[multiversion::multiversion(targets("x86_64+avx2+fma", "x86_64+avx512f+avx512vl+avx2+fma"))]
pub(super) fn to_global(
    list: &mut [Contact],
    hot: &[f64],
    raw: &[RawGeom],
    local: &Local<'_>,
    p: &Particles,
    opt: &L6Options,
) -> bool {
    let n = list.len();
    let hot = &hot[..blocks::HOT * blocks::PITCH];
    let mut first = 0;
    while first < n {
        // A short last group repeats its last contact (computed twice, written once).
        let at: [usize; 4] = std::array::from_fn(|j| (first + j).min(n - 1));
        let whole = first + 4 <= n;
        let force = col3(local.force, first, &at, whole);
        let torque = col3(local.torque, first, &at, whole);
        let elastic = col(local.energy[0], first, &at, whole);
        let friction = col(local.energy[1], first, &at, whole);
        let damping = col(local.energy[2], first, &at, whole);
        let sum = force.x + force.y + force.z + torque.x + torque.y + torque.z;
        if F64x4::any(F64x4::not((sum + elastic + friction + damping).finite())) {
            return false;
        }
        let rows = [
            field3(hot, FRAME, first, &at, whole),
            field3(hot, FRAME + 3, first, &at, whole),
            field3(hot, FRAME + 6, first, &at, whole),
        ];
        let weight = F64x4::from_fn(|j| raw[at[j]].weight);
        let (f, extra) = (global(&rows, force, weight), global(&rows, torque, weight));
        let lens = [
            field(hot, LENS, first, &at, whole),
            field(hot, LENS + 1, first, &at, whole),
        ];
        let bodies = [positions(list, p, &at, 0), positions(list, p, &at, 1)];
        let point = field3(hot, POINT, first, &at, whole);
        let [t1, t2] = torques(point, rows[0], lens, bodies, f, opt);
        let (t1, t2) = (t1.sub(extra), t2.add(extra));
        let count = if whole { 4 } else { n - first };
        for j in 0..count {
            let c = &mut list[first + j];
            let w = weight.0[j];
            if c.ending {
                // The contact is over: only the dissipation of its last interval counts.
                c.force = Vector3::zeros();
                c.torque = [Vector3::zeros(); 2];
                c.out = LawOutput {
                    friction: w * friction.0[j],
                    damping: w * damping.0[j],
                    ..LawOutput::default()
                };
                continue;
            }
            c.force = lane(&f, j);
            c.torque = [lane(&t1, j), lane(&t2, j)];
            // Forces and energies of this term count `w` times; `out` keeps what the
            // ledger books (the law's own force stays in its local frame, unweighted).
            c.out = LawOutput {
                force: Vec3::new(force.x.0[j], force.y.0[j], force.z.0[j]),
                torque: Vec3::new(torque.x.0[j], torque.y.0[j], torque.z.0[j]),
                elastic: w * elastic.0[j],
                friction: w * friction.0[j],
                damping: w * damping.0[j],
            };
        }
        first += 4;
    }
    true
}
