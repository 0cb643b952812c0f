//! How the solver's parallel loops share their fixed chunks among threads.
//!
//! Every loop works on chunks of a fixed size, so that what is computed, and in which
//! order it is summed, does not depend on the number of threads. Which thread runs a chunk
//! is free: [`run_len`] gives each thread one contiguous run of chunks, so that a loop is
//! split once per thread instead of down to single chunks (each split is a hand-over
//! between threads) and a thread tends to get the same particles and contacts, still in
//! its cache, from one loop and step to the next.

/// Chunks per piece of work for a loop over `chunks` chunks on the current pool, for
/// `with_min_len`: `floor(chunks / threads)`, at least 1. (Rayon splits a range only
/// while half of it is at least this long: with the ceiling, an odd number of chunks
/// would not be split at all.)
pub fn run_len(chunks: usize) -> usize {
    (chunks / rayon::current_num_threads()).max(1)
}

#[cfg(test)]
mod tests {
    use super::run_len;
    use rayon::prelude::*;

    /// Pieces of work rayon makes of `n` chunks with [`run_len`] in a pool of `threads`.
    fn pieces(n: usize, threads: usize) -> usize {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            (0..n)
                .into_par_iter()
                .with_min_len(run_len(n))
                .fold(|| (), |(), _| ())
                .count()
        })
    }

    #[test]
    fn each_thread_gets_one_run_of_chunks_for_odd_and_even_counts() {
        for n in [2, 5, 19, 20, 39, 40, 391] {
            assert_eq!(pieces(n, 2), 2, "{n} chunks on 2 threads");
            assert_eq!(pieces(n, 1), 1, "{n} chunks on 1 thread");
        }
        // Runs of one chunk may split once more.
        assert!((2..=3).contains(&pieces(3, 2)));
        assert_eq!(pieces(1, 2), 1);
    }
}
