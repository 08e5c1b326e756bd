//! engine-host: the Tabletop server core and its gRPC layer.
#![allow(missing_docs)]

pub mod plugin;
