//! What a step hands the contact pass ([`StepContext`]).

use crate::engines::dispatch::Dispatch;
use crate::engines::l6geom::L6Options;
use crate::model::particles::Particles;
use crate::support::team::Team;
use dem_api::Material;

/// Everything needed to process the contacts of one step.
pub struct StepContext<'a> {
    /// The particles (read only).
    pub particles: &'a Particles,
    /// The same particles as the columns a geometry functor reads (see
    /// [`Particles::columns`]).
    pub bodies: dem_api::BodyColumns<'a>,
    /// The threads of the parallel phases.
    pub team: &'a Team,
    /// Materials by index.
    pub materials: &'a [Material],
    /// Dispatch tables and functor instances.
    pub dispatch: &'a Dispatch,
    /// Time step, s.
    pub dt: f64,
    /// Time t, s.
    pub time: f64,
    /// Step number.
    pub step: u64,
    /// Hysteresis band, m.
    pub eps: f64,
    /// L6Geom options.
    pub l6: L6Options,
    /// Contact sparsification of mesh contacts, if the scene asks for it.
    pub sparsify: Option<dem_api::convex::SparsifyParams>,
}
