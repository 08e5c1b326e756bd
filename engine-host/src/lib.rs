//! engine-host
