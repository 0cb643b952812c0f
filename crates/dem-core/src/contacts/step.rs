//! One step of the live contacts: their geometry calls (batched per functor), then
//! lifecycle, L6Geom update, law call (batched per law) and the conversion of the law's
//! output to global forces. Geometry and law run in one pass over chunks of the contact
//! list in parallel (two passes when the hand-over of mesh contacts needs the geometry
//! between them); each contact is written only by the worker of its chunk.

use super::blocks::{self, Blocks};
use super::columns::LawColumns;
use super::gather::ENDING;
use super::{Contact, ContactTotals, Gather, StepContext, CHUNK, NONE};
use crate::dispatch::{GeomEntry, LawEntry};
use crate::error::DemError;
use crate::l6geom::update::update_block;
use crate::team::{FirstError, Parts};
use crate::workers::{recycle, room, PerWorker};
use abi_stable::std_types::RResult;
use dem_api::{GeomBatch, LawOutput, RawGeom, StateColumns};
use nalgebra::Vector3;

fn call_error(
    cx: &StepContext<'_>,
    (a, b): (u32, u32),
    plugin: &str,
    functor: &str,
    message: String,
) -> DemError {
    DemError::PluginCall {
        step: cx.step,
        plugin: plugin.into(),
        functor: functor.into(),
        a,
        b,
        message,
    }
}

/// Calls `geom` on the pairs of particles `pairs` (body 1, body 2) and their terms
/// `features`, asking for the gap below `distance`, with the pairs' caches `cache`
/// (values, values per pair) if any (see [`super::pair_cache`]); on failure names the
/// pair `pair(k)` of the failing item.
pub(super) fn call_geometry(
    cx: &StepContext<'_>,
    geom: &GeomEntry,
    (pairs, features, distance): (&[[u32; 2]], &[u32], f64),
    cache: Option<(&mut [f64], usize)>,
    out: &mut [RawGeom],
    pair: impl Fn(usize) -> (u32, u32),
) -> Result<(), DemError> {
    let batch = GeomBatch {
        bodies: cx.bodies,
        pairs: pairs.into(),
        features: features.into(),
        distance,
    };
    let result = match cache {
        Some((values, stride)) if geom.cache_len > 0 && stride >= geom.cache_len => {
            let cache = StateColumns {
                values: values.into(),
                item_stride: stride as u64,
                slot_stride: 1,
            };
            geom.functor.geom_batch_cached(&batch, cache, out.into())
        }
        _ => geom.functor.geom_batch(&batch, out.into()),
    };
    if let RResult::RErr(e) = result {
        let k = (e.index as usize).min(pairs.len() - 1);
        return Err(call_error(
            cx,
            pair(k),
            &geom.plugin,
            &geom.name,
            e.message.to_string(),
        ));
    }
    Ok(())
}

/// Fails unless a reported geometry is finite, with a unit normal and a finite non-zero
/// weight.
pub(super) fn check(
    cx: &StepContext<'_>,
    geom: &GeomEntry,
    pair: (u32, u32),
    g: &RawGeom,
) -> Result<(), DemError> {
    // |n|^2 within 2e-9 of 1 is |n| within 1e-9 of 1 (to first order), without a root.
    let n2 = g.normal.na().norm_squared();
    // A finite sum has finite terms (a comparison with NaN is false): the usual case in
    // one test. Only when the sum is not finite (maybe by overflow) are the terms tested.
    let sum = g.gap + g.point.x + g.point.y + g.point.z + g.weight;
    if sum.is_finite() && (n2 - 1.0).abs() < 2e-9 && g.weight != 0.0 {
        return Ok(());
    }
    let valid = g.gap.is_finite()
        && g.point.is_finite()
        && n2.is_finite()
        && (n2 - 1.0).abs() < 2e-9
        && g.weight.is_finite()
        && g.weight != 0.0;
    if valid {
        return Ok(());
    }
    Err(call_error(
        cx,
        pair,
        &geom.plugin,
        &geom.name,
        format!(
            "returned invalid geometry (non-finite, normal not of unit length, or weight \
             zero) {g:?}"
        ),
    ))
}

/// The distinct values of `key` over `items`, in order of first appearance (most chunks
/// hold one functor and one law).
fn kinds<T>(items: &[T], key: impl Fn(&T) -> u16, out: &mut Vec<u16>) {
    out.clear();
    for x in items {
        let k = key(x);
        if !out.contains(&k) {
            out.push(k);
        }
    }
}

/// The indices `0..n` that `keep`, into `out`.
fn pick(n: usize, keep: impl Fn(usize) -> bool, out: &mut Vec<usize>) {
    out.clear();
    out.extend((0..n).filter(|&i| keep(i)));
}

/// Buffers of one worker, reused from chunk to chunk and kept from step to step.
#[derive(Default)]
pub(super) struct Scratch {
    kinds: Vec<u16>,
    picked: Vec<usize>,
    pairs: Vec<[u32; 2]>,
    features: Vec<u32>,
    out: Vec<RawGeom>,
    law: LawColumns,
    /// The contacts whose L6Geom is updated, and the bodies of each.
    ks: Vec<usize>,
    bodies: Vec<(usize, usize)>,
    /// The chunk's geometry when the law pass computes it.
    raw: Vec<RawGeom>,
}

impl Scratch {
    /// Room for a full chunk (growing the buffers item by item cost more than the law).
    fn room(&mut self) {
        room(&mut self.kinds, 4);
        room(&mut self.picked, CHUNK);
        room(&mut self.pairs, CHUNK);
        room(&mut self.features, CHUNK);
        room(&mut self.out, CHUNK);
        room(&mut self.raw, CHUNK);
        room(&mut self.ks, CHUNK);
        room(&mut self.bodies, CHUNK);
    }
}

/// The pairs (body 1, body 2) and terms of the contacts `picked` of `list`, into
/// `pairs` and `features`.
fn pairs_of(
    list: &[Contact],
    picked: &[usize],
    pairs: &mut Vec<[u32; 2]>,
    features: &mut Vec<u32>,
) {
    pairs.clear();
    features.clear();
    for &i in picked {
        let (b1, b2) = list[i].bodies();
        pairs.push([b1 as u32, b2 as u32]);
        features.push(u32::from(list[i].feature));
    }
}

/// What the geometry and law passes keep from step to step, so that a step allocates
/// nothing: each worker's buffers and the list of the law pass's chunks.
#[derive(Default)]
pub(super) struct Buffers {
    workers: PerWorker<Scratch>,
    work: Vec<Work<'static>>,
}

/// A copy starts without buffers.
impl Clone for Buffers {
    fn clone(&self) -> Self {
        Buffers::default()
    }
}

impl Buffers {
    /// Runs `f` with the calling worker's scratch.
    fn with<R>(&self, f: impl FnOnce(&mut Scratch) -> R) -> R {
        self.workers.with(|kept| {
            kept.room();
            f(kept)
        })
    }
}

/// Contacts per item of the geometry pass ([`geometry`]): small, so that the workers,
/// each taking the next item when free, finish together even when contacts differ in
/// cost (polyhedra beside walls); a plugin call per item and functor.
const GEOMETRY_CHUNK: usize = 32;

/// Geometry of every contact (all live at this point) into `raw`, in items of
/// [`GEOMETRY_CHUNK`] contacts taken by the next free worker (each contact's geometry is
/// its own: the same for any split).
pub(super) fn geometry(
    cx: &StepContext<'_>,
    list: &[Contact],
    raw: &mut [RawGeom],
    buffers: &mut Buffers,
) -> Result<(), DemError> {
    buffers.workers.prepare();
    let buffers = &*buffers;
    let chunks = list.len().div_ceil(GEOMETRY_CHUNK);
    let raws = Parts::new(raw);
    let first = FirstError::new();
    cx.team.claim_each(chunks, |k| {
        let r = k * GEOMETRY_CHUNK..((k + 1) * GEOMETRY_CHUNK).min(list.len());
        // SAFETY: each chunk is claimed once.
        let raw = unsafe { raws.take(r.clone()) };
        if let Err(e) = buffers.with(|scratch| geometry_chunk(cx, &list[r], raw, scratch)) {
            first.keep(k, e);
            return false;
        }
        true
    });
    first.into_result()
}

fn geometry_chunk(
    cx: &StepContext<'_>,
    list: &[Contact],
    raw: &mut [RawGeom],
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    kinds(list, |c| c.geom, &mut scratch.kinds);
    for gi in 0..scratch.kinds.len() {
        let g = scratch.kinds[gi];
        let geom = &cx.dispatch.geoms[g as usize];
        pick(list.len(), |i| list[i].geom == g, &mut scratch.picked);
        pairs_of(
            list,
            &scratch.picked,
            &mut scratch.pairs,
            &mut scratch.features,
        );
        // A live contact always gets its geometry, so that its last step can be booked;
        // whether it goes on is decided in the law pass.
        let asked = (&scratch.pairs[..], &scratch.features[..], f64::INFINITY);
        let pair = |k: usize| {
            let c = &list[scratch.picked[k]];
            (c.a, c.b)
        };
        if scratch.picked.len() == list.len() {
            // One functor for the whole chunk (the common case): straight into `raw`.
            call_geometry(cx, geom, asked, None, raw, pair)?;
            continue;
        }
        scratch.out.clear();
        scratch.out.resize(scratch.pairs.len(), RawGeom::default());
        call_geometry(cx, geom, asked, None, &mut scratch.out, pair)?;
        for (k, &i) in scratch.picked.iter().enumerate() {
            raw[i] = scratch.out[k];
        }
    }
    Ok(())
}

/// Where the law pass finds the contacts' geometry.
pub(super) enum Geometry<'r> {
    /// Computed before the pass for every contact (scenes with mesh facets, whose
    /// hand-over needs it).
    Given(&'r [RawGeom]),
    /// Computed in the pass, chunk by chunk, for the contacts that existed before this
    /// step; the new ones (from index `fresh` on) take the detection's, in this order.
    InPass(&'r [(u32, RawGeom)]),
}

/// One chunk of the law pass: its contacts and what goes with them.
struct Work<'w> {
    /// Index of the first contact.
    first: usize,
    list: &'w mut [Contact],
    /// The chunk's block of L6Geom and onset data.
    hot: &'w mut [f64],
    /// The chunk's block of law state (rows of `stride` values).
    state: &'w mut [f64],
    stride: usize,
    total: &'w mut ContactTotals,
    bodies: &'w mut [[u32; 2]],
}

/// Lifecycle, L6Geom and law of every contact; contacts at index `fresh` and beyond were
/// created this step (their L6Geom is new). `hot` and `state` are the contacts' blocks.
/// Fills `out` for the gather.
#[allow(clippy::too_many_arguments)]
pub(super) fn law<'a>(
    cx: &StepContext<'a>,
    list: &mut [Contact],
    geometry: Geometry<'_>,
    hot: &mut Blocks,
    state: &mut Blocks,
    fresh: usize,
    out: &mut Gather,
    buffers: &mut Buffers,
) -> Result<(), DemError> {
    let chunk_count = list.len().div_ceil(CHUNK);
    out.totals.clear();
    out.totals.resize(chunk_count, ContactTotals::default());
    out.bodies.clear();
    out.bodies.resize(list.len(), [NONE; 2]);
    buffers.workers.prepare();
    let stride = state.fields();
    let mut work: Vec<Work<'_>> = recycle(std::mem::take(&mut buffers.work));
    work.extend(
        list.chunks_mut(CHUNK)
            .zip(hot.blocks_mut().zip(state.blocks_mut()))
            .zip(out.totals.iter_mut().zip(out.bodies.chunks_mut(CHUNK)))
            .enumerate()
            .map(|(k, ((list, (hot, state)), (total, bodies)))| Work {
                first: k * CHUNK,
                list,
                hot,
                state,
                stride,
                total,
                bodies,
            }),
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
                if let Err(e) = kept.with(|scratch| law_work(cx, w, &geometry, fresh, scratch)) {
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
    geometry: &Geometry<'_>,
    fresh: usize,
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    let n = w.list.len();
    // Contacts of the chunk that existed before this step.
    let old = fresh.saturating_sub(w.first).min(n);
    match geometry {
        Geometry::Given(raw) => {
            let raw = &raw[w.first..w.first + n];
            law_chunk(cx, w, raw, old, scratch)?;
        }
        Geometry::InPass(new) => {
            // The buffer leaves the scratch while the scratch is in use.
            let mut raw = std::mem::take(&mut scratch.raw);
            raw.clear();
            raw.resize(old, RawGeom::default());
            geometry_chunk(cx, &w.list[..old], &mut raw, scratch)?;
            // The chunk's first new contact is the detection's `skip`-th.
            let skip = (w.first + old).saturating_sub(fresh);
            raw.extend(new[skip..skip + (n - old)].iter().map(|&(_, g)| g));
            let r = law_chunk(cx, w, &raw, old, scratch);
            scratch.raw = raw;
            r?;
        }
    }
    *w.total = finish_chunk(w.list, w.bodies);
    Ok(())
}

/// The ended contacts of a chunk after its law call, and what the gather reads of each contact in
/// `bodies`: the bodies a live contact pushes (body 1, body 2); for one that ended in the
/// step, `[ENDING | a, NONE]`, pushing nothing and booking the dissipation of its last
/// interval to its particle `a`; for a gone one `NONE` twice (nothing).
fn finish_chunk(list: &[Contact], bodies: &mut [[u32; 2]]) -> ContactTotals {
    let mut t = ContactTotals::default();
    for (c, b) in list.iter().zip(bodies) {
        if !c.active() {
            t.ended += 1;
        }
        if c.gone {
            continue;
        }
        if c.ending {
            *b = [ENDING | c.a, NONE];
        } else {
            let (b1, b2) = c.bodies();
            *b = [b1 as u32, b2 as u32];
        }
    }
    t
}

/// Lifecycle: ends contacts the functor no longer reports or whose gap left the band,
/// updates the L6Geom (in the chunk's block `hot`) of the others (those from index `fresh`
/// on are new), four at a time.
fn lifecycle(
    cx: &StepContext<'_>,
    list: &mut [Contact],
    hot: &mut [f64],
    raw: &[RawGeom],
    fresh: usize,
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    let (ks, bodies) = (&mut scratch.ks, &mut scratch.bodies);
    ks.clear();
    bodies.clear();
    bodies.resize(fresh, (0, 0));
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
        bodies[k] = c.bodies();
        blocks::know_quaternion(hot, k);
        let law = &cx.dispatch.laws[c.law as usize];
        if g.gap >= law.distance + cx.eps {
            c.ending = true;
            tracing::debug!(target: "dem::contact", event = "end", a = c.a, b = c.b, t = cx.time, gap = g.gap);
        }
    }
    update_block(hot, ks, raw, bodies, cx.particles, cx.dt, &cx.l6);
    Ok(())
}

fn law_chunk(
    cx: &StepContext<'_>,
    w: &mut Work<'_>,
    raw: &[RawGeom],
    fresh: usize,
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    lifecycle(cx, w.list, w.hot, raw, fresh, scratch)?;
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
        run_law(cx, law, w, raw, scratch)?;
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
    raw: &[RawGeom],
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    let p = cx.particles;
    let picked = &scratch.picked;
    let in_place = picked.len() == w.list.len();
    let columns = &mut scratch.law;
    columns.resize(picked.len(), law.state_len, !in_place);
    for (k, &i) in picked.iter().enumerate() {
        let c = &w.list[i];
        let (b1, b2) = c.bodies();
        columns.write_pair(
            k,
            [p.law_mass(b1), p.law_mass(b2)],
            [p.material[b1], p.material[b2]],
            c.new,
            c.ending,
        );
        if !in_place {
            let (l6, onset) = (blocks::load(w.hot, i), blocks::onset(w.hot, i));
            columns.write_copies(k, &l6, &onset, w.state, w.stride, i);
        }
    }
    let (batch, law_state, out) = if in_place {
        columns.call_in_place(cx.dt, cx.materials, w.hot, (w.state, w.stride))
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

    // Local to global.
    for (k, &i) in picked.iter().enumerate() {
        let c = &mut w.list[i];
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
            c.force = Vector3::zeros();
            c.torque = [Vector3::zeros(); 2];
            c.out = LawOutput {
                friction: w_term * o.friction,
                damping: w_term * o.damping,
                ..LawOutput::default()
            };
            continue;
        }
        if !in_place {
            columns.read_state(k, w.state, w.stride, i);
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
        c.force = f;
        // The force's moments with the lever arms of the L6Geom kinematics.
        let [t1, t2] = crate::l6geom::contact_torques(
            &point,
            &row(0),
            [hot(blocks::LENS), hot(blocks::LENS + 1)],
            [&p.pos[b1], &p.pos[b2]],
            &f,
            &cx.l6,
        );
        c.torque = [t1 - extra, t2 + extra];
        // Forces and energies of this term count `w_term` times; `out` keeps what the
        // ledger books (the law's own force stays in its local frame, unweighted).
        c.out = LawOutput {
            elastic: w_term * o.elastic,
            friction: w_term * o.friction,
            damping: w_term * o.damping,
            ..o
        };
    }
    Ok(())
}
