//! Adapters from the per-contact SDK traits to the batched ABI traits, with panic capture.

use super::params::{default_text, parse_params};
use super::{Geometry, Law, Param, Slots};
use crate::functor::{
    CallError, Cg2Box, Cg2Functor, Cg2Functor_TO, ContactLaw, ContactLaw_TO, GeomInput, LawBox,
};
use crate::geom::RawGeom;
use crate::law::{LawInput, LawOutput, LawPair};
use crate::root::{FunctorInfo, FunctorRole, ParamDoc};
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RBox, RErr, ROk, RResult, RSlice, RSliceMut, RString, RVec};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

struct GeometryAdapter<G>(G);
struct LawAdapter<L>(L);

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
        pairs: RSlice<'_, GeomInput<'_>>,
        mut out: RSliceMut<'_, RawGeom>,
    ) -> RResult<(), CallError> {
        if pairs.len() != out.len() {
            return RErr(CallError {
                index: u64::MAX,
                message: "input and output lengths differ".into(),
            });
        }
        let mut failure = None;
        let result = guarded(|current| {
            for (i, (p, o)) in pairs.iter().zip(out.iter_mut()).enumerate() {
                current.set(i);
                *o = match self.0.try_term(&p.b1, &p.b2, p.distance, p.feature) {
                    Ok(Some(g)) => RawGeom { touching: 1, ..g },
                    Ok(None) => RawGeom::default(),
                    Err(message) => {
                        failure = Some(CallError {
                            index: i as u64,
                            message: message.into(),
                        });
                        return;
                    }
                };
            }
        });
        match (result, failure) {
            (ROk(()), Some(e)) => RErr(e),
            (r, _) => r,
        }
    }
}

impl<L: Law> ContactLaw for LawAdapter<L> {
    fn state_len(&self) -> u32 {
        (L::Constants::LEN + L::STATE_LEN) as u32
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
        inputs: RSlice<'_, LawInput>,
        mut state: RSliceMut<'_, f64>,
        mut out: RSliceMut<'_, LawOutput>,
    ) -> RResult<(), CallError> {
        let k = L::Constants::LEN;
        let n = k + L::STATE_LEN;
        if inputs.len() != out.len() || state.len() != n * inputs.len() {
            return RErr(CallError {
                index: u64::MAX,
                message: "input, state and output lengths differ".into(),
            });
        }
        let mut unstable = None;
        let result = guarded(|current| {
            for (i, (inp, o)) in inputs.iter().zip(out.iter_mut()).enumerate() {
                current.set(i);
                let (consts, own) = state[i * n..(i + 1) * n].split_at_mut(k);
                let c = if inp.is_new != 0 {
                    let c = self.0.constants(inp);
                    c.store(consts);
                    c
                } else {
                    L::Constants::load(consts)
                };
                *o = self.0.law(inp, &c, own);
                let stable = self.0.stable_step(inp, &c, own);
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

fn docs(params: &[Param]) -> RVec<ParamDoc> {
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
        shapes: [G::SHAPES[0].name().into(), G::SHAPES[1].name().into()],
        description: G::DESCRIPTION.into(),
        params: docs(G::PARAMS),
        default_params: default_text::<G::Params>().into(),
    }
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

fn instantiate<T>(
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
