//! # dem-core: the solver
//!
//! Particles ([`particles`]), the leap-frog [`integrator`], the single [`l6geom`] update,
//! the [`broadphase`], the [`contacts`] container and lifecycle, [`dispatch`] tables,
//! the [`energy`] ledger, the [`reorder`]ing of particle storage, [`plugins`] loading and [`scene`] files, tied together by
//! [`simulation::Simulation`]. The [`law_tester`] drives one contact through a prescribed
//! motion; [`checkpoint`]s save and restore a run, [`vtk`] writes ParaView files, [`output`] the files of a run (atomically).

pub mod box_intersection;
pub mod broadphase;
pub mod c_plugin;
pub mod catalogue;
pub mod cell;
pub mod cell_bins;
pub mod checkpoint;
pub mod clump;
pub mod contacts;
pub mod critical_step;
pub mod dispatch;
pub mod energy;
pub mod error;
pub mod facet_grid;
pub mod guards;
pub mod handover;
pub mod images;
pub mod inlet;
pub mod integrator;
pub mod l6geom;
pub mod law_tester;
pub mod library_file;
pub(crate) mod meeting;
pub mod mesh;
pub mod motion;
pub mod outlet;
pub mod output;
pub mod parallel;
pub mod particles;
pub mod plugin_probe;
pub mod plugins;
pub mod population;
pub mod py_record;
pub mod ranks;
pub mod region;
pub mod reorder;
pub mod rotation;
pub mod scene;
pub mod servo;
pub mod simulation;
pub mod sparsify;
pub mod stop;
pub mod stress;
pub mod team;
pub mod template;
pub mod threads;
pub mod timing;
pub mod tracked;
pub mod vtk;
pub(crate) mod workers;

pub use checkpoint::Checkpoint;
pub use error::DemError;
pub use plugins::PluginSet;
pub use scene::Scene;
pub use simulation::Simulation;
