//! Software prefetch: asking the CPU for a cache line before it is read. The contact
//! passes read the particles of each contact in an order the hardware prefetchers cannot
//! guess (a contact's second body); on a bed larger than the L2 cache those reads are
//! misses, which a loop hides by asking for the lines a few contacts ahead. (Tried in the
//! gather of forces too, with a ring of the next contacts: 5 % faster at N = 100,000,
//! 4 % slower at 10,000, so not kept.)

/// Asks the CPU to bring the cache line at `x` into the L1 cache: a hint, with no other
/// effect (and on targets other than x86-64, none at all). Any address will do: a
/// prefetch never faults, so `x` need not point into anything.
#[inline(always)]
pub(crate) fn prefetch<T>(x: *const T) {
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
