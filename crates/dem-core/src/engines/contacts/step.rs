//! The law pass of a step over the live contacts: their geometry (computed in the pass,
//! see [`super::geometry`], or before it), then lifecycle, L6Geom update, law call
//! (batched per law) and the conversion of the law's output to global forces. One pass
//! over chunks of the contact list in parallel (a geometry pass before it when the
//! hand-over of mesh contacts needs the geometry); each contact is written only by the
//! worker of its chunk.

use super::batch::{call_error, kinds, pick, unwritten, Buffers, Scratch, Work};
use super::contact::{Contact, NONE};
use super::context::StepContext;
use super::forces::{self, ForceStore, Forces};
use super::geometry::{check, geometry_chunk, pairs_of, KeptState};
use super::totals::ENDING;
use super::totals::{ContactTotals, Gather};
use crate::engines::dispatch::LawEntry;
use crate::engines::l6geom::update::update_block;
use crate::model::blocks::CHUNK;
use crate::model::blocks::{self, Blocks};
use crate::support::error::DemError;
use crate::support::team::{FirstError, Parts};
use crate::support::workers::recycle;
use abi_stable::std_types::RResult;
use dem_api::{LawOutput, LawReads, RawGeom, FLAG_LAST, FLAG_NEW, FLAG_REFRESH};
use nalgebra::Vector3;

/// Where the law pass finds the contacts' geometry.
pub(super) enum Geometry<'r> {
    /// Computed before the pass for every contact (scenes with mesh facets, whose
    /// hand-over needs it).
    Given(&'r [RawGeom]),
    /// Computed in the pass, chunk by chunk, for the contacts that existed before this
    /// step; the new ones (from index `fresh` on) take the detection's, in this order.
    InPass(&'r [(u32, RawGeom)]),
}

/// Lifecycle, L6Geom and law of every contact; contacts at index `fresh` and beyond were
/// created this step (their L6Geom is new). `hot` and `state` are the contacts' blocks,
/// `forces` what they push onto their bodies, which this fills, with `out`, for the
/// gather.
pub(super) fn law<'a>(
    cx: &StepContext<'a>,
    list: &mut [Contact],
    geometry: Geometry<'_>,
    (hot, (state, offset), forces): (&mut Blocks, (&mut Blocks, usize), &mut ForceStore),
    fresh: usize,
    out: &mut Gather,
    buffers: &mut Buffers,
) -> Result<(), DemError> {
    let chunk_count = list.len().div_ceil(CHUNK);
    out.totals.clear();
    out.totals.resize(chunk_count, ContactTotals::default());
    // Every entry is written by `finish_chunk`.
    out.bodies.resize(list.len(), [NONE; 2]);
    buffers.workers.prepare();
    let mut work: Vec<Work<'_>> = recycle(std::mem::take(&mut buffers.work));
    let blocks = hot
        .blocks_mut()
        .zip(state.blocks_mut())
        .zip(forces.chunks_mut());
    work.extend(
        list.chunks_mut(CHUNK)
            .zip(blocks)
            .zip(out.totals.iter_mut().zip(out.bodies.chunks_mut(CHUNK)))
            .enumerate()
            .map(
                |(k, ((list, ((hot, state), forces)), (total, bodies)))| Work {
                    first: k * CHUNK,
                    list,
                    hot,
                    state,
                    forces,
                    total,
                    bodies,
                },
            ),
    );
    debug_assert_eq!(work.len(), chunk_count, "a block per chunk of contacts");
    let kept = &*buffers;
    let first = FirstError::new();
    {
        let works = Parts::new(&mut work);
        cx.team.run(|t| {
            let mine = cx.team.range(chunk_count, t);
            // SAFETY: the members' chunk runs are disjoint.
            for (k, w) in mine.clone().zip(unsafe { works.take(mine) }) {
                let work =
                    |scratch: &mut Scratch| law_work(cx, w, (&geometry, offset), fresh, scratch);
                if let Err(e) = kept.with(work) {
                    first.keep(k, e);
                    return;
                }
            }
        });
    }
    buffers.work = recycle(work);
    first.into_result()
}

/// The law pass on one chunk (see [`law`]).
fn law_work(
    cx: &StepContext<'_>,
    w: &mut Work<'_>,
    geometry: (&Geometry<'_>, usize),
    fresh: usize,
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    // The buffers leave the scratch while the scratch is in use.
    let (mut pairs, mut features) = scratch.take_pairs();
    pairs_of(w.list, &mut pairs, &mut features);
    let done = law_pairs(cx, w, geometry, fresh, (&pairs, &features), scratch);
    if done.is_ok() {
        *w.total = finish_chunk(w.list, &pairs, w.bodies);
    }
    scratch.put_pairs(pairs, features);
    done
}

/// [`law_work`] with the chunk's bodies and terms; `offset` is the field of the state
/// blocks where the geometry functors' contact state begins.
fn law_pairs(
    cx: &StepContext<'_>,
    w: &mut Work<'_>,
    (geometry, offset): (&Geometry<'_>, usize),
    fresh: usize,
    (pairs, features): (&[[u32; 2]], &[u32]),
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    let n = w.list.len();
    // Contacts of the chunk that existed before this step.
    let old = fresh.saturating_sub(w.first).min(n);
    match geometry {
        Geometry::Given(raw) => {
            let raw = &raw[w.first..w.first + n];
            law_chunk(cx, w, raw, pairs, old, scratch)
        }
        Geometry::InPass(new) => {
            let mut raw = std::mem::take(&mut scratch.raw);
            unwritten(&mut raw, old);
            let asked = (&pairs[..old], &features[..old]);
            let kept = KeptState {
                block: w.state,
                offset,
                first: 0,
            };
            let listed = &w.list[..old];
            let r =
                geometry_chunk(cx, listed, asked, &mut raw, Some(kept), scratch).and_then(|()| {
                    // The chunk's first new contact is the detection's `skip`-th.
                    let skip = (w.first + old).saturating_sub(fresh);
                    raw.extend(new[skip..skip + (n - old)].iter().map(|&(_, g)| g));
                    law_chunk(cx, w, &raw, pairs, old, scratch)
                });
            scratch.raw = raw;
            r
        }
    }
}

/// The ended contacts of a chunk after its law call, and what the gather reads of each contact in
/// `bodies`: the bodies a live contact pushes (body 1, body 2); for one that ended in the
/// step, `[ENDING | a, NONE]`, pushing nothing and booking the dissipation of its last
/// interval to its particle `a`; for a gone one `NONE` twice (nothing).
fn finish_chunk(list: &[Contact], pairs: &[[u32; 2]], bodies: &mut [[u32; 2]]) -> ContactTotals {
    let mut t = ContactTotals::default();
    for ((c, b), pair) in list.iter().zip(bodies).zip(pairs) {
        if !c.active() {
            t.ended += 1;
        }
        if c.gone {
            *b = [NONE; 2];
            continue;
        }
        if c.ending {
            *b = [ENDING | c.a, NONE];
        } else {
            *b = *pair;
        }
    }
    t
}

/// Lifecycle: ends contacts the functor no longer reports or whose gap left the band,
/// updates the L6Geom (in the chunk's block `hot`) of the others (those from index `fresh`
/// on are new), four at a time. `pairs` holds the contacts' bodies.
fn lifecycle(
    cx: &StepContext<'_>,
    list: &mut [Contact],
    (hot, state): (&mut [f64], &[f64]),
    (raw, pairs): (&[RawGeom], &[[u32; 2]]),
    fresh: usize,
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    let ks = &mut scratch.ks;
    ks.clear();
    for (k, (c, g)) in list.iter_mut().zip(raw).take(fresh).enumerate() {
        // Written only when set, so that untouched flags are not written back.
        if c.new {
            c.new = false;
        }
        if g.touching == 0 {
            // The functor gave no geometry for a live contact: end it without a last call.
            tracing::debug!(target: "dem::contact", event = "end", a = c.a, b = c.b, t = cx.time);
            c.gone = true;
            continue;
        }
        let geom = &cx.dispatch.geoms[c.geom as usize];
        check(cx, geom, (c.a, c.b), g)?;
        ks.push(k);
        let law = &cx.dispatch.laws[c.law as usize];
        if g.gap >= law.distance + cx.eps {
            c.ending = true;
            tracing::debug!(target: "dem::contact", event = "end", a = c.a, b = c.b, t = cx.time, gap = g.gap);
        }
    }
    update_block(
        (hot, state),
        ks,
        raw,
        pairs,
        cx.particles,
        cx.dt,
        &cx.l6,
        &mut scratch.gathered,
    );
    Ok(())
}

fn law_chunk(
    cx: &StepContext<'_>,
    w: &mut Work<'_>,
    raw: &[RawGeom],
    pairs: &[[u32; 2]],
    fresh: usize,
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    lifecycle(cx, w.list, (w.hot, w.state), (raw, pairs), fresh, scratch)?;
    kinds(w.list, |c| c.law, &mut scratch.kinds);
    for li in 0..scratch.kinds.len() {
        let l = scratch.kinds[li];
        let law = &cx.dispatch.laws[l as usize];
        let list = &*w.list;
        let keep = |i: usize| list[i].law == l && !list[i].gone;
        pick(list.len(), keep, &mut scratch.picked);
        if scratch.picked.is_empty() {
            continue;
        }
        run_law(cx, law, w, (raw, pairs), scratch)?;
    }
    Ok(())
}

/// Calls `law` on the picked contacts of a chunk and turns its output into global forces.
/// When it takes every contact of the chunk (the common case), the law reads the chunk's
/// blocks in place; else copies of the picked contacts' columns.
fn run_law(
    cx: &StepContext<'_>,
    law: &LawEntry,
    w: &mut Work<'_>,
    (raw, pairs): (&[RawGeom], &[[u32; 2]]),
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    let p = cx.particles;
    let picked = &scratch.picked;
    let in_place = picked.len() == w.list.len();
    let columns = &mut scratch.law;
    columns.resize(picked.len(), law.state_len, !in_place);
    // The masses and materials of a contact only when the law reads them: at every step,
    // or when it computes its constants (at onset, and after a change of the law's
    // parameters or of the materials).
    let every = law.reads.contains(LawReads::PAIR);
    let refresh = if law.refresh { FLAG_REFRESH } else { 0 };
    columns.write_pairs(picked.iter().map(|&i| {
        let c = &w.list[i];
        let flags =
            refresh | if c.new { FLAG_NEW } else { 0 } | if c.ending { FLAG_LAST } else { 0 };
        let pair = (every || flags & (FLAG_NEW | FLAG_REFRESH) != 0).then(|| {
            let [b1, b2] = pairs[i].map(|b| b as usize);
            (
                [p.law_mass(b1), p.law_mass(b2)],
                [p.material[b1], p.material[b2]],
            )
        });
        (pair, flags)
    }));
    if !in_place {
        for (k, &i) in picked.iter().enumerate() {
            let (l6, onset) = (
                crate::engines::l6geom::hot::load(w.hot, i),
                blocks::onset(w.hot, i),
            );
            columns.write_copies(k, &l6, &onset, w.state, i);
        }
    }
    let (batch, law_state, out) = if in_place {
        columns.call_in_place(cx.dt, cx.materials, w.hot, w.state)
    } else {
        columns.call(cx.dt, cx.materials)
    };
    if let RResult::RErr(e) = law.law.law_batch(&batch, law_state, out) {
        let c = &w.list[picked[(e.index as usize).min(picked.len() - 1)]];
        return Err(call_error(
            cx,
            (c.a, c.b),
            &law.plugin,
            &law.name,
            e.message.to_string(),
        ));
    }

    // Local to global: four at a time when the law took the whole chunk, unless an output
    // is not finite (then contact by contact, to name it).
    if in_place {
        let local = columns.local();
        let given = (raw, pairs);
        if super::global::to_global(w.list, w.hot, given, &local, p, &cx.l6, w.forces) {
            return Ok(());
        }
    }
    for (k, &i) in picked.iter().enumerate() {
        let c = &w.list[i];
        let o = columns.output(k);
        // A finite sum has finite terms; the terms are tested one by one only when it is
        // not (which an overflow of the sum alone can cause).
        let sum = o.force.x + o.force.y + o.force.z + o.torque.x + o.torque.y + o.torque.z;
        let finite = (sum + o.elastic + o.friction + o.damping).is_finite()
            || (o.force.is_finite()
                && o.torque.is_finite()
                && [o.elastic, o.friction, o.damping]
                    .iter()
                    .all(|x| x.is_finite()));
        if !finite {
            return Err(call_error(
                cx,
                (c.a, c.b),
                &law.plugin,
                &law.name,
                format!("returned a non-finite result {o:?}"),
            ));
        }
        let w_term = raw[i].weight;
        if c.ending {
            // The contact is over: only the dissipation of its last interval counts.
            let out = LawOutput {
                friction: w_term * o.friction,
                damping: w_term * o.damping,
                ..LawOutput::default()
            };
            let ended = Forces {
                out,
                ..Forces::default()
            };
            forces::store(w.forces, i, &ended);
            continue;
        }
        if !in_place {
            columns.read_state(k, w.state, i);
        }
        // With `i < CHUNK` and the block cut to its length, the reads below need no test.
        assert!(i < CHUNK);
        let block = &w.hot[..blocks::HOT * blocks::PITCH];
        let hot = |f: usize| block[blocks::index(f, i)];
        let row = |r: usize| {
            Vector3::new(
                hot(blocks::FRAME + 3 * r),
                hot(blocks::FRAME + 3 * r + 1),
                hot(blocks::FRAME + 3 * r + 2),
            )
        };
        // The frame's transpose times the local vector: the rows weighted by its
        // components.
        let global = |v: dem_api::Vec3| (row(0) * v.x + row(1) * v.y + row(2) * v.z) * w_term;
        let f = global(o.force);
        let extra = global(o.torque);
        let (b1, b2) = c.bodies();
        let point = Vector3::new(
            hot(blocks::POINT),
            hot(blocks::POINT + 1),
            hot(blocks::POINT + 2),
        );
        // The force's moments with the lever arms of the L6Geom kinematics.
        let [t1, t2] = crate::engines::l6geom::contact_torques(
            &point,
            &row(0),
            [hot(blocks::LENS), hot(blocks::LENS + 1)],
            [&p.pos[b1], &p.pos[b2]],
            &f,
            &cx.l6,
        );
        // Forces and energies of this term count `w_term` times; `out` keeps what the
        // ledger books (the law's own force stays in its local frame, unweighted).
        let out = LawOutput {
            elastic: w_term * o.elastic,
            friction: w_term * o.friction,
            damping: w_term * o.damping,
            ..o
        };
        let pushed = Forces {
            out,
            force: f,
            torque: [t1 - extra, t2 + extra],
        };
        forces::store(w.forces, i, &pushed);
    }
    Ok(())
}
