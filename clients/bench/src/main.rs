//! Load tool for engine-host (work in progress).

fn main() {
    eprintln!("tabletop-bench: not implemented yet");
    std::process::exit(2);
}
