//! A team of worker threads that lives for the whole run and spins between the phases of
//! a step, so that a parallel phase costs a few hundred nanoseconds to start and to end
//! instead of the tens of microseconds a rayon loop paid here to wake a sleeping worker
//! (on this VM a sleeping vCPU is halted: 350 us of every 1 ms step at N = 10,000 on two
//! threads went to waking and joining five loops).
//!
//! [`Team::run`] runs a job on every member at once, the calling thread being member 0,
//! and returns when all are done. Members that find no job spin for [`SPIN`], then sleep
//! until the next job, so an idle team does not burn the cores. The phases split their
//! work with [`Team::range`]: member `t` of `n` takes one contiguous run of the items, the
//! same for every phase and step, so that a member tends to find its particles and
//! contacts in its cache. Results never depend on which member runs what: each phase
//! writes per item (or per chunk) and sums in a fixed order.

use std::cell::Cell;
use std::ops::Range;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a member without a job spins before it sleeps: longer than the serial parts
/// between two phases of a step, short enough not to hold a core through output writing.
const SPIN: Duration = Duration::from_micros(300);

/// The job of one [`Team::run`]: a closure run by every member with its index.
type Job = dyn Fn(usize) + Sync;

struct Shared {
    /// The current job, as a pointer to a closure that outlives the run (see `run`).
    job: Mutex<Option<JobPtr>>,
    /// Counts the jobs posted; a member runs each generation once.
    generation: AtomicU64,
    /// Members (not counting the caller) still running the current job.
    pending: AtomicUsize,
    /// Members asleep, or about to sleep.
    sleeping: AtomicUsize,
    /// Set when the team is dropped.
    stop: AtomicBool,
    /// The first panic of a member in the current job.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    /// Where sleeping members wait for the next generation.
    wake: Condvar,
    lock: Mutex<()>,
}

/// A pointer to the current job. The job lives on the stack of `Team::run`, which does not
/// return before every member is done with it.
#[derive(Clone, Copy)]
struct JobPtr(*const Job);

// SAFETY: the job is `Sync`, and the pointer is only dereferenced while `run` keeps it
// alive.
unsafe impl Send for JobPtr {}

thread_local! {
    /// The index of the team member this thread is, while it runs a job.
    static MEMBER: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The index of the calling thread in the team whose job it is running, if any.
pub(crate) fn member() -> Option<usize> {
    MEMBER.get()
}

/// Worker threads for the parallel phases of a step.
pub struct Team {
    size: usize,
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
}

impl Default for Team {
    fn default() -> Team {
        Team::new(1)
    }
}

impl std::fmt::Debug for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Team({})", self.size)
    }
}

impl Team {
    /// A team of `size` members (at least 1): the caller of [`Team::run`] and `size - 1`
    /// threads started now.
    pub fn new(size: usize) -> Team {
        let size = size.max(1);
        let shared = Arc::new(Shared {
            job: Mutex::new(None),
            generation: AtomicU64::new(0),
            pending: AtomicUsize::new(0),
            sleeping: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            panic: Mutex::new(None),
            wake: Condvar::new(),
            lock: Mutex::new(()),
        });
        let handles = (1..size)
            .map(|t| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("dem-team-{t}"))
                    .spawn(move || member_loop(&shared, t))
                    .expect("cannot start a worker thread")
            })
            .collect();
        Team {
            size,
            shared,
            handles,
        }
    }

    /// Number of members.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The run of `0..n` that member `t` takes: contiguous, in member order, sizes
    /// differing by at most one.
    pub fn range(&self, n: usize, t: usize) -> Range<usize> {
        let (q, r) = (n / self.size, n % self.size);
        let start = t * q + t.min(r);
        start..start + q + usize::from(t < r)
    }

    /// Runs `job(k)` for every item `k` of `0..n`, each taken by the next member free, in
    /// increasing order: the members stay busy when items differ in cost (chunks of
    /// polyhedron contacts beside chunks of wall contacts), where [`Team::range`] would
    /// leave one waiting. A member stops taking items once `job` returns false (an
    /// error): every item before it was taken, so the first error by index is the same
    /// for any number of members. Which member runs an item varies from run to run; the
    /// results must not depend on it (each item writes only its own output).
    pub fn claim_each(&self, n: usize, job: impl Fn(usize) -> bool + Sync) {
        let next = AtomicUsize::new(0);
        self.run(|_| loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= n || !job(k) {
                break;
            }
        });
    }

    /// Runs `job(t)` on every member `t` at once (the caller is member 0) and returns when
    /// all are done. A panic in a member is raised again here.
    pub fn run(&self, job: impl Fn(usize) + Sync) {
        if self.size == 1 {
            with_member(0, || job(0));
            return;
        }
        let s = &*self.shared;
        let erased: &(dyn Fn(usize) + Sync + '_) = &job;
        // SAFETY: only the lifetime changes; the pointer is cleared below, after every
        // member is done with the job, before `job` goes out of scope.
        let erased: &'static Job =
            unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync + '_), &'static Job>(erased) };
        *lock(&s.job) = Some(JobPtr(erased));
        s.pending.store(self.size - 1, Ordering::SeqCst);
        s.generation.fetch_add(1, Ordering::SeqCst);
        if s.sleeping.load(Ordering::SeqCst) > 0 {
            let _guard = s.lock.lock().expect("team lock");
            s.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| with_member(0, || job(0))));
        let mut spins = 0u32;
        while s.pending.load(Ordering::Acquire) != 0 {
            patience(&mut spins);
        }
        *lock(&s.job) = None;
        if let Err(p) = mine {
            resume_unwind(p);
        }
        // Taken out before it is raised again: a guard held through the unwinding would
        // poison the lock.
        let theirs = lock(&s.panic).take();
        if let Some(p) = theirs {
            resume_unwind(p);
        }
    }
}

/// A mutable slice whose disjoint ranges the members of a team take, each its own.
pub(crate) struct Parts<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: a `Parts` hands out disjoint ranges (the caller of `take` promises it), each to
// one thread: as sending `&mut [T]` to that thread.
unsafe impl<T: Send> Sync for Parts<'_, T> {}
unsafe impl<T: Send> Send for Parts<'_, T> {}

impl<'a, T> Parts<'a, T> {
    /// Shares `items` among the members.
    pub(crate) fn new(items: &'a mut [T]) -> Self {
        Parts {
            ptr: items.as_mut_ptr(),
            len: items.len(),
            _borrow: std::marker::PhantomData,
        }
    }

    /// The items at `r`.
    ///
    /// # Safety
    /// Ranges taken while another taken range is in use must not overlap it.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn take(&self, r: Range<usize>) -> &'a mut [T] {
        assert!(
            r.start <= r.end && r.end <= self.len,
            "range outside the parts"
        );
        // SAFETY: in bounds (tested), and not aliased (the caller's promise).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.end - r.start) }
    }
}

/// The first error of a phase's members, by the index of the item that failed, so that
/// which error a run reports does not depend on the number of members.
pub(crate) struct FirstError<E>(Mutex<Option<(usize, E)>>);

impl<E> FirstError<E> {
    pub(crate) fn new() -> Self {
        FirstError(Mutex::new(None))
    }

    /// Keeps `e` (of item `at`) if it comes before the kept one.
    pub(crate) fn keep(&self, at: usize, e: E) {
        let mut kept = self.0.lock().expect("first error");
        if kept.as_ref().is_none_or(|(k, _)| at < *k) {
            *kept = Some((at, e));
        }
    }

    /// `Ok`, or the first error.
    pub(crate) fn into_result(self) -> Result<(), E> {
        match self.0.into_inner().expect("first error") {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

/// Locks `m`; the team's locks guard plain data that a panic cannot leave half-written.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn with_member<R>(t: usize, f: impl FnOnce() -> R) -> R {
    let before = MEMBER.replace(Some(t));
    let r = f();
    MEMBER.set(before);
    r
}

/// Pure spins before a waiting thread starts to yield its core: a few microseconds, as
/// long as a phase's end usually takes to arrive on an idle machine.
const EAGER_SPINS: u32 = 4096;

/// One turn of a wait loop (`spins` counts them): a spin hint for the first
/// [`EAGER_SPINS`], then a yield of the core. On a machine with more runnable threads than
/// cores the member waited for may be queued behind the waiting one; spinning through its
/// time slice made a step of two threads cost milliseconds (five times the time of one
/// thread, measured with a build running beside), yielding lets it run.
#[inline]
fn patience(spins: &mut u32) {
    *spins = spins.wrapping_add(1);
    if *spins < EAGER_SPINS {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

fn member_loop(s: &Shared, t: usize) {
    let mut seen = 0;
    loop {
        // Spin for the next job, then sleep.
        let start = Instant::now();
        let mut spins = 0u32;
        while s.generation.load(Ordering::Acquire) == seen && !s.stop.load(Ordering::Acquire) {
            patience(&mut spins);
            if spins.is_multiple_of(256) && start.elapsed() > SPIN {
                s.sleeping.fetch_add(1, Ordering::SeqCst);
                let mut guard = s.lock.lock().expect("team lock");
                while s.generation.load(Ordering::SeqCst) == seen && !s.stop.load(Ordering::SeqCst)
                {
                    guard = s.wake.wait(guard).expect("team lock");
                }
                drop(guard);
                s.sleeping.fetch_sub(1, Ordering::SeqCst);
            }
        }
        if s.stop.load(Ordering::Acquire) {
            return;
        }
        seen = s.generation.load(Ordering::Acquire);
        let job = (*lock(&s.job)).expect("a posted job");
        // SAFETY: `run` keeps the job alive until `pending` reaches zero.
        let job: &Job = unsafe { &*job.0 };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| with_member(t, || job(t)))) {
            lock(&s.panic).get_or_insert(p);
        }
        s.pending.fetch_sub(1, Ordering::Release);
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        {
            let _guard = self.shared.lock.lock().expect("team lock");
            self.shared.wake.notify_all();
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn every_member_runs_each_job_once_and_ranges_cover_the_items() {
        for size in 1..=4 {
            let team = Team::new(size);
            let ranges: Vec<_> = (0..size).map(|t| team.range(10, t)).collect();
            assert_eq!(ranges.first().unwrap().start, 0);
            assert_eq!(ranges.last().unwrap().end, 10);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            let sum = AtomicU64::new(0);
            for round in 0..1000u64 {
                team.run(|t| {
                    assert_eq!(member(), Some(t));
                    sum.fetch_add(round * 10 + t as u64, Ordering::Relaxed);
                });
                if round == 500 {
                    // Long enough for the members to fall asleep.
                    std::thread::sleep(SPIN * 3);
                }
            }
            let expect: u64 = (0..1000u64)
                .map(|r| (0..size as u64).map(|t| r * 10 + t).sum::<u64>())
                .sum();
            assert_eq!(sum.load(Ordering::Relaxed), expect, "{size} members");
        }
    }

    #[test]
    fn claimed_items_run_once_each_and_an_error_stops_after_every_earlier_item() {
        for size in 1..=4 {
            let team = Team::new(size);
            for n in [0, 1, 3, 100] {
                let runs: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
                team.claim_each(n, |k| {
                    runs[k].fetch_add(1, Ordering::Relaxed);
                    true
                });
                assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
            }
            // Items 10 and 40 fail: every item up to 10 ran, and once each.
            let runs: Vec<AtomicU64> = (0..100).map(|_| AtomicU64::new(0)).collect();
            let first = FirstError::new();
            team.claim_each(100, |k| {
                runs[k].fetch_add(1, Ordering::Relaxed);
                if k == 10 || k == 40 {
                    first.keep(k, k);
                    return false;
                }
                true
            });
            assert_eq!(first.into_result(), Err(10), "{size} members");
            assert!(runs[..=10].iter().all(|r| r.load(Ordering::Relaxed) == 1));
            assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) <= 1));
        }
    }

    #[test]
    fn a_panic_in_a_member_reaches_the_caller() {
        let team = Team::new(2);
        let r = catch_unwind(AssertUnwindSafe(|| {
            team.run(|t| {
                if t == 1 {
                    panic!("member one");
                }
            })
        }));
        assert!(r.is_err());
        // The team still works.
        let n = AtomicU64::new(0);
        team.run(|_| {
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(n.load(Ordering::Relaxed), 2);
    }
}
