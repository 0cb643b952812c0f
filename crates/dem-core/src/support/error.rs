//! Errors of the solver. Every message names where the problem is: the file, line and
//! column of a scene; the plugin file; the particle and step of a non-finite state. Text a
//! scene gave is quoted [`readable`](crate::support::quoted::readable): invisible characters
//! escaped, very long words cut.

use std::path::PathBuf;

/// Anything that stops a scene from loading or a run from continuing.
#[derive(Debug, thiserror::Error)]
pub enum DemError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The scene text does not parse.
    #[error("{path}:{line}:{col}: {}", crate::support::quoted::readable(.message))]
    Parse {
        /// The scene file.
        path: PathBuf,
        /// Line, 1-based.
        line: usize,
        /// Column, 1-based.
        col: usize,
        /// What is wrong (names the field).
        message: String,
    },
    /// The scene parses but is inconsistent (unknown material, missing functor, ...).
    #[error("{}", crate::support::quoted::readable(.0))]
    Scene(String),
    /// A plugin library could not be loaded.
    #[error("plugin {path}: {reason}")]
    Plugin {
        /// The library file.
        path: PathBuf,
        /// Why it was refused.
        reason: String,
    },
    /// A plugin failed during a step.
    #[error("step {step}: {functor} (plugin {plugin}) failed on contact {a}-{b}: {message}")]
    PluginCall {
        /// Step number.
        step: u64,
        /// Plugin name.
        plugin: String,
        /// Functor name.
        functor: String,
        /// Scene id of the contact's first particle (its place in the scene's bodies).
        a: u32,
        /// Scene id of the second particle.
        b: u32,
        /// What happened.
        message: String,
    },
    /// A bond law failed during a step.
    #[error(
        "step {step}: {law} (plugin {plugin}) failed on the bond between particles {a} and \
         {b}: {message}"
    )]
    BondCall {
        /// Step number.
        step: u64,
        /// Plugin name.
        plugin: String,
        /// Bond law name.
        law: String,
        /// Scene id of the bond's first sphere.
        a: u64,
        /// Scene id of its second sphere.
        b: u64,
        /// What happened.
        message: String,
    },
    /// A checkpoint cannot be read or does not fit this solver, its plugins or its scene.
    #[error("{path}: {reason}")]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong or differs.
        reason: String,
    },
    /// A particle reached a non-finite position or velocity.
    #[error("step {step}: non-finite state of particle {particle}: {what}")]
    NonFinite {
        /// Step number.
        step: u64,
        /// Scene id of the particle (its place in the scene's bodies).
        particle: usize,
        /// Which quantity, with its value.
        what: String,
    },
    /// The energy ledger's total grew far beyond the run's energy scale (an instability).
    #[error("step {step}: energy growth (particle {particle}): {what}")]
    EnergyGrowth {
        /// Step number.
        step: u64,
        /// Scene id of the particle of largest kinetic energy.
        particle: usize,
        /// By how much, against what.
        what: String,
    },
    /// One of the ranks running the simulation failed (its message), or the simulation
    /// cannot be shared among ranks (see [`crate::engines::ranks`]).
    #[error("rank {rank}: {message}")]
    Rank {
        /// The rank's number, from 0.
        rank: usize,
        /// What failed, and why.
        message: String,
    },
}
