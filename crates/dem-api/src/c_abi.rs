//! The C plugin interface: contact laws written in C or C++, loaded without Rust.
//!
//! A C plugin is a shared library exporting one function,
//!
//! ```c
//! const DemCPlugin *dem_c_plugin_v1(void);
//! ```
//!
//! that returns a static table: the interface version, the sizes of the records it was
//! compiled with (checked against the solver's at load: a mismatch is refused with a
//! message naming the record), the plugin's name and version, and its laws. The records
//! (`LawInput`, `LawOutput`, `LawPair`, ...) are the same `#[repr(C)]` types Rust plugins
//! use; `include/dem_plugin.h` declares them all (generated from this crate by cbindgen,
//! checked by the test suite).
//!
//! Parameters: the scene's `params: (kn: 1e5, restitution: 0.5)` reach `create` as
//! (name, value) pairs of numbers (booleans as 0 or 1). A law's `compute` is called from
//! several threads at once, each time for a different contact: it must only read the law
//! object and write the contact's `state` and `out`. Units are SI, conventions as for Rust
//! laws (force and torque on body 2, local frame; see `docs/writing-plugins.md`).

use crate::law::{LawInput, LawOutput, LawPair};
use std::ffi::{c_char, c_void};

/// Version of the C plugin interface this solver speaks.
pub const DEM_C_ABI_VERSION: u32 = 1;

/// One law parameter as the C plugin receives it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DemCParam {
    /// Parameter name, NUL-terminated.
    pub name: *const c_char,
    /// Its value (booleans as 0 or 1).
    pub value: f64,
}

/// One contact law of a C plugin.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DemCLaw {
    /// Law name as scenes write it, NUL-terminated; unique among loaded plugins.
    pub name: *const c_char,
    /// One paragraph for `dem plugins`, NUL-terminated.
    pub description: *const c_char,
    /// Documentation of the parameters (names, units, defaults), NUL-terminated.
    pub params_doc: *const c_char,
    /// Number of `f64` state slots per contact.
    pub state_len: u32,
    /// Gap below which a contact should exist, m (0: overlap only).
    pub interaction_distance: f64,
    /// Builds a law from its parameters; returns NULL on error after writing a
    /// NUL-terminated message of at most `err_len` bytes into `err`.
    pub create: Option<
        unsafe extern "C" fn(
            params: *const DemCParam,
            n_params: usize,
            err: *mut c_char,
            err_len: usize,
        ) -> *mut c_void,
    >,
    /// Frees a law made by `create`.
    pub destroy: Option<unsafe extern "C" fn(law: *mut c_void)>,
    /// The largest stiffness of a contact of this pair, N/m (for the critical time step).
    pub stiffness: Option<unsafe extern "C" fn(law: *const c_void, pair: *const LawPair) -> f64>,
    /// One contact, one step: reads `input`, updates the contact's `state_len` state slots
    /// (zero at contact onset), writes `out`. Returns 0, or a non-zero error code that
    /// stops the run with the plugin, law and contact named.
    pub compute: Option<
        unsafe extern "C" fn(
            law: *const c_void,
            input: *const LawInput,
            state: *mut f64,
            out: *mut LawOutput,
        ) -> i32,
    >,
}

/// What `dem_c_plugin_v1` returns.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DemCPlugin {
    /// `DEM_C_ABI_VERSION` as the plugin was compiled.
    pub abi_version: u32,
    /// `sizeof(LawInput)` as the plugin was compiled, bytes.
    pub size_law_input: u32,
    /// `sizeof(LawOutput)` as the plugin was compiled, bytes.
    pub size_law_output: u32,
    /// `sizeof(LawPair)` as the plugin was compiled, bytes.
    pub size_law_pair: u32,
    /// Plugin name, NUL-terminated.
    pub name: *const c_char,
    /// Plugin version, NUL-terminated.
    pub version: *const c_char,
    /// Number of laws in `laws`.
    pub n_laws: u32,
    /// The laws.
    pub laws: *const DemCLaw,
}

/// The entry point a C plugin exports.
pub type DemCEntry = unsafe extern "C" fn() -> *const DemCPlugin;

/// Name of the entry point symbol.
pub const DEM_C_ENTRY: &str = "dem_c_plugin_v1";
