//! Adapters from the per-contact SDK traits to the batched ABI traits, with panic capture.

use super::lanes::{run_lanes, MAX_SLOTS};
use super::params::{default_text, parse_params};
use super::{prefetch, Geometry, LaneLaw, Law, Param, Slots};
use crate::batch::{GeomBatch, LawBatch, LawOutColumns, StateColumns, FLAG_NEW, FLAG_REFRESH};
use crate::functor::{
    CallError, Cg2Box, Cg2Functor, Cg2Functor_TO, ContactLaw, ContactLaw_TO, LawBox,
};
use crate::geom::RawGeom;
use crate::law::LawPair;
use crate::reads::{GeomReads, LawReads};
use crate::root::{FunctorInfo, FunctorRole, ParamDoc};
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RBox, RErr, ROk, RResult, RSliceMut, RString, RVec};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

struct GeometryAdapter<G>(G);
struct LawAdapter<L>(L);
/// A [`LaneLaw`]: the batch runs four contacts at a time.
struct LaneAdapter<L>(LawAdapter<L>);

/// Runs `body` with panics turned into a [`CallError`] naming the item being processed.
fn guarded(body: impl FnOnce(&Cell<usize>)) -> RResult<(), CallError> {
    let current = Cell::new(usize::MAX);
    match catch_unwind(AssertUnwindSafe(|| body(&current))) {
        Ok(()) => ROk(()),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".to_string());
            RErr(CallError {
                index: current.get() as u64,
                message: format!("panicked: {what}").into(),
            })
        }
    }
}

/// Runs a method returning one number; a panic is logged and becomes NaN, which the
/// solver refuses with the law's name.
fn scalar(law: &str, method: &str, f: impl FnOnce() -> f64) -> f64 {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        tracing::error!("{law}::{method} panicked");
        f64::NAN
    })
}

impl<G: Geometry> Cg2Functor for GeometryAdapter<G> {
    fn features(&self) -> u32 {
        catch_unwind(AssertUnwindSafe(|| self.0.features())).unwrap_or_else(|_| {
            tracing::error!("{}::features panicked", G::NAME);
            0
        })
    }

    fn geom_batch(
        &self,
        batch: &GeomBatch<'_>,
        out: RSliceMut<'_, RawGeom>,
    ) -> RResult<(), CallError> {
        self.terms(batch, out, |_, b1, b2, distance, feature| {
            self.0.try_term(b1, b2, distance, feature)
        })
    }

    fn cache_len(&self) -> u32 {
        G::CACHE_LEN as u32
    }

    fn state_len(&self) -> u32 {
        G::STATE_LEN as u32
    }

    fn reads(&self) -> GeomReads {
        G::READS
    }

    fn geom_batch_kept(
        &self,
        batch: &GeomBatch<'_>,
        mut cache: StateColumns<'_>,
        mut state: StateColumns<'_>,
        out: RSliceMut<'_, RawGeom>,
    ) -> RResult<(), CallError> {
        let (k, s) = (G::CACHE_LEN, G::STATE_LEN);
        if k == 0 && s == 0 {
            return self.geom_batch(batch, out);
        }
        if !cache.fits(batch.len(), k) || !state.fits(batch.len(), s) {
            return RErr(malformed("pairs, cache and state"));
        }
        if k > LOCAL_SLOTS || s > LOCAL_SLOTS {
            return RErr(CallError {
                index: u64::MAX,
                message: format!(
                    "a pair cache of {k} and a contact state of {s} slots (at most \
                     {LOCAL_SLOTS} each)"
                )
                .into(),
            });
        }
        let mut local = [[0.0; LOCAL_SLOTS]; 2];
        let [mine, kept] = &mut local;
        self.terms(batch, out, |i, b1, b2, distance, feature| {
            let (row, own) = (&mut mine[..k], &mut kept[..s]);
            read_row(&cache, i, row);
            read_row(&state, i, own);
            let found = self.0.try_term_kept(b1, b2, distance, feature, row, own);
            write_row(&mut cache, i, row);
            write_row(&mut state, i, own);
            found
        })
    }
}

/// The slots of item `i` of `c` into `row`.
#[inline(always)]
fn read_row(c: &StateColumns<'_>, i: usize, row: &mut [f64]) {
    for (j, s) in row.iter_mut().enumerate() {
        *s = c.values[c.index(i, j)];
    }
}

/// `row` into the slots of item `i` of `c`.
#[inline(always)]
fn write_row(c: &mut StateColumns<'_>, i: usize, row: &[f64]) {
    for (j, &s) in row.iter().enumerate() {
        let at = c.index(i, j);
        c.values[at] = s;
    }
}

impl<G: Geometry> GeometryAdapter<G> {
    /// Runs `term(i, b1, b2, distance, feature)` on every pair `i` of `batch` into `out`,
    /// with the checks of the batch and the capture of panics and errors.
    fn terms(
        &self,
        batch: &GeomBatch<'_>,
        mut out: RSliceMut<'_, RawGeom>,
        mut term: impl FnMut(
            usize,
            &crate::BodyView<'_>,
            &crate::BodyView<'_>,
            f64,
            u32,
        ) -> Result<Option<RawGeom>, String>,
    ) -> RResult<(), CallError> {
        let n = batch.len();
        if out.len() != n || batch.features.len() != n || !batch.bodies.consistent() {
            return RErr(malformed("pairs, features, particle columns and output"));
        }
        let mut failure = None;
        let result = guarded(|current| {
            failure = each_pair::<G, _>(batch, &mut out, &mut term, current);
        });
        match (result, failure) {
            (ROk(()), Some(e)) => RErr(e),
            (r, _) => r,
        }
    }
}

/// The loop of [`GeometryAdapter::terms`]: `term` on every pair of `batch` into `out`
/// (`current` the pair being computed, for a panic's message); the first failure.
/// Compiled for each CPU level as well as the baseline, so that a functor's arithmetic,
/// inlined here, gets the CPU's three-operand instructions (the same IEEE operations in
/// the same order on every level: the same bits).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
fn each_pair<G, F>(
    batch: &GeomBatch<'_>,
    out: &mut [RawGeom],
    term: &mut F,
    current: &Cell<usize>,
) -> Option<CallError>
where
    G: Geometry,
    F: FnMut(
        usize,
        &crate::BodyView<'_>,
        &crate::BodyView<'_>,
        f64,
        u32,
    ) -> Result<Option<RawGeom>, String>,
{
    for (i, o) in out.iter_mut().enumerate() {
        current.set(i);
        ask_ahead::<G>(batch, i + AHEAD);
        let Some((b1, b2)) = batch.bodies(i) else {
            return Some(CallError {
                index: i as u64,
                message: "a particle index outside the particle columns".into(),
            });
        };
        let feature = batch.features[i];
        *o = match term(i, &b1, &b2, batch.distance, feature) {
            Ok(Some(g)) => RawGeom { touching: 1, ..g },
            Ok(None) => RawGeom::default(),
            Err(message) => {
                return Some(CallError {
                    index: i as u64,
                    message: message.into(),
                });
            }
        };
    }
    None
}

/// How many pairs ahead the geometry loop asks for their bodies (see
/// [`super::prefetch`](mod@super::prefetch)).
const AHEAD: usize = 8;

/// Asks for what the functor `G` reads of the bodies of pair `i`, if there is one: their
/// positions and shapes, and their orientations and velocities if it declares them.
#[inline(always)]
fn ask_ahead<G: Geometry>(batch: &GeomBatch<'_>, i: usize) {
    let Some(&pair) = batch.pairs.get(i) else {
        return;
    };
    let b = &batch.bodies;
    for (k, p) in pair.into_iter().enumerate() {
        let p = p as usize;
        prefetch(b.pos.as_ptr().wrapping_add(p));
        prefetch(b.shape.as_ptr().wrapping_add(p));
        if G::READS.contains(GeomReads::orientation(k)) {
            prefetch(b.ori.as_ptr().wrapping_add(p));
        }
        if G::READS.contains(GeomReads::VELOCITY) {
            prefetch(b.vel.as_ptr().wrapping_add(p));
            prefetch(b.angvel.as_ptr().wrapping_add(p));
        }
    }
}

/// The error of a batch whose columns do not fit together.
fn malformed(what: &str) -> CallError {
    CallError {
        index: u64::MAX,
        message: format!("malformed batch: the lengths of the {what} differ").into(),
    }
}

/// Slots of one contact on the stack, for laws with at most this many.
const LOCAL_SLOTS: usize = 64;

impl<L: Law> ContactLaw for LawAdapter<L> {
    fn state_len(&self) -> u32 {
        (L::Constants::LEN + L::STATE_LEN) as u32
    }

    fn reads(&self) -> LawReads {
        L::READS
    }

    fn interaction_distance(&self) -> f64 {
        scalar(L::NAME, "interaction_distance", || {
            self.0.interaction_distance()
        })
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        scalar(L::NAME, "stiffness", || self.0.stiffness(pair))
    }

    fn law_batch(
        &self,
        batch: &LawBatch<'_>,
        mut state: StateColumns<'_>,
        mut out: LawOutColumns<'_>,
    ) -> RResult<(), CallError> {
        let k = L::Constants::LEN;
        let n = k + L::STATE_LEN;
        let len = batch.len();
        let Some(view) = batch.view_with(&state, &out, n) else {
            return RErr(malformed("contact columns, state and output"));
        };
        let rows = state.slot_stride == 1;
        // One contact's slots, gathered from the column layout and written back.
        let mut local = [0.0; LOCAL_SLOTS];
        let mut heap = Vec::new();
        let gathered: &mut [f64] = if rows {
            &mut []
        } else if n <= LOCAL_SLOTS {
            &mut local[..n]
        } else {
            heap.resize(n, 0.0);
            &mut heap
        };
        let mut unstable = None;
        let result = guarded(|current| {
            for i in 0..len {
                current.set(i);
                let slots: &mut [f64] = if rows {
                    // `fits` holds: the row is in range.
                    let start = state.index(i, 0);
                    &mut state.values[start..start + n]
                } else {
                    for (j, s) in gathered.iter_mut().enumerate() {
                        *s = state.values[state.index(i, j)];
                    }
                    &mut *gathered
                };
                let inp = view.input(i);
                let (consts, own) = slots.split_at_mut(k);
                // New contacts, and those whose law or materials changed, compute their constants.
                let c = if view.flags(i) & (FLAG_NEW | FLAG_REFRESH) != 0 {
                    let c = self.0.constants(&inp);
                    c.store(consts);
                    c
                } else {
                    L::Constants::load(consts)
                };
                out.set(i, &self.0.law(&inp, &c, own));
                let stable = self.0.stable_step(&inp, &c, own);
                if !rows {
                    for (j, &s) in gathered.iter().enumerate() {
                        let at = state.index(i, j);
                        state.values[at] = s;
                    }
                }
                if inp.dt > stable {
                    unstable = Some((i, inp.dt, stable, inp.geom.u.x));
                    return;
                }
            }
        });
        match (result, unstable) {
            (ROk(()), Some((i, dt, stable, gap))) => RErr(CallError {
                index: i as u64,
                message: format!(
                    "the time step {dt:e} s is above the stable step of this contact, \
                     {stable:e} s (gap {gap:e} m): reduce the scene's timestep"
                )
                .into(),
            }),
            (r, _) => r,
        }
    }
}

impl<L: LaneLaw> ContactLaw for LaneAdapter<L> {
    fn state_len(&self) -> u32 {
        self.0.state_len()
    }

    /// The lane step reads the onset data, not the pair, frame or point (those only at
    /// onset, through the constants).
    fn reads(&self) -> LawReads {
        if L::Constants::LEN + L::STATE_LEN > MAX_SLOTS {
            // Run per contact (see `law_batch`).
            return L::READS;
        }
        LawReads(L::READS.0 & LawReads::ONSET.0)
    }

    fn interaction_distance(&self) -> f64 {
        self.0.interaction_distance()
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        self.0.stiffness(pair)
    }

    fn law_batch(
        &self,
        batch: &LawBatch<'_>,
        mut state: StateColumns<'_>,
        mut out: LawOutColumns<'_>,
    ) -> RResult<(), CallError> {
        let k = L::Constants::LEN;
        let n = k + L::STATE_LEN;
        if n > MAX_SLOTS {
            return self.0.law_batch(batch, state, out);
        }
        let len = batch.len();
        let Some(view) = batch.view_with(&state, &out, n) else {
            return RErr(malformed("contact columns, state and output"));
        };
        let law = &self.0 .0;
        guarded(|current| {
            // The constants of the new contacts (and of those whose law or materials
            // changed), one by one.
            for i in 0..len {
                if view.flags(i) & (FLAG_NEW | FLAG_REFRESH) != 0 {
                    current.set(i);
                    let mut consts = [0.0; MAX_SLOTS];
                    law.constants(&view.input(i)).store(&mut consts[..k]);
                    for (j, &c) in consts[..k].iter().enumerate() {
                        let at = state.index(i, j);
                        state.values[at] = c;
                    }
                }
            }
            if len > 0 {
                run_lanes(law, &view, &mut state, &mut out, current);
            }
        })
    }
}

pub(crate) fn docs(params: &[Param]) -> RVec<ParamDoc> {
    params
        .iter()
        .map(|p| ParamDoc {
            name: p.name.into(),
            unit: p.unit.into(),
            doc: p.doc.into(),
        })
        .collect()
}

/// Catalogue entry of a geometry functor.
pub fn geometry_info<G: Geometry>() -> FunctorInfo {
    FunctorInfo {
        name: G::NAME.into(),
        role: FunctorRole::Geometry,
        shapes: [G::SHAPE_NAMES[0].into(), G::SHAPE_NAMES[1].into()],
        description: G::DESCRIPTION.into(),
        params: docs(G::PARAMS),
        default_params: default_text::<G::Params>().into(),
    }
}

/// The names of a law's state slots as the solver stores them: its constants' names
/// ([`Slots::NAMES`]), then its own ([`Law::STATE_NAMES`]); a
/// missing name reads `constant_<j>` or `state_<j>`.
pub fn slot_names<L: Law>() -> Vec<String> {
    let named = |names: &[&str], len: usize, what: &str| -> Vec<String> {
        (0..len)
            .map(|j| {
                names
                    .get(j)
                    .map_or_else(|| format!("{what}_{j}"), |n| n.to_string())
            })
            .collect()
    };
    let mut all = named(
        <L::Constants as Slots>::NAMES,
        <L::Constants as Slots>::LEN,
        "constant",
    );
    all.extend(named(L::STATE_NAMES, L::STATE_LEN, "state"));
    all
}

/// Catalogue entry of a law.
pub fn law_info<L: Law>() -> FunctorInfo {
    FunctorInfo {
        name: L::NAME.into(),
        role: FunctorRole::Law,
        shapes: [RString::new(), RString::new()],
        description: L::DESCRIPTION.into(),
        params: docs(L::PARAMS),
        default_params: default_text::<L::Params>().into(),
    }
}

pub(crate) fn instantiate<T>(
    params: &str,
    make: impl FnOnce(&str) -> Result<T, String>,
) -> RResult<T, RString> {
    match catch_unwind(AssertUnwindSafe(|| make(params))) {
        Ok(Ok(t)) => ROk(t),
        Ok(Err(e)) => RErr(e.into()),
        Err(_) => RErr("panicked while being constructed".into()),
    }
}

/// Builds a geometry functor from RON parameter text.
pub fn new_geometry<G: Geometry>(params: &str) -> RResult<Cg2Box, RString> {
    instantiate(params, |t| {
        let g = G::new(parse_params::<G::Params>(t)?)?;
        Ok(Cg2Functor_TO::from_ptr(
            RBox::new(GeometryAdapter(g)),
            TD_Opaque,
        ))
    })
}

/// Builds a contact law from RON parameter text.
pub fn new_law<L: Law>(params: &str) -> RResult<LawBox, RString> {
    instantiate(params, |t| {
        let l = L::new(parse_params::<L::Params>(t)?)?;
        Ok(ContactLaw_TO::from_ptr(RBox::new(LawAdapter(l)), TD_Opaque))
    })
}

/// Builds a contact law written over lanes from RON parameter text: its batches run four
/// contacts at a time.
pub fn new_lane_law<L: LaneLaw>(params: &str) -> RResult<LawBox, RString> {
    instantiate(params, |t| {
        let l = L::new(parse_params::<L::Params>(t)?)?;
        Ok(ContactLaw_TO::from_ptr(
            RBox::new(LaneAdapter(LawAdapter(l))),
            TD_Opaque,
        ))
    })
}
