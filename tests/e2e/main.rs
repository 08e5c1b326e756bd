//! End-to-end tests: the real `engine-host` binary on a free port, the real
//! built plugins copied into its plugin directory, and gRPC over a socket.
//! One test binary (ripgrep style); modules by capability.

mod durable;
mod foundation;
mod performance;
mod shorthand;
mod support;
