//! The two batched functor traits that cross the plugin boundary.
//!
//! Both are called with column batches (see [`crate::batch`]; typically up to 256
//! contacts) from the solver's worker threads; an implementation must be pure: read its
//! inputs, write its outputs and the state it is given, and nothing else (no threads, no
//! global state). Plugin authors do not implement these traits directly: they write the
//! per-contact traits of [`crate::sdk`] and the export macro implements these.

use crate::batch::{GeomBatch, LawBatch, LawOutColumns, StateColumns};
use crate::geom::RawGeom;
use crate::law::LawPair;
use abi_stable::sabi_trait;
use abi_stable::std_types::{RBox, RResult, RSliceMut, RString};
use abi_stable::StableAbi;

/// Why a batched call failed.
#[repr(C)]
#[derive(StableAbi, Clone, Debug)]
pub struct CallError {
    /// Index in the batch of the item being processed when the failure happened
    /// (`u64::MAX` if the failure is not tied to an item).
    pub index: u64,
    /// Human-readable description (for a panic, the panic message).
    pub message: RString,
}

/// A geometry functor ("Cg2"): computes [`RawGeom`] for a batch of body pairs.
#[sabi_trait]
pub trait Cg2Functor: Send + Sync {
    /// Contact terms per pair: `1` for an ordinary functor. The solver keeps that many
    /// contacts per candidate pair, asks for each by [`GeomBatch::features`], and adds their
    /// forces, each times its [`RawGeom::weight`]. Asked once, after construction.
    fn features(&self) -> u32;

    /// Writes one [`RawGeom`] per pair of `batch` into `out` (same length as
    /// `batch.pairs`). The last method every plugin must have: methods added after it
    /// (within a minor version) have a default body, which a plugin built before they
    /// existed gets.
    #[sabi(last_prefix_field)]
    fn geom_batch(
        &self,
        batch: &GeomBatch<'_>,
        out: RSliceMut<'_, RawGeom>,
    ) -> RResult<(), CallError>;

    /// Number of `f64` slots of the functor's **pair cache** (geometry cache version 1,
    /// dem-api 0.4): memory kept per candidate pair
    /// (and term) from call to call, for temporal coherence, e.g. the last separating
    /// direction of a pair that is apart. `0` (the default, and what a plugin built
    /// before this method existed reports) means no cache: the solver then calls
    /// [`Cg2Functor::geom_batch`] only. Asked once, after construction.
    ///
    /// The cache may only change how fast a result is found, **never its bits**: the
    /// solver starts it at zero whenever it likes (at the start of a run, after a
    /// checkpoint is restored, for a pair that becomes a candidate again) and does not
    /// save it in checkpoints, and a run must give the same bits whatever the cache
    /// holds. Its units and meaning are private to the functor.
    fn cache_len(&self) -> u32 {
        0
    }

    /// [`Cg2Functor::geom_batch`] with the pair cache: `cache` holds
    /// [`Cg2Functor::cache_len`] slots per pair of `batch` (layout as
    /// [`StateColumns`]), which the functor reads and updates. The output must be
    /// bitwise that of `geom_batch` on the same batch, whatever `cache` holds. The default
    /// (and a plugin built before this method existed) ignores the cache.
    fn geom_batch_cached(
        &self,
        batch: &GeomBatch<'_>,
        cache: StateColumns<'_>,
        out: RSliceMut<'_, RawGeom>,
    ) -> RResult<(), CallError> {
        let _ = cache;
        self.geom_batch(batch, out)
    }
}

/// A contact law: computes forces from [`crate::L6Geom`] for a batch of contacts.
#[sabi_trait]
pub trait ContactLaw: Send + Sync {
    /// Number of `f64` state slots this law keeps per contact (zero-initialised at onset).
    fn state_len(&self) -> u32;

    /// Gap below which the law wants a contact to exist, m (0 for laws acting on overlap
    /// only; positive for laws that act before touching).
    fn interaction_distance(&self) -> f64;

    /// Largest contact stiffness this law can show for the pair, N/m; the solver uses it
    /// for the critical time step `sqrt(m / k)`.
    fn stiffness(&self, pair: &LawPair) -> f64;

    /// Computes the output of every contact of `batch` into `out` (columns of the batch's
    /// length). `state` holds `state_len()` slots per contact as column blocks (see
    /// [`StateColumns`]); the law reads and updates them.
    #[sabi(last_prefix_field)]
    fn law_batch(
        &self,
        batch: &LawBatch<'_>,
        state: StateColumns<'_>,
        out: LawOutColumns<'_>,
    ) -> RResult<(), CallError>;
}

/// A geometry functor instance owned by the solver.
pub type Cg2Box = Cg2Functor_TO<'static, RBox<()>>;
/// A contact law instance owned by the solver.
pub type LawBox = ContactLaw_TO<'static, RBox<()>>;
