//! End-to-end tests: the real `engine-host` binary on a free port, the real
//! built plugins copied into its plugin directory, and gRPC over a socket.
//! One test binary (ripgrep style); modules by capability.

mod access;
mod arena;
mod backup;
mod boards;
mod bot_budgets;
mod bots;
mod builds;
mod c_plugin;
mod cli;
mod consistent;
// The damage is done to ELF files.
#[cfg(target_os = "linux")]
mod damaged;
// File modes are Unix's.
#[cfg(unix)]
mod data_dir;
mod delay;
mod director;
mod durable;
mod edges;
mod foundation;
mod fuzz_requests;
mod history;
mod hostile;
// Worker processes, signals and /proc are Linux's.
#[cfg(target_os = "linux")]
mod isolation;
mod limits;
mod metrics;
mod on_postgres;
mod performance;
mod platform;
mod plugin_check;
mod replay;
mod revocation;
mod several_hosts;
mod shorthand;
mod store_damage;
mod store_migrate;
mod store_pages;
mod streams;
mod support;
mod tenant_quotas;
mod tls;
mod web;
