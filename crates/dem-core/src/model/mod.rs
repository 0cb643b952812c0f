//! The model: what a simulation is made of (particles, meshes, the periodic cell, the
//! ledger, the contacts' storage), with no behaviour beyond keeping it.

pub(crate) mod blocks;
pub mod cell;
pub mod changes;
pub mod energy;
pub mod mesh;
pub mod particles;
pub mod plugin_body;
