//! The energy ledger. Its total is conserved when every source and sink is booked:
//!
//! `total = kinetic + rotational + potential + elastic + friction + damping + nonviscous
//!          + broken - boundary_work - inflow + outflow`
//!
//! Kinetic terms are evaluated at full steps as `m/2 v(t-dt/2) . v(t+dt/2)`, the quantity
//! the leap-frog scheme conserves exactly for linear forces (so free fall and a linear
//! spring keep the total to round-off); potential and elastic energy are taken at t.
//! Dissipation, boundary work and the energy particles bring in (inlets) or carry out
//! (outlets) are cumulative since the start of the run. A particle's energy in or out is
//! exactly the terms it adds to (or takes from) the ledger in the step it enters (leaves),
//! and the elastic energy of the contacts it takes with it (see [`crate::step::simulation::population`]).

use serde::{Deserialize, Serialize};

/// One row of the ledger, J.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// Translational kinetic energy.
    pub kinetic: f64,
    /// Rotational kinetic energy.
    pub rotational: f64,
    /// Gravitational potential energy, relative to the global origin (`-m g . x`).
    pub potential: f64,
    /// Elastic energy stored in contacts now.
    pub elastic: f64,
    /// Cumulative energy dissipated by friction (plastic slip).
    pub friction: f64,
    /// Cumulative energy dissipated by viscous contact damping.
    pub damping: f64,
    /// Cumulative energy dissipated by the integrator's non-viscous (Cundall) damping.
    pub nonviscous: f64,
    /// Cumulative energy released by bonds that broke (see [`crate::engines::bond`]).
    pub broken: f64,
    /// Cumulative work done on the particles from outside: by moving boundaries, blocked
    /// degrees of freedom, loads applied from outside and the scene's fluid; and what a
    /// change of a law's parameters or of a material between two steps did to the energy
    /// stored in the contacts (see [`crate::step::simulation::changes`]).
    pub boundary_work: f64,
    /// Cumulative energy brought in by inserted particles (kinetic, rotational and
    /// potential): by inlets, or added from outside between steps.
    pub inflow: f64,
    /// Cumulative energy carried out by removed particles (kinetic, rotational,
    /// potential, and the elastic energy of their contacts).
    pub outflow: f64,
}

impl Ledger {
    /// Column names of [`Ledger::row`], for CSV headers.
    pub const COLUMNS: [&'static str; 12] = [
        "kinetic",
        "rotational",
        "potential",
        "elastic",
        "friction",
        "damping",
        "nonviscous",
        "broken",
        "boundary_work",
        "inflow",
        "outflow",
        "total",
    ];

    /// The conserved total.
    pub fn total(&self) -> f64 {
        self.kinetic
            + self.rotational
            + self.potential
            + self.elastic
            + self.friction
            + self.damping
            + self.nonviscous
            + self.broken
            - self.boundary_work
            - self.inflow
            + self.outflow
    }

    /// Books the wrap of particles across the faces of a periodic cell at a rebuild: the
    /// work of a deforming cell's faces on them (their velocities lose the faces'
    /// velocities), and with gravity `g` along a periodic edge the jump of their potential
    /// energy, `g . moved` (as if lifted back through the cell), both as boundary work, so
    /// the total does not jump. The potential is moved with it, so that the entries stay
    /// those of the wrapped positions until the next step evaluates them.
    pub fn wrap(&mut self, g: &nalgebra::Vector3<f64>, wrapped: &Wrapped) {
        let jump = g.dot(&wrapped.moved);
        self.potential += jump;
        self.boundary_work += jump + wrapped.work;
    }

    /// The entries in the order of [`Ledger::COLUMNS`].
    pub fn row(&self) -> [f64; 12] {
        [
            self.kinetic,
            self.rotational,
            self.potential,
            self.elastic,
            self.friction,
            self.damping,
            self.nonviscous,
            self.broken,
            self.boundary_work,
            self.inflow,
            self.outflow,
            self.total(),
        ]
    }
}

/// What wrapping the particles into the cell at a rebuild changed of their energy.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Wrapped {
    /// The work the deforming cell's faces did on the wrapped particles, whose velocities
    /// changed by `-Hdot w` (Lees-Edwards), J.
    pub work: f64,
    /// Their mass-weighted displacement `sum m (x before - x after)`, kg m: with gravity
    /// `g` along a periodic edge their potential energy jumped by `g` dotted with it.
    pub moved: nalgebra::Vector3<f64>,
}
