//! The contacts' geometry calls: each functor called once per batch of the pairs it
//! serves (columns of the bodies, rows of results), and what it returns checked before a
//! law sees it. The step's geometry pass, when it runs before the law pass (scenes with
//! mesh facets), and each chunk's calls when it runs inside it (see [`super::step`]).

use super::batch::{call_error, kinds, pick, Buffers, Scratch};
use super::contact::Contact;
use super::context::StepContext;
use crate::engines::dispatch::GeomEntry;
use crate::model::blocks::CHUNK;
use crate::model::blocks::{Blocks, PITCH};
use crate::support::error::DemError;
use crate::support::team::{FirstError, Parts};
use abi_stable::std_types::RResult;
use dem_api::{GeomBatch, RawGeom, StateColumns};

/// Contacts per item of the geometry pass ([`geometry`]): small, so that the workers,
/// each taking the next item when free, finish together even when contacts differ in
/// cost (polyhedra beside walls); a plugin call per item and functor.
const GEOMETRY_CHUNK: usize = 32;

/// The geometry functors' contact state (`Cg2Functor::state_len`) of a run of contacts of
/// one state block: slot `j` of the run's contact `k` is field `offset + j` of the block's
/// contact `first + k` (the functors' slots follow the laws' in the block).
pub(super) struct KeptState<'a> {
    /// The state block.
    pub(super) block: &'a mut [f64],
    /// Field of the block where the functors' slots begin.
    pub(super) offset: usize,
    /// Index in the block of the run's first contact.
    pub(super) first: usize,
}

impl KeptState<'_> {
    /// The run's slots as the columns a functor reads.
    fn columns(&mut self) -> StateColumns<'_> {
        let start = (self.offset * PITCH + self.first).min(self.block.len());
        StateColumns {
            values: (&mut self.block[start..]).into(),
            item_stride: 1,
            slot_stride: PITCH as u64,
        }
    }

    /// Slot `j` of the run's contact `k`.
    fn at(&mut self, k: usize, j: usize) -> &mut f64 {
        &mut self.block[(self.offset + j) * PITCH + self.first + k]
    }
}

/// No slots.
fn none<'a>() -> StateColumns<'a> {
    StateColumns {
        values: (&mut [][..]).into(),
        item_stride: 1,
        slot_stride: 1,
    }
}

/// Calls `geom` on the pairs of particles `pairs` (body 1, body 2) and their terms
/// `features`, asking for the gap below `distance`, with the pairs' caches `cache`
/// (values, values per pair) and the contacts' state `state`, if any (see
/// [`super::pair_cache`], [`KeptState`]); on failure names the pair `pair(k)` of the
/// failing item.
pub(super) fn call_geometry(
    cx: &StepContext<'_>,
    geom: &GeomEntry,
    (pairs, features, distance): (&[[u32; 2]], &[u32], f64),
    (cache, state): (Option<(&mut [f64], usize)>, Option<StateColumns<'_>>),
    out: &mut [RawGeom],
    pair: impl Fn(usize) -> (u32, u32),
) -> Result<(), DemError> {
    let batch = GeomBatch {
        bodies: cx.bodies,
        pairs: pairs.into(),
        features: features.into(),
        distance,
    };
    let cache = match cache {
        Some((values, stride)) if geom.cache_len > 0 && stride >= geom.cache_len => {
            Some(StateColumns {
                values: values.into(),
                item_stride: stride as u64,
                slot_stride: 1,
            })
        }
        _ => None,
    };
    let state = state.filter(|_| geom.state_len > 0);
    let result = if cache.is_none() && state.is_none() {
        geom.functor.geom_batch(&batch, out.into())
    } else {
        let (cache, state) = (cache.unwrap_or_else(none), state.unwrap_or_else(none));
        geom.functor
            .geom_batch_kept(&batch, cache, state, out.into())
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

/// Calls `geom` on pairs that are not contacts yet (the detection's): their contact state,
/// if the functor keeps one, starts at zero and is dropped after the call.
pub(super) fn call_detection(
    cx: &StepContext<'_>,
    geom: &GeomEntry,
    asked: (&[[u32; 2]], &[u32], f64),
    cache: Option<(&mut [f64], usize)>,
    (kept, out): (&mut Vec<f64>, &mut [RawGeom]),
    pair: impl Fn(usize) -> (u32, u32),
) -> Result<(), DemError> {
    let n = geom.state_len;
    let state = (n > 0).then(|| {
        kept.clear();
        kept.resize(asked.0.len() * n, 0.0);
        StateColumns {
            values: (&mut kept[..]).into(),
            item_stride: n as u64,
            slot_stride: 1,
        }
    });
    call_geometry(cx, geom, asked, (cache, state), out, pair)
}

/// Fails unless a reported geometry is finite, with a unit normal and a finite non-zero
/// weight. The usual case, inlined, is one test; the rest is out of line.
#[inline(always)]
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
    check_terms(cx, geom, pair, g, n2)
}

/// [`check`] term by term, when the one test failed.
#[cold]
#[inline(never)]
fn check_terms(
    cx: &StepContext<'_>,
    geom: &GeomEntry,
    pair: (u32, u32),
    g: &RawGeom,
    n2: f64,
) -> Result<(), DemError> {
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

/// Fails unless a new contact's radii are positive: finite and above zero, or infinite
/// (a flat body). Checked once, when the contact begins (new contacts are few, so this
/// is off the per-step path): a radius of zero or NaN would make a law whose stiffness
/// grows with the radius push with no force, or with NaN, and the time step would not
/// know of it.
pub(super) fn check_radii(
    cx: &StepContext<'_>,
    geom: &GeomEntry,
    pair: (u32, u32),
    g: &RawGeom,
) -> Result<(), DemError> {
    // A comparison with NaN is false.
    if g.radius1 > 0.0 && g.radius2 > 0.0 {
        return Ok(());
    }
    let (r1, r2) = (g.radius1, g.radius2);
    let message = format!(
        "reported the radii ({r1}, {r2}) m for a new contact: each must be above zero (or \
         infinite, for a flat body)"
    );
    Err(call_error(cx, pair, &geom.plugin, &geom.name, message))
}

/// Most runs of one functor for which a chunk's geometry is called run by run (beyond,
/// the contacts of each functor are copied together for one call).
const MAX_RUNS: usize = 32;

/// The bounds of the runs of contacts of one functor in `list` (not empty): `0` and the
/// end of each run, into `bounds`, if there are at most `most` runs.
fn runs_of<'b>(list: &[Contact], most: usize, bounds: &'b mut Vec<usize>) -> Option<&'b [usize]> {
    bounds.clear();
    bounds.push(0);
    for (k, w) in list.windows(2).enumerate() {
        if w[0].geom != w[1].geom {
            if bounds.len() > most {
                return None;
            }
            bounds.push(k + 1);
        }
    }
    bounds.push(list.len());
    Some(bounds)
}

/// The bodies (body 1, body 2) and terms of every contact of `list`, into `pairs` and
/// `features`: read once per chunk, by the geometry call and by every stage after it.
pub(super) fn pairs_of(list: &[Contact], pairs: &mut Vec<[u32; 2]>, features: &mut Vec<u32>) {
    pairs.clear();
    features.clear();
    pairs.extend(list.iter().map(|c| {
        let (b1, b2) = c.bodies();
        [b1 as u32, b2 as u32]
    }));
    features.extend(list.iter().map(|c| u32::from(c.feature)));
}

/// Geometry of every contact (all live at this point) into `raw`, in items of
/// [`GEOMETRY_CHUNK`] contacts taken by the next free worker (each contact's geometry is
/// its own: the same for any split). `state` holds the contacts' state blocks, in which
/// the functors' contact state begins at field `offset`; when a functor keeps one, the
/// items are the blocks' chunks of [`CHUNK`] contacts, so that each writes its own block.
pub(super) fn geometry(
    cx: &StepContext<'_>,
    list: &[Contact],
    raw: &mut [RawGeom],
    (state, offset): (&mut Blocks, usize),
    buffers: &mut Buffers,
) -> Result<(), DemError> {
    buffers.workers.prepare();
    let buffers = &*buffers;
    let item = if cx.dispatch.geom_state_len() > 0 {
        CHUNK
    } else {
        GEOMETRY_CHUNK
    };
    let chunks = list.len().div_ceil(item);
    let raws = Parts::new(raw);
    let block_len = state.block_len();
    let blocks = Parts::new(state.values_mut());
    let first = FirstError::new();
    cx.team.claim_each(chunks, |k| {
        let r = k * item..((k + 1) * item).min(list.len());
        // SAFETY: each chunk is claimed once.
        let raw = unsafe { raws.take(r.clone()) };
        // The block of the item; an item of `CHUNK` is a whole block, whose workers are
        // thus disjoint. Smaller items (no functor keeps a state) never touch it.
        let b = r.start / CHUNK * block_len;
        let kept = (item == CHUNK).then(|| KeptState {
            // SAFETY: as above, with one item per block.
            block: unsafe { blocks.take(b..b + block_len) },
            offset,
            first: 0,
        });
        let list = &list[r];
        let chunk = |scratch: &mut Scratch| {
            let (mut pairs, mut features) = scratch.take_pairs();
            pairs_of(list, &mut pairs, &mut features);
            let done = geometry_chunk(cx, list, (&pairs, &features), raw, kept, scratch);
            scratch.put_pairs(pairs, features);
            done
        };
        if let Err(e) = buffers.with(chunk) {
            first.keep(k, e);
            return false;
        }
        true
    });
    first.into_result()
}

/// Geometry of the contacts `list` into `raw`, each functor called once on the contacts
/// it serves; `bodies` holds their bodies and terms (see [`pairs_of`]), `state` their
/// contact state (needed when a functor keeps one).
pub(super) fn geometry_chunk(
    cx: &StepContext<'_>,
    list: &[Contact],
    (pairs, features): (&[[u32; 2]], &[u32]),
    raw: &mut [RawGeom],
    mut state: Option<KeptState<'_>>,
    scratch: &mut Scratch,
) -> Result<(), DemError> {
    let (pairs, features) = (&pairs[..list.len()], &features[..list.len()]);
    kinds(list, |c| c.geom, &mut scratch.kinds);
    // A live contact always gets its geometry, so that its last step can be booked;
    // whether it goes on is decided in the law pass.
    if let [g] = scratch.kinds[..] {
        // One functor for the whole chunk (the common case): straight into `raw`, with
        // the state in place.
        let geom = &cx.dispatch.geoms[g as usize];
        let pair = |k: usize| (list[k].a, list[k].b);
        let kept = state.as_mut().map(KeptState::columns);
        let asked = (pairs, features, f64::INFINITY);
        return call_geometry(cx, geom, asked, (None, kept), raw, pair);
    }
    // A few runs of one functor each (the usual mixed chunk: the contacts created and
    // moved since the last rebuild break the slot order here and there): one call per run,
    // straight into `raw` with the state in place, no copies.
    if list.is_empty() {
        return Ok(());
    }
    if let Some(runs) = runs_of(list, MAX_RUNS, &mut scratch.picked) {
        for r in runs.windows(2) {
            let (start, run) = (r[0], r[0]..r[1]);
            let geom = &cx.dispatch.geoms[list[start].geom as usize];
            let pair = |k: usize| (list[start + k].a, list[start + k].b);
            let mut kept = state.as_mut().map(|s| KeptState {
                block: &mut *s.block,
                offset: s.offset,
                first: s.first + start,
            });
            let asked = (&pairs[run.clone()], &features[run.clone()], f64::INFINITY);
            let columns = kept.as_mut().map(KeptState::columns);
            call_geometry(cx, geom, asked, (None, columns), &mut raw[run], pair)?;
        }
        return Ok(());
    }
    for gi in 0..scratch.kinds.len() {
        let g = scratch.kinds[gi];
        let geom = &cx.dispatch.geoms[g as usize];
        pick(list.len(), |i| list[i].geom == g, &mut scratch.picked);
        scratch.pairs.clear();
        scratch.features.clear();
        for &i in &scratch.picked {
            scratch.pairs.push(pairs[i]);
            scratch.features.push(features[i]);
        }
        // The picked contacts' state, as rows, written back after the call.
        let n = geom.state_len;
        let kept = state.as_mut().filter(|_| n > 0);
        let rows = kept.map(|s| {
            scratch.kept.clear();
            for &i in &scratch.picked {
                scratch.kept.extend((0..n).map(|j| *s.at(i, j)));
            }
            StateColumns {
                values: (&mut scratch.kept[..]).into(),
                item_stride: n as u64,
                slot_stride: 1,
            }
        });
        let asked = (&scratch.pairs[..], &scratch.features[..], f64::INFINITY);
        let pair = |k: usize| {
            let c = &list[scratch.picked[k]];
            (c.a, c.b)
        };
        super::batch::unwritten(&mut scratch.out, scratch.pairs.len());
        call_geometry(cx, geom, asked, (None, rows), &mut scratch.out, pair)?;
        for (k, &i) in scratch.picked.iter().enumerate() {
            raw[i] = scratch.out[k];
        }
        if let Some(s) = state.as_mut().filter(|_| n > 0) {
            for (k, &i) in scratch.picked.iter().enumerate() {
                for j in 0..n {
                    *s.at(i, j) = scratch.kept[k * n + j];
                }
            }
        }
    }
    Ok(())
}
