//! The engines: what acts on the model during a step (the broad phase, the L6Geom, the
//! contact pass, dispatch, integration and rotation, motions, the periodic images and their
//! servo, inlets and outlets, ranks, guards). Each owns the types of its own scene
//! settings; none knows the scene file.

pub mod applied;
pub mod bond;
pub mod broadphase;
pub mod clump;
pub mod coarse_grain;
pub mod contacts;
pub mod critical_step;
pub(crate) mod damping;
pub mod dispatch;
pub mod exchange;
pub mod facet_grid;
pub mod flow;
pub mod fluid;
pub mod guards;
pub mod images;
pub mod inlet;
pub mod integrator;
pub mod l6geom;
pub mod motion;
pub mod outlet;
pub mod ranks;
pub mod region;
pub mod reorder;
pub mod rotation;
pub mod servo;
pub mod stop;
pub mod stress;
pub mod template;
pub mod unbalanced;
