//! Writes the copies of the host's table of reasons
//! (`engine-host/src/grpc/reason.rs`): the tables in
//! `proto/tabletop/v1/matches.proto` and the README, and the Python and
//! TypeScript clients' maps of typed errors; with `--check`, compares
//! instead and fails when one is stale (the `tabletop-tests` unit test
//! `the_proto_readme_and_clients_copy_the_table_of_reasons` does the same
//! in every test run). After writing, `scripts/gen-clients` carries the
//! proto's comments into the generated clients.
//!
//! ```text
//! reasons [--check]
//! ```

use std::process::ExitCode;

use tabletop_tests::reason_tables::{REGENERATE, readme_disagreements, write_all};

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(_) => {
            eprintln!("usage: reasons [--check]");
            return ExitCode::FAILURE;
        }
    };
    let files = match write_all(&tabletop_tests::workspace_dir()) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("reasons: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for file in files {
        let path = file.path.display();
        if file.committed == file.written {
            println!("{path}: up to date");
        } else if check {
            eprintln!("{path} is stale: run `{REGENERATE}` and commit it");
            failed = true;
        } else if let Err(e) = std::fs::write(&file.path, &file.written) {
            eprintln!("reasons: cannot write {path}: {e}");
            failed = true;
        } else {
            println!("{path}: written");
        }
        if file.path.ends_with("README.md") {
            for disagreement in readme_disagreements(&file.written) {
                eprintln!("reasons: {disagreement}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
