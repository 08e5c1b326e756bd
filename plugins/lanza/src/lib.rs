//! The lanza game as a Tabletop plugin (work in progress).
#![forbid(unsafe_code)]
