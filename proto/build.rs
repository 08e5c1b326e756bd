//! Compiles proto/tabletop/v1 with protox (pure Rust, no system protoc) and
//! keeps the file descriptor set for server reflection.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "tabletop/v1/types.proto",
        "tabletop/v1/catalog.proto",
        "tabletop/v1/matches.proto",
        "tabletop/v1/watch.proto",
        "tabletop/v1/admin.proto",
        "tabletop/v1/director.proto",
    ];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["."])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("tabletop_descriptor.bin"),
        descriptors.encode_to_vec(),
    )?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
