//! # dem-core: the solver
//!
//! Seven floors, each a folder; a module uses only the modules of its own floor and the
//! floors below it (`tests/module_floors.rs` checks this, and that no module names, by
//! any chain of imports, a module that names it back), so a change shows what it can move:
//!
//! 1. [`support`]: errors, threads and timing, CSV tables, spatial bins, random draws.
//! 2. [`model`]: what a simulation is made of: [`model::particles`], meshes, the periodic
//!    cell, the energy ledger, the contacts' storage in column blocks.
//! 3. [`engines`]: what acts on the model in a step: the broad phase, the
//!    [`engines::l6geom`] update, the [`engines::contacts`] pass and lifecycle,
//!    [`engines::dispatch`] tables, the leap-frog [`engines::integrator`] and rotation,
//!    motions, periodic images and servo, inlets and outlets, ranks, guards. Each owns
//!    the type of its own scene settings.
//! 4. [`scene`]: the scene file: its schema (gathering the engines' settings types),
//!    validation, and the generators that make its particles.
//! 5. [`setup`]: what a scene resolves to: [`setup::plugins`] loaded and probed, the
//!    dispatch tables built from its choices, the checks of who may meet whom.
//! 6. [`step`]: [`step::simulation::Simulation`], the one place that knows the order of a
//!    step (and is built from a scene); the [`step::law_tester`].
//! 7. [`files`]: [`files::checkpoint`]s, [`files::vtk`] output, the files of a run
//!    ([`files::output`], written atomically), tracked particles, records for Python.

pub mod support;

pub mod model;

pub mod engines;

pub mod scene;

pub mod setup;

pub mod step;

pub mod files;

pub use files::checkpoint::Checkpoint;
pub use scene::Scene;
pub use setup::plugins::PluginSet;
pub use step::simulation::Simulation;
pub use support::error::DemError;
