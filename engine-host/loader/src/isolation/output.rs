//! A worker's standard output and error, read as fast as it writes and
//! logged as the host's own lines, named by plugin and rate-limited. A
//! plugin that floods its output costs a thread reading and discarding,
//! never a blocked pipe, and never the host's own stdout.

use std::io::Read;
use std::time::{Duration, Instant};

/// The longest line logged; the rest of a longer line is cut.
const MAX_LINE: usize = 1024;

/// Starts a thread that logs `stream`'s lines until it ends, then calls
/// `on_end`.
pub(crate) fn capture(
    stream: impl Read + Send + 'static,
    plugin: &str,
    name: &'static str,
    lines_per_second: u32,
    on_end: Option<Box<dyn FnOnce() + Send>>,
) {
    let plugin = plugin.to_string();
    let _ = std::thread::Builder::new()
        .name(format!("worker-{name}"))
        .spawn(move || {
            read_lines(stream, &plugin, name, lines_per_second);
            if let Some(on_end) = on_end {
                on_end();
            }
        });
}

fn read_lines(mut stream: impl Read, plugin: &str, stream_name: &str, lines_per_second: u32) {
    let mut limit = LineBudget::new(lines_per_second);
    let mut line = Vec::with_capacity(MAX_LINE);
    let mut cut = false;
    let mut chunk = [0u8; 8192];
    loop {
        let read = match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        // A flood is reported while it lasts, once a second.
        limit.report_dropped_now_and_then(plugin, stream_name);
        for &byte in &chunk[..read] {
            if byte == b'\n' {
                limit.log(plugin, stream_name, &line, cut);
                line.clear();
                cut = false;
            } else if line.len() < MAX_LINE {
                line.push(byte);
            } else {
                cut = true;
            }
        }
    }
    if !line.is_empty() {
        limit.log(plugin, stream_name, &line, cut);
    }
    limit.report_dropped(plugin, stream_name);
}

/// A token bucket of lines: `per_second` a second, as many in a burst.
struct LineBudget {
    per_second: u32,
    tokens: f64,
    refilled: Instant,
    dropped: u64,
    reported: Option<Instant>,
}

impl LineBudget {
    fn new(per_second: u32) -> LineBudget {
        LineBudget {
            per_second,
            tokens: f64::from(per_second),
            refilled: Instant::now(),
            dropped: 0,
            reported: None,
        }
    }

    fn log(&mut self, plugin: &str, stream: &str, line: &[u8], cut: bool) {
        let now = Instant::now();
        let elapsed = now
            .duration_since(self.refilled)
            .min(Duration::from_secs(10));
        self.refilled = now;
        let rate = f64::from(self.per_second);
        self.tokens = (self.tokens + elapsed.as_secs_f64() * rate).min(rate);
        if self.tokens < 1.0 {
            self.dropped += 1;
            return;
        }
        self.tokens -= 1.0;
        self.report_dropped(plugin, stream);
        let text = String::from_utf8_lossy(line);
        let more = if cut { " […]" } else { "" };
        tracing::info!(target: "plugin_output", plugin, stream, "{text}{more}");
    }

    fn report_dropped_now_and_then(&mut self, plugin: &str, stream: &str) {
        if self
            .reported
            .is_none_or(|at| at.elapsed() >= Duration::from_secs(1))
        {
            self.report_dropped(plugin, stream);
        }
    }

    fn report_dropped(&mut self, plugin: &str, stream: &str) {
        if self.dropped > 0 {
            tracing::warn!(
                target: "plugin_output",
                plugin,
                stream,
                dropped = self.dropped,
                "the plugin wrote more lines than the log takes; these were dropped"
            );
            self.dropped = 0;
            self.reported = Some(Instant::now());
        }
    }
}
