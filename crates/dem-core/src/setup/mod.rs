//! Set-up: what a scene resolves to before a run (plugins loaded and probed, the dispatch
//! tables built from the scene's choices, the checks of who may meet whom), and the plugin
//! catalogue.

pub mod c_plugin;
pub mod catalogue;
mod dispatch;
pub mod library_file;
pub(crate) mod meeting;
pub mod plugin_bonds;
pub mod plugin_exchanges;
pub mod plugin_probe;
pub mod plugin_shapes;
pub mod plugins;
