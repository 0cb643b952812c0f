//! Wall time spent in each phase of a step, accumulated since the simulation was built
//! (for `dem bench` and profiling; reading the clock costs a few tens of nanoseconds per
//! phase and step).

use std::time::Instant;

/// Seconds spent per phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Broad phase: staleness check, candidate list and slot rebuilds, s.
    pub broad_phase: f64,
    /// Detection of new contacts (bounding test and geometry calls); in scenes with mesh
    /// facets also the geometry of the live contacts and their hand-over, s.
    pub geometry: f64,
    /// Geometry of the live contacts (scenes without mesh facets, where it is computed
    /// chunk by chunk in this pass), lifecycle, L6Geom update and contact laws, s.
    pub law: f64,
    /// Setting forces to the weights and gathering contact forces onto particles, s.
    pub gather: f64,
    /// Integration, boundary motion and the finiteness check, s.
    pub integration: f64,
    /// Of the phases above, the time in the exchanges among ranks (sending, receiving and
    /// waiting for the others; see [`crate::engines::ranks`]), s.
    pub exchange: f64,
}

impl PhaseTimes {
    /// Sum of the phases, s.
    pub fn total(&self) -> f64 {
        self.broad_phase + self.geometry + self.law + self.gather + self.integration
    }
}

/// Seconds since `start`, and restarts it.
pub fn lap(start: &mut Instant) -> f64 {
    let now = Instant::now();
    let s = now.duration_since(*start).as_secs_f64();
    *start = now;
    s
}
