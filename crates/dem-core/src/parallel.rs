//! How the solver's parallel loops share their fixed chunks among threads.
//!
//! Every loop works on chunks of a fixed size, so that what is computed, and in which
//! order it is summed, does not depend on the number of threads. Which thread runs a chunk
//! is free: [`run_len`] gives each thread one contiguous run of chunks, so that a loop is
//! split once per thread instead of down to single chunks (each split is a hand-over
//! between threads) and a thread tends to get the same particles and contacts, still in
//! its cache, from one loop and step to the next.

/// Chunks per piece of work for a loop over `chunks` chunks on the current pool:
/// `ceil(chunks / threads)`, at least 1 (for `with_min_len`).
pub fn run_len(chunks: usize) -> usize {
    chunks.div_ceil(rayon::current_num_threads()).max(1)
}
