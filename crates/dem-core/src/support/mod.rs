//! Support: errors, threads, timing, tables, spatial bins and random draws; no DEM concept.

pub mod box_intersection;
pub mod cell_bins;
pub mod error;
pub mod parallel;
pub mod quoted;
pub mod sampling;
pub(crate) mod table;
pub mod team;
pub mod threads;
pub mod timing;
pub(crate) mod workers;
