//! Two settings of glibc's malloc, the host's only `unsafe` outside the
//! plugin loader: neither has a safe wrapper in a maintained crate, and both
//! are calls into the C library that take no pointers. Elsewhere than Linux
//! with glibc both do nothing, and the allocator decides.

/// Gives glibc's malloc one arena per core instead of its default of eight
/// per core. Each arena keeps the memory its threads freed for its own
/// later use, so every extra arena holds free memory of its own: on 2 cores,
/// with 1 000 Watch streams, 16 arenas made the host's RSS ~35 MB larger
/// than 2 did for the same work (BENCHMARKS.md, "History and memory").
/// With no more arenas than cores, threads rarely wait for one. Call it at
/// start, before the runtime's threads allocate.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn limit_arenas(cores: usize) {
    let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
    // SAFETY: mallopt takes no pointer and only sets a malloc parameter,
    // under the main arena's lock; M_ARENA_MAX takes any positive count.
    if unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) } != 1 {
        tracing::warn!(arenas, "could not limit glibc's malloc arenas");
    }
}

/// Other C libraries keep no per-thread arenas of glibc's kind.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn limit_arenas(_cores: usize) {}

/// Hands the pages that unloaded matches freed back to the kernel. glibc's
/// `free` gives memory back only from the top of an arena; a page freed
/// between blocks still in use stays in the process, and as matches load
/// and unload the arenas' holes wander, so the host's RSS crept up by
/// ~0.2 MB per 1 000 finished matches with nothing more held
/// (BENCHMARKS.md, "History and memory"). `malloc_trim` releases every
/// whole free page; it took 1–5 ms a second under 1 000 Watch streams.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn release_freed_memory() {
    // SAFETY: malloc_trim takes no pointer, takes each arena's lock itself
    // and only releases pages that no allocation uses.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Elsewhere the allocator decides when to give memory back.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn release_freed_memory() {}
