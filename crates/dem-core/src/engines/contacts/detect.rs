//! Detection of new contacts: the slots without a contact whose bounding volumes are
//! within the law's interaction distance get a geometry call (batched per functor); those
//! the functor reports closer than that distance become contacts this step.

use super::contact::{Slot, NONE};
use super::context::StepContext;
use crate::model::blocks::CHUNK;
use crate::model::particles::Particles;
use crate::support::error::DemError;
use crate::support::team::{FirstError, Parts};
use crate::support::workers::{room, PerWorker};
use dem_api::RawGeom;
use std::ops::Range;

/// False only when the bounding volumes of the slot's particles are farther apart than
/// `distance` (m) by more than a rounding margin; two spheres are compared by squared
/// distance, without a square root.
#[inline(always)]
fn may_touch(p: &Particles, s: &Slot, distance: f64) -> bool {
    let (a, b) = (s.a as usize, s.b as usize);
    if !s.radii.is_nan() {
        let reach = s.radii + distance;
        let reach = reach + 1e-9 * reach.abs();
        return (p.pos[a] - p.pos[b]).norm_squared() <= reach * reach;
    }
    crate::engines::broadphase::bound_gap(p, a, b)
        .is_none_or(|g| g <= distance + 1e-9 * (g.abs() + distance.abs() + 1e-12))
}

/// The slots without a contact that [`may_touch`] (indices into `slots`), into `asked`. A
/// plain loop: the test is inlined into it (as a filter closure it was a call per slot).
/// Compiled for each CPU level, as the integrator's loop (the same bits).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
fn asked_of(
    p: &Particles,
    (slots, held): (&[Slot], &[u32]),
    distance: f64,
    asked: &mut Vec<usize>,
) {
    asked.clear();
    for (i, (s, &h)) in slots.iter().zip(held).enumerate() {
        if h == NONE && may_touch(p, s, distance) {
            asked.push(i);
        }
    }
}

/// Buffers of one worker, reused from chunk to chunk and kept from step to step.
#[derive(Default)]
struct Scratch {
    asked: Vec<usize>,
    pairs: Vec<[u32; 2]>,
    features: Vec<u32>,
    out: Vec<RawGeom>,
    /// The pair caches of the slots asked, gathered.
    cache: Vec<f64>,
    /// The contact state a functor keeps, zero for the pairs asked (dropped after).
    kept: Vec<f64>,
}

impl Scratch {
    /// Room for a full chunk.
    fn room(&mut self) {
        room(&mut self.asked, CHUNK);
        room(&mut self.pairs, CHUNK);
        room(&mut self.features, CHUNK);
        room(&mut self.out, CHUNK);
    }
}

/// The detection's buffers, kept from step to step so that a step allocates nothing.
#[derive(Clone, Default)]
pub(super) struct Buffers(PerWorker<Scratch>);

/// The new contacts of this step: (slot index, geometry), in slot order, into `fresh`.
/// `chunks` are runs of slots of one functor and law, all processed in one parallel loop;
/// `found` holds one list per chunk (buffers kept from step to step). `cache` holds the
/// slots' pair caches, `stride` values each (see [`super::pair_cache`]).
pub(super) fn detect(
    cx: &StepContext<'_>,
    (slots, held): (&[Slot], &[u32]),
    (cache, stride): (&mut [f64], usize),
    chunks: &[Range<usize>],
    found: &mut Vec<Vec<(u32, RawGeom)>>,
    fresh: &mut Vec<(u32, RawGeom)>,
    buffers: &mut Buffers,
) -> Result<(), DemError> {
    fresh.clear();
    buffers.0.prepare();
    let kept = &buffers.0;
    if found.len() < chunks.len() {
        found.resize_with(chunks.len(), Vec::new);
    }
    let outs = Parts::new(&mut found[..chunks.len()]);
    let stride = if cache.len() == slots.len() * stride {
        stride
    } else {
        0
    };
    let caches = Parts::new(cache);
    let first = FirstError::new();
    cx.team.claim_each(chunks.len(), |k| {
        // SAFETY: each chunk is claimed once.
        let out = &mut unsafe { outs.take(k..k + 1) }[0];
        out.clear();
        let r = chunks[k].clone();
        // SAFETY: the chunks' slot ranges are disjoint.
        let cache = unsafe { caches.take(r.start * stride..r.end * stride) };
        let found = kept.with(|scratch| {
            scratch.room();
            let slots = (&slots[r.clone()], &held[r.clone()], r.start);
            detect_chunk(cx, slots, (cache, stride), scratch, out)
        });
        if let Err(e) = found {
            first.keep(k, e);
            return false;
        }
        true
    });
    first.into_result()?;
    for out in &found[..chunks.len()] {
        fresh.extend_from_slice(out);
    }
    Ok(())
}

/// New contacts of one chunk of slots (all of one functor and law) starting at slot
/// index `first`, with their pair caches (`stride` values per slot).
fn detect_chunk(
    cx: &StepContext<'_>,
    (slots, held, first): (&[Slot], &[u32], usize),
    (cache, stride): (&mut [f64], usize),
    scratch: &mut Scratch,
    found: &mut Vec<(u32, RawGeom)>,
) -> Result<(), DemError> {
    let p = cx.particles;
    let geom = &cx.dispatch.geoms[slots[0].geom as usize];
    let law = &cx.dispatch.laws[slots[0].law as usize];
    // Pairs whose bounding volumes are farther apart than the law's interaction distance
    // cannot touch: the functor is not asked (it would report no contact), which spares
    // most calls between the broad phase's rebuilds. The margin keeps rounding in the
    // bound from ever hiding a contact the functor would report.
    asked_of(p, (slots, held), law.distance, &mut scratch.asked);
    if scratch.asked.is_empty() {
        return Ok(());
    }
    scratch.pairs.clear();
    scratch.features.clear();
    for &i in &scratch.asked {
        let (b1, b2) = slots[i].bodies();
        scratch.pairs.push([b1 as u32, b2 as u32]);
        scratch.features.push(u32::from(slots[i].feature));
    }
    scratch.out.clear();
    scratch.out.resize(scratch.pairs.len(), RawGeom::default());
    // The caches of the slots asked, gathered into one block and written back.
    let cached = stride > 0 && geom.cache_len > 0;
    scratch.cache.clear();
    if cached {
        for &i in &scratch.asked {
            scratch
                .cache
                .extend_from_slice(&cache[i * stride..(i + 1) * stride]);
        }
    }
    let asked = (&scratch.pairs[..], &scratch.features[..], law.distance);
    let pair_cache = cached.then_some((&mut scratch.cache[..], stride));
    let asked_slots = &scratch.asked;
    let out = (&mut scratch.kept, &mut scratch.out[..]);
    super::geometry::call_detection(cx, geom, asked, pair_cache, out, |k| {
        let s = &slots[asked_slots[k]];
        (s.a, s.b)
    })?;
    if cached {
        for (k, &i) in scratch.asked.iter().enumerate() {
            cache[i * stride..(i + 1) * stride]
                .copy_from_slice(&scratch.cache[k * stride..(k + 1) * stride]);
        }
    }
    for (k, &i) in scratch.asked.iter().enumerate() {
        let g = &scratch.out[k];
        if g.touching != 0 {
            super::geometry::check(cx, geom, (slots[i].a, slots[i].b), g)?;
            if g.gap < law.distance {
                super::geometry::check_radii(cx, geom, (slots[i].a, slots[i].b), g)?;
                found.push(((first + i) as u32, *g));
            }
        }
    }
    Ok(())
}
