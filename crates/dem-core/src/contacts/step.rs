//! One step of the live contacts: their geometry calls (batched per functor), then
//! lifecycle, L6Geom update, law call (batched per law) and the conversion of the law's
//! output to global forces. Geometry and law run in one pass over chunks of the contact
//! list in parallel (two passes when the hand-over of mesh contacts needs the geometry
//! between them); each contact is written only by the worker of its chunk.

use super::{kin, Contact, ContactTotals, Gather, StepContext, CHUNK, NONE};
use crate::dispatch::{GeomEntry, LawEntry};
use crate::error::DemError;
use crate::parallel::run_len;
use crate::particles::Particles;
use crate::workers::{recycle, room, PerWorker};
use abi_stable::std_types::RResult;
use dem_api::{BodyView, GeomInput, LawInput, LawOutput, LawPair, Quat, RawGeom};
use nalgebra::Vector3;
use rayon::prelude::*;

/// Body `i` as a geometry functor sees it (inlined, so that the record is written
/// straight into the batch rather than copied there).
#[inline(always)]
pub(super) fn view(p: &Particles, i: usize) -> BodyView<'_> {
    BodyView {
        pos: p.pos[i].into(),
        ori: Quat::from(p.ori[i]),
        vel: p.vel[i].into(),
        angvel: p.angvel[i].into(),
        shape: p.shape[i].view(),
    }
}

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

/// Calls `geom` on a batch; on failure names the pair `pair(k)` of the failing item.
pub(super) fn call_geometry(
    cx: &StepContext<'_>,
    geom: &GeomEntry,
    inputs: &[GeomInput<'_>],
    out: &mut [RawGeom],
    pair: impl Fn(usize) -> (u32, u32),
) -> Result<(), DemError> {
    if let RResult::RErr(e) = geom.functor.geom_batch(inputs.into(), out.into()) {
        let k = (e.index as usize).min(inputs.len() - 1);
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
pub(super) struct Scratch<'a> {
    kinds: Vec<u16>,
    picked: Vec<usize>,
    inputs: Vec<GeomInput<'a>>,
    out: Vec<RawGeom>,
    law_inputs: Vec<LawInput>,
    law_state: Vec<f64>,
    outs: Vec<LawOutput>,
    /// The chunk's geometry when the law pass computes it.
    raw: Vec<RawGeom>,
}

impl<'a> Scratch<'a> {
    /// The same buffers for borrows of another lifetime (the plugin inputs are emptied),
    /// with room for a full chunk of a law with `stride` state values (growing them item
    /// by item cost more than the law).
    fn reuse<'b>(self, stride: usize) -> Scratch<'b> {
        let mut s = Scratch {
            kinds: self.kinds,
            picked: self.picked,
            inputs: recycle(self.inputs),
            out: self.out,
            law_inputs: self.law_inputs,
            law_state: self.law_state,
            outs: self.outs,
            raw: self.raw,
        };
        room(&mut s.kinds, 4);
        room(&mut s.picked, CHUNK);
        room(&mut s.inputs, CHUNK);
        room(&mut s.out, CHUNK);
        room(&mut s.law_inputs, CHUNK);
        room(&mut s.law_state, CHUNK * stride);
        room(&mut s.outs, CHUNK);
        room(&mut s.raw, CHUNK);
        s
    }
}

/// What the geometry and law passes keep from step to step, so that a step allocates
/// nothing: each worker's buffers and the list of the law pass's chunks.
#[derive(Default)]
pub(super) struct Buffers {
    workers: PerWorker<Scratch<'static>>,
    work: Vec<Work<'static>>,
}

/// A copy starts without buffers.
impl Clone for Buffers {
    fn clone(&self) -> Self {
        Buffers::default()
    }
}

impl Buffers {
    /// Runs `f` with the calling worker's scratch, as one for borrows of `'a`.
    fn with<'a, R>(&self, stride: usize, f: impl FnOnce(&mut Scratch<'a>) -> R) -> R {
        self.workers.with(|kept| {
            let mut scratch = std::mem::take(kept).reuse(stride);
            let r = f(&mut scratch);
            *kept = scratch.reuse(stride);
            r
        })
    }
}

/// Geometry of every contact (all live at this point) into `raw`.
pub(super) fn geometry(
    cx: &StepContext<'_>,
    list: &[Contact],
    raw: &mut [RawGeom],
    buffers: &mut Buffers,
) -> Result<(), DemError> {
    buffers.workers.prepare();
    let buffers = &*buffers;
    list.par_chunks(CHUNK)
        .zip(raw.par_chunks_mut(CHUNK))
        .with_min_len(run_len(list.len().div_ceil(CHUNK)))
        .try_for_each(|(chunk, raw)| {
            buffers.with(0, |scratch| geometry_chunk(cx, chunk, raw, scratch))
        })
}

fn geometry_chunk<'a>(
    cx: &StepContext<'a>,
    list: &[Contact],
    raw: &mut [RawGeom],
    scratch: &mut Scratch<'a>,
) -> Result<(), DemError> {
    let p = cx.particles;
    kinds(list, |c| c.geom, &mut scratch.kinds);
    for gi in 0..scratch.kinds.len() {
        let g = scratch.kinds[gi];
        let geom = &cx.dispatch.geoms[g as usize];
        pick(list.len(), |i| list[i].geom == g, &mut scratch.picked);
        scratch.inputs.clear();
        // A live contact always gets its geometry, so that its last step can be booked;
        // whether it goes on is decided in the law pass.
        scratch.inputs.extend(scratch.picked.iter().map(|&i| {
            let (b1, b2) = list[i].bodies();
            GeomInput {
                b1: view(p, b1),
                b2: view(p, b2),
                distance: f64::INFINITY,
                feature: u32::from(list[i].feature),
            }
        }));
        let pair = |k: usize| {
            let c = &list[scratch.picked[k]];
            (c.a, c.b)
        };
        if scratch.picked.len() == list.len() {
            // One functor for the whole chunk (the common case): straight into `raw`.
            call_geometry(cx, geom, &scratch.inputs, raw, pair)?;
            continue;
        }
        scratch.out.clear();
        scratch.out.resize(scratch.inputs.len(), RawGeom::default());
        call_geometry(cx, geom, &scratch.inputs, &mut scratch.out, pair)?;
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
    state: &'w mut [f64],
    total: &'w mut ContactTotals,
    bodies: &'w mut [[u32; 2]],
}

/// Lifecycle, L6Geom and law of every contact; contacts at index `fresh` and beyond were
/// created this step (their L6Geom is new). Fills `out` for the gather.
#[allow(clippy::too_many_arguments)]
pub(super) fn law<'a>(
    cx: &StepContext<'a>,
    list: &mut [Contact],
    geometry: Geometry<'_>,
    state: &mut [f64],
    stride: usize,
    fresh: usize,
    out: &mut Gather,
    buffers: &mut Buffers,
) -> Result<(), DemError> {
    let chunk_count = list.len().div_ceil(CHUNK);
    out.totals.clear();
    out.totals.resize(chunk_count, ContactTotals::default());
    out.bodies.clear();
    out.bodies.resize(list.len(), [NONE; 2]);
    // Law state chunks line up with contact chunks (none without state).
    let mut states = state.chunks_mut(CHUNK * stride.max(1));
    buffers.workers.prepare();
    let mut work: Vec<Work<'_>> = recycle(std::mem::take(&mut buffers.work));
    work.extend(
        list.chunks_mut(CHUNK)
            .zip(out.totals.iter_mut().zip(out.bodies.chunks_mut(CHUNK)))
            .enumerate()
            .map(|(k, (list, (total, bodies)))| Work {
                first: k * CHUNK,
                list,
                state: states.next().unwrap_or_default(),
                total,
                bodies,
            }),
    );
    let kept = &*buffers;
    let result = work
        .par_iter_mut()
        .with_min_len(run_len(chunk_count))
        .try_for_each(|w| {
            kept.with(stride, |scratch| {
                law_work(cx, w, &geometry, stride, fresh, scratch)
            })
        });
    buffers.work = recycle(work);
    result
}

/// The law pass on one chunk (see [`law`]).
fn law_work<'a>(
    cx: &StepContext<'a>,
    w: &mut Work<'_>,
    geometry: &Geometry<'_>,
    stride: usize,
    fresh: usize,
    scratch: &mut Scratch<'a>,
) -> Result<(), DemError> {
    let n = w.list.len();
    // Contacts of the chunk that existed before this step.
    let old = fresh.saturating_sub(w.first).min(n);
    match geometry {
        Geometry::Given(raw) => {
            let raw = &raw[w.first..w.first + n];
            law_chunk(cx, w.list, raw, w.state, stride, old, scratch)?;
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
            let r = law_chunk(cx, w.list, &raw, w.state, stride, old, scratch);
            scratch.raw = raw;
            r?;
        }
    }
    *w.total = finish_chunk(w.list, w.bodies);
    Ok(())
}

/// Energies and live count of a chunk after its law call (an ended contact books the
/// dissipation of its last interval, a gone one nothing), and the bodies each live
/// contact pushes (body 1, body 2) into `bodies`.
fn finish_chunk(list: &[Contact], bodies: &mut [[u32; 2]]) -> ContactTotals {
    let mut t = ContactTotals::default();
    for (c, b) in list.iter().zip(bodies) {
        if !c.active() {
            t.ended += 1;
        }
        if c.gone {
            continue;
        }
        t.elastic += c.out.elastic;
        t.friction += c.out.friction;
        t.damping += c.out.damping;
        if !c.ending {
            t.active += 1;
            let (b1, b2) = c.bodies();
            *b = [b1 as u32, b2 as u32];
        }
    }
    t
}

/// Lifecycle: ends contacts the functor no longer reports or whose gap left the band,
/// updates the L6Geom of the others (those from index `fresh` on are new).
fn lifecycle(
    cx: &StepContext<'_>,
    list: &mut [Contact],
    raw: &[RawGeom],
    fresh: usize,
) -> Result<(), DemError> {
    let p = cx.particles;
    for (c, g) in list.iter_mut().zip(raw).take(fresh) {
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
        let law = &cx.dispatch.laws[c.law as usize];
        let (b1, b2) = c.bodies();
        c.l6.update(g, &kin(p, b1), &kin(p, b2), cx.dt, &cx.l6);
        if g.gap >= law.distance + cx.eps {
            c.ending = true;
            tracing::debug!(target: "dem::contact", event = "end", a = c.a, b = c.b, t = cx.time, gap = g.gap);
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn law_chunk(
    cx: &StepContext<'_>,
    list: &mut [Contact],
    raw: &[RawGeom],
    state: &mut [f64],
    stride: usize,
    fresh: usize,
    scratch: &mut Scratch<'_>,
) -> Result<(), DemError> {
    lifecycle(cx, list, raw, fresh)?;
    kinds(list, |c| c.law, &mut scratch.kinds);
    for li in 0..scratch.kinds.len() {
        let l = scratch.kinds[li];
        let law = &cx.dispatch.laws[l as usize];
        let keep = |i: usize| list[i].law == l && !list[i].gone;
        pick(list.len(), keep, &mut scratch.picked);
        if scratch.picked.is_empty() {
            continue;
        }
        run_law(cx, law, list, raw, state, stride, scratch)?;
    }
    Ok(())
}

/// Calls `law` on the picked contacts of a chunk and turns its output into global forces.
fn run_law(
    cx: &StepContext<'_>,
    law: &LawEntry,
    list: &mut [Contact],
    raw: &[RawGeom],
    state: &mut [f64],
    stride: usize,
    scratch: &mut Scratch<'_>,
) -> Result<(), DemError> {
    let p = cx.particles;
    let n = law.state_len;
    scratch.law_inputs.clear();
    // Written field by field in place: a record built aside (as an iterator's `map`
    // does) was copied into the batch by a `memcpy` call per contact.
    scratch
        .law_inputs
        .resize(scratch.picked.len(), LawInput::default());
    for (input, &i) in scratch.law_inputs.iter_mut().zip(&scratch.picked) {
        let c = &list[i];
        let (b1, b2) = c.bodies();
        c.l6.write_api(&mut input.geom);
        input.pair = LawPair {
            radius: c.l6.lens,
            mass: [p.law_mass(b1), p.law_mass(b2)],
            material: [
                cx.materials[p.material[b1] as usize],
                cx.materials[p.material[b2] as usize],
            ],
        };
        input.onset = c.onset;
        input.dt = cx.dt;
        input.is_new = c.new as u32;
        input.is_last = c.ending as u32;
    }
    // When the law takes every contact of the chunk and fills the whole stride, it works
    // on the chunk's state in place (the common case); else on a gathered copy. (In place,
    // a contact that ends has its state updated too: it is dropped next step anyway.)
    let in_place = scratch.picked.len() == list.len() && n == stride;
    if !in_place {
        scratch.law_state.clear();
        for &i in &scratch.picked {
            scratch
                .law_state
                .extend_from_slice(&state[i * stride..i * stride + n]);
        }
    }
    scratch.outs.clear();
    scratch
        .outs
        .resize(scratch.picked.len(), LawOutput::default());
    let law_state = if in_place {
        &mut state[..]
    } else {
        scratch.law_state.as_mut_slice()
    };
    if let RResult::RErr(e) = law.law.law_batch(
        scratch.law_inputs.as_slice().into(),
        law_state.into(),
        scratch.outs.as_mut_slice().into(),
    ) {
        let c = &list[scratch.picked[(e.index as usize).min(scratch.picked.len() - 1)]];
        return Err(call_error(
            cx,
            (c.a, c.b),
            &law.plugin,
            &law.name,
            e.message.to_string(),
        ));
    }

    // Local to global.
    for (k, &i) in scratch.picked.iter().enumerate() {
        let c = &mut list[i];
        let o = scratch.outs[k];
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
        let w = raw[i].weight;
        if c.ending {
            // The contact is over: only the dissipation of its last interval counts.
            c.force = Vector3::zeros();
            c.torque = [Vector3::zeros(); 2];
            c.out = LawOutput {
                friction: w * o.friction,
                damping: w * o.damping,
                ..LawOutput::default()
            };
            continue;
        }
        if !in_place {
            state[i * stride..i * stride + n]
                .copy_from_slice(&scratch.law_state[k * n..(k + 1) * n]);
        }
        let tt = c.l6.frame.transpose();
        let f = tt * o.force.na() * w;
        let extra = tt * o.torque.na() * w;
        let (b1, b2) = c.bodies();
        let point = c.l6.point;
        c.force = f;
        c.torque = [
            (point - p.pos[b1]).cross(&(-f)) - extra,
            (point - p.pos[b2]).cross(&f) + extra,
        ];
        // Forces and energies of this term count `w` times; `out` keeps what the ledger
        // books (the law's own force stays in its local frame, unweighted).
        c.out = LawOutput {
            elastic: w * o.elastic,
            friction: w * o.friction,
            damping: w * o.damping,
            ..o
        };
    }
    Ok(())
}
