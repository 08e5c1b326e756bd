//! The host's log lines, each naming the call it was written in.
//!
//! A line written while a call is served says which call: text lines carry
//! `rpc{method=… credential=… match_id=…}:` before their target, JSON lines
//! a `span` object (`name` `rpc`, `method`, `credential`, `match_id`).
//!
//! The call is a plain value ([`CallContext`]) rather than a `tracing`
//! span: the gRPC layer makes one per call and sets it for each poll of the
//! call's future ([`in_call`]), and the blocking pool carries it to the
//! thread that runs the call's core work ([`current_call`], [`enter`]).
//! A span would cost every call the formatting of its fields when it opens
//! (a few percent of a SubmitAction's CPU); a context costs only the lines
//! actually written, and nearly every call writes none.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// The call a log line is about.
#[derive(Debug)]
pub struct CallContext {
    /// `package.Service/Method`, or `unknown`.
    method: Arc<str>,
    /// The key the call counts against (`anonymous`, `admin`, a credential
    /// id).
    credential: Cow<'static, str>,
    /// The match the call is about, once its handler has read it.
    match_id: OnceLock<String>,
}

impl CallContext {
    /// A call of `method` by `credential`.
    pub fn new(method: Arc<str>, credential: Cow<'static, str>) -> Arc<CallContext> {
        Arc::new(CallContext {
            method,
            credential,
            match_id: OnceLock::new(),
        })
    }
}

thread_local! {
    /// The call this thread is serving now.
    static CURRENT: Cell<Option<Arc<CallContext>>> = const { Cell::new(None) };
}

/// The call being served on this thread, to hand to another thread.
pub fn current_call() -> Option<Arc<CallContext>> {
    CURRENT.with(|current| {
        let call = current.take();
        current.set(call.clone());
        call
    })
}

/// Notes the match the current call is about (the first one noted stays).
pub fn note_match(match_id: &str) {
    CURRENT.with(|current| {
        let call = current.take();
        if let Some(call) = &call {
            let _ = call.match_id.set(match_id.to_string());
        }
        current.set(call);
    });
}

/// `call` is this thread's call until the guard is dropped, which restores
/// the one before.
pub fn enter(call: Option<Arc<CallContext>>) -> Entered {
    Entered {
        before: CURRENT.with(|current| current.replace(call)),
    }
}

/// See [`enter`].
#[derive(Debug)]
pub struct Entered {
    before: Option<Arc<CallContext>>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let before = self.before.take();
        CURRENT.with(|current| current.set(before));
    }
}

/// `future`, with `call` as its thread's call whenever it is polled.
pub fn in_call<F: Future>(call: Arc<CallContext>, future: F) -> InCall<F> {
    InCall { call, future }
}

pin_project_lite::pin_project! {
    /// See [`in_call`].
    #[derive(Debug)]
    pub struct InCall<F> {
        call: Arc<CallContext>,
        #[pin]
        future: F,
    }
}

impl<F: Future> Future for InCall<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let _entered = enter(Some(Arc::clone(this.call)));
        this.future.poll(cx)
    }
}

/// The host's log lines: text, or one JSON object per line.
#[derive(Debug, Clone, Copy)]
pub enum LineFormat {
    /// `TIME LEVEL [rpc{…}:] target: message fields`.
    Text,
    /// `{"timestamp", "level", "target", "message", fields…, "span"}`.
    Json,
}

impl<S, N> FormatEvent<S, N> for LineFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let call = current_call();
        match self {
            LineFormat::Text => {
                let meta = event.metadata();
                SystemTime.format_time(&mut writer)?;
                let level = meta.level();
                if writer.has_ansi_escapes() {
                    write!(writer, " \x1b[{}m{level:>5}\x1b[0m ", colour(*level))?;
                } else {
                    write!(writer, " {level:>5} ")?;
                }
                if let Some(call) = &call {
                    write!(
                        writer,
                        "rpc{{method={} credential={}",
                        call.method, call.credential
                    )?;
                    if let Some(match_id) = call.match_id.get() {
                        write!(writer, " match_id={match_id}")?;
                    }
                    writer.write_str("}: ")?;
                }
                write!(writer, "{}: ", meta.target())?;
                ctx.field_format().format_fields(writer.by_ref(), event)?;
                writeln!(writer)
            }
            LineFormat::Json => {
                let meta = event.metadata();
                let mut line = serde_json::Map::new();
                let mut time = String::new();
                SystemTime.format_time(&mut Writer::new(&mut time))?;
                line.insert("timestamp".into(), time.into());
                line.insert("level".into(), meta.level().as_str().into());
                line.insert("target".into(), meta.target().into());
                event.record(&mut JsonFields(&mut line));
                if let Some(call) = &call {
                    let mut span = serde_json::Map::new();
                    span.insert("name".into(), "rpc".into());
                    span.insert("method".into(), call.method.as_ref().into());
                    span.insert("credential".into(), call.credential.as_ref().into());
                    if let Some(match_id) = call.match_id.get() {
                        span.insert("match_id".into(), match_id.as_str().into());
                    }
                    line.insert("span".into(), span.into());
                }
                writeln!(writer, "{}", serde_json::Value::Object(line))
            }
        }
    }
}

/// The ANSI colour of a level, as `tracing_subscriber`'s own lines have it.
fn colour(level: Level) -> &'static str {
    match level {
        Level::ERROR => "31",
        Level::WARN => "33",
        Level::INFO => "32",
        Level::DEBUG => "34",
        Level::TRACE => "35",
    }
}

/// An event's fields as members of a JSON line.
struct JsonFields<'a>(&'a mut serde_json::Map<String, serde_json::Value>);

impl Visit for JsonFields<'_> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().into(), value.into());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().into(), value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().into(), value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().into(), value.into());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.0.insert(field.name().into(), value.to_string().into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().into(), format!("{value:?}").into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_the_current_one_only_inside_its_scope_and_the_one_before_comes_back() {
        assert!(current_call().is_none());
        let outer = CallContext::new("a/B".into(), Cow::Borrowed("admin"));
        let inner = CallContext::new("c/D".into(), Cow::Borrowed("anonymous"));
        {
            let _outer = enter(Some(Arc::clone(&outer)));
            {
                let _inner = enter(Some(Arc::clone(&inner)));
                note_match("m1");
                assert_eq!(current_call().map(|c| c.method.clone()), Some("c/D".into()));
            }
            assert_eq!(current_call().map(|c| c.method.clone()), Some("a/B".into()));
        }
        assert!(current_call().is_none());
        assert_eq!(inner.match_id.get().map(String::as_str), Some("m1"));
        assert!(outer.match_id.get().is_none());
    }
}
