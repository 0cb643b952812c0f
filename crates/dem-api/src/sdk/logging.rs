//! Forwarding of the plugin's `tracing` events to the host's [`HostLogger`].

use crate::log::{HostLogger, LogLevel};
use std::fmt::Write as _;
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::{span, Event, Level, Metadata, Subscriber};

struct Forwarder {
    logger: HostLogger,
    max: LevelFilter,
}

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, "{}={value:?}", field.name());
        }
    }
}

fn ours(level: &Level) -> LogLevel {
    match *level {
        Level::ERROR => LogLevel::Error,
        Level::WARN => LogLevel::Warn,
        Level::INFO => LogLevel::Info,
        Level::DEBUG => LogLevel::Debug,
        _ => LogLevel::Trace,
    }
}

fn filter(level: LogLevel) -> LevelFilter {
    match level {
        LogLevel::Error => LevelFilter::ERROR,
        LogLevel::Warn => LevelFilter::WARN,
        LogLevel::Info => LevelFilter::INFO,
        LogLevel::Debug => LevelFilter::DEBUG,
        LogLevel::Trace => LevelFilter::TRACE,
    }
}

impl Subscriber for Forwarder {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= self.max
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.max)
    }

    // Spans are not forwarded: plugins log events only.
    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }

    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}

    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        let meta = event.metadata();
        (self.logger.log)(
            ours(meta.level()),
            meta.target().into(),
            message.0.as_str().into(),
        );
    }

    fn enter(&self, _: &span::Id) {}

    fn exit(&self, _: &span::Id) {}
}

/// Installs the forwarder as this plugin's global `tracing` subscriber. Called once by the
/// host through the root module; later calls are ignored.
pub fn install_forwarder(logger: HostLogger) {
    let max = filter(logger.max_level);
    let _ = tracing::subscriber::set_global_default(Forwarder { logger, max });
}
