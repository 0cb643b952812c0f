//! The two batched functor traits that cross the plugin boundary.
//!
//! Both are called with column batches (see [`crate::batch`]; typically up to 512
//! contacts) from the solver's worker threads; an implementation must be pure: read its
//! inputs, write its outputs and the state it is given, and nothing else (no threads, no
//! global state). Plugin authors do not implement these traits directly: they write the
//! per-contact traits of [`crate::sdk`] and the export macro implements these.

use crate::batch::{GeomBatch, LawBatch, LawOutColumns, StateColumns};
use crate::geom::RawGeom;
use crate::law::LawPair;
use crate::reads::{GeomReads, LawReads};
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

    /// Number of `f64` slots of the functor's **pair cache**: memory kept per candidate
    /// pair (and term) from call to call, for temporal coherence, e.g. the last
    /// separating direction of a pair that is apart. `0` (the default) means no cache.
    /// Asked once, after construction.
    ///
    /// The cache may only change how fast a result is found, **never its bits**: the
    /// solver starts it at zero whenever it likes (at the start of a run, after a
    /// checkpoint is restored, for a pair that becomes a candidate again) and does not
    /// save it in checkpoints, and a run must give the same bits whatever the cache
    /// holds. Its units and meaning are private to the functor.
    fn cache_len(&self) -> u32 {
        0
    }

    /// Number of `f64` slots of the functor's **contact state** (dem-api 0.5): memory kept
    /// per contact for its whole life, like a law's state, which may change the result
    /// (e.g. the contact's previous normal or its supporting features). The slots are
    /// zero on the first call after the contact was created; they are saved in
    /// checkpoints and travel with the contact (reordering, MPI ranks), so a resumed run
    /// gives the same bits. A pair that is not a contact yet (the detection's calls) is
    /// given slots that start at zero and whose values are then dropped. `0` (the
    /// default) means none. Asked once, after construction.
    fn state_len(&self) -> u32 {
        0
    }

    /// What the functor reads of its bodies besides position and shape (see
    /// [`GeomReads`]); the solver may skip the rest. The default declares everything.
    /// Asked once, after construction.
    fn reads(&self) -> GeomReads {
        GeomReads::ALL
    }

    /// [`Cg2Functor::geom_batch`] with the pair cache and the contact state: `cache`
    /// holds [`Cg2Functor::cache_len`] slots per pair of `batch`, `state`
    /// [`Cg2Functor::state_len`] slots per pair (layouts as [`StateColumns`]; each is
    /// empty when its length is 0), which the functor reads and updates. With all
    /// state zero the output must be bitwise that of `geom_batch` on the same batch,
    /// whatever `cache` holds. The default ignores both.
    fn geom_batch_kept(
        &self,
        batch: &GeomBatch<'_>,
        cache: StateColumns<'_>,
        state: StateColumns<'_>,
        out: RSliceMut<'_, RawGeom>,
    ) -> RResult<(), CallError> {
        let _ = (cache, state);
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

    /// What the law reads of a batch besides the L6Geom's displacements, rates, branch
    /// lengths and area, the flags and the time step (see [`LawReads`]); the solver may
    /// skip the rest. The default declares everything. Asked once, after construction.
    fn reads(&self) -> LawReads {
        LawReads::ALL
    }
}

/// A geometry functor instance owned by the solver.
pub type Cg2Box = Cg2Functor_TO<'static, RBox<()>>;
/// A contact law instance owned by the solver.
pub type LawBox = ContactLaw_TO<'static, RBox<()>>;
