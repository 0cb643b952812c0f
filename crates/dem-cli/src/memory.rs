//! Memory policy of the process.
//!
//! glibc serves a request above its mmap threshold (128 KiB at start) with a mapping of
//! its own, which goes back to the system when freed; but the first time such a block is
//! freed it raises the threshold to that block's size (up to 32 MiB), and from then on the
//! large, growing buffers of a run (the contact list, the law state, the candidate list)
//! come from the heap, where the copies left behind when they grow or are rebuilt stay
//! resident. At N = 100,000 on the settle bench that was 30 MB of the peak (148 MB, against
//! 118 MB with the threshold fixed). Fixing the threshold keeps every large buffer in its
//! own mapping.

/// Keeps glibc's mmap threshold at its initial 128 KiB for the whole run (a no-op on
/// other C libraries).
pub fn keep_large_buffers_mapped() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it is called before any thread
    // other than the main one exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}
