//! Buffers that each worker thread (a member of the step's [`crate::support::team::Team`], or a
//! rayon worker) keeps from step to step, so that a step's parallel phases allocate
//! nothing once the run is under way.
//!
//! Rayon's `*_init` adaptors make new buffers for every piece of work they split off,
//! every step. Large ones (a chunk's plugin inputs are tens of kilobytes) were freed at
//! the top of the heap, handed back to the system, and faulted in again the next step:
//! 59,785 minor page faults in 5,000 steps of the bench scene at N = 10,000 on two
//! threads, against 5,442 with the buffers kept.

use std::sync::Mutex;

/// One `T` per worker thread of the rayon pool, kept from call to call.
pub(crate) struct PerWorker<T> {
    cells: Vec<Mutex<T>>,
}

impl<T> Default for PerWorker<T> {
    fn default() -> Self {
        PerWorker { cells: Vec::new() }
    }
}

/// A copy starts with no buffers (they hold nothing that lasts beyond a call).
impl<T> Clone for PerWorker<T> {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl<T: Default> PerWorker<T> {
    /// Makes one cell per thread of the current pool (before a parallel loop).
    pub fn prepare(&mut self) {
        let n = rayon::current_num_threads().max(1);
        if self.cells.len() != n {
            self.cells.resize_with(n, || Mutex::new(T::default()));
        }
    }

    /// Runs `f` with the calling thread's buffers. A thread outside the pool, or one whose
    /// buffers are in use (which a loop that stays on its pool never sees), gets new ones:
    /// the result never depends on which buffers `f` gets.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let index = crate::support::team::member().or_else(rayon::current_thread_index);
        let cell = index.and_then(|i| self.cells.get(i));
        match cell.map(Mutex::try_lock) {
            Some(Ok(mut cell)) => f(&mut cell),
            _ => f(&mut T::default()),
        }
    }
}

/// Makes room in `v` for `n` items in all, at once.
pub(crate) fn room<T>(v: &mut Vec<T>, n: usize) {
    if v.capacity() < n {
        v.reserve(n - v.len());
    }
}

/// An emptied `Vec<A>` as a `Vec<B>` with the same allocation, for record types that
/// differ only in their lifetimes: a buffer of borrowing records (plugin inputs hold
/// views of the particles) can then be kept, empty, beyond the borrow.
pub(crate) fn recycle<A, B>(mut v: Vec<A>) -> Vec<B> {
    assert!(
        std::mem::size_of::<A>() == std::mem::size_of::<B>()
            && std::mem::align_of::<A>() == std::mem::align_of::<B>(),
        "recycle: the two record types differ in layout"
    );
    v.clear();
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, capacity) = (v.as_mut_ptr(), v.capacity());
    // SAFETY: the vector is empty and owns an allocation of `capacity` items of the size
    // and alignment that `B` has too, which is what `from_raw_parts` requires; `v` is not
    // dropped, so the allocation has one owner.
    unsafe { Vec::from_raw_parts(ptr.cast::<B>(), 0, capacity) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycled_buffers_keep_their_allocation() {
        let x = 3.0;
        let mut v: Vec<&f64> = Vec::with_capacity(100);
        v.push(&x);
        let ptr = v.as_ptr() as usize;
        let kept: Vec<&'static f64> = recycle(v);
        assert!(kept.is_empty() && kept.capacity() == 100);
        assert_eq!(kept.as_ptr() as usize, ptr);
    }

    #[test]
    fn each_worker_finds_its_buffer_again() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut w: PerWorker<Vec<u8>> = PerWorker::default();
            w.prepare();
            // First call: the buffer grows; later calls on the same thread find it grown.
            w.with(|b| b.reserve(1000));
            assert!(w.with(|b| b.capacity()) >= 1000);
            // A thread outside the pool gets a new buffer.
            std::thread::scope(|s| {
                s.spawn(|| assert_eq!(w.with(|b| b.capacity()), 0));
            });
        });
    }
}
