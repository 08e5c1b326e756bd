//! Rust types, clients and servers generated from the Tabletop API in
//! `proto/tabletop/v1` (the one source of truth for every client).
//!
//! ```
//! use tabletop_proto::v1::{CreateMatchRequest, catalog_client::CatalogClient};
//! let request = CreateMatchRequest { game: "focus".into(), players: 2, ..Default::default() };
//! assert_eq!(request.players, 2);
//! # let _ = CatalogClient::<tonic::transport::Channel>::new;
//! ```

/// Version 1 of the API (`tabletop.v1`).
pub mod v1 {
    #![allow(missing_docs, clippy::all)]
    tonic::include_proto!("tabletop.v1");
}

/// The encoded `FileDescriptorSet` of every Tabletop proto, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/tabletop_descriptor.bin"));
