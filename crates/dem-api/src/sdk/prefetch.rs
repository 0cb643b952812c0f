//! Software prefetch: asking the CPU for a cache line before it is read. A batch reads
//! the particles of each pair in an order the hardware prefetchers cannot guess (a
//! contact's second body); on a bed larger than the L2 cache those reads are misses, which
//! a loop hides by asking for the lines a few pairs ahead. The SDK's geometry loop does
//! it for what a functor declares it reads, the solver's L6Geom gather for the bodies'
//! velocities. (Tried in the solver's gather of forces too, with a ring of the next
//! contacts: no faster once the two above were in.)

/// Asks the CPU to bring the cache line at `x` into the L1 cache: a hint, with no other
/// effect (and on targets other than x86-64, none at all). Any address will do: a
/// prefetch never faults, so `x` need not point into anything.
#[inline(always)]
pub fn prefetch<T>(x: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault; SSE, which it
    // needs, is part of every x86-64 CPU.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
