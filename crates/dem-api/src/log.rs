//! Log records from plugins to the host. A plugin has its own copy of `tracing`, whose
//! events the host would never see; the SDK installs a subscriber in the plugin that
//! forwards each event through the [`HostLogger`] the host gave at load time.

use abi_stable::std_types::RStr;
use abi_stable::StableAbi;

/// Severity of a forwarded record (same order as `tracing::Level`, most severe first).
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    /// `tracing::Level::ERROR`.
    Error,
    /// `tracing::Level::WARN`.
    Warn,
    /// `tracing::Level::INFO`.
    Info,
    /// `tracing::Level::DEBUG`.
    Debug,
    /// `tracing::Level::TRACE`.
    Trace,
}

/// The host's log sink, handed to the plugin once after loading.
#[repr(C)]
#[derive(StableAbi, Clone, Copy)]
pub struct HostLogger {
    /// Receives one record: level, target (module path in the plugin), formatted message.
    /// Thread-safe; may be called from any worker thread.
    pub log: extern "C" fn(LogLevel, RStr<'_>, RStr<'_>),
    /// Most verbose level the host wants (records below it are not formatted).
    pub max_level: LogLevel,
}
