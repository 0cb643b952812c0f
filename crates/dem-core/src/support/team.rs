//! A team of worker threads that lives for the whole run, so that a parallel phase of a
//! step costs a few hundred nanoseconds to start and to end instead of the tens of
//! microseconds a rayon loop paid here to wake a sleeping worker (on this VM a sleeping
//! vCPU is halted: 350 us of every 1 ms step at N = 10,000 on two threads went to waking
//! and joining five loops).
//!
//! [`Team::run`] runs a job on every active member at once, the calling thread being
//! member 0, and returns when all are done. Every wait spins only briefly, then blocks
//! (`std::thread::park`, a futex on Linux): a member without a job spins for [`SPIN`] and
//! then sleeps until the next job, and so does the caller waiting for the members to
//! finish. On a busy machine a member may lose its core for a whole time slice; a waiting
//! thread that kept spinning (or yielding) then burnt the core the late member needed, and
//! a step of two threads cost a hundred times the step of one. A thread whose recent spins
//! mostly ended in sleep counts the machine as busy and spins only [`BUSY_SPIN`].
//!
//! A team of `size` threads may run with fewer of them ([`Team::set_active`]): the
//! simulation picks how many from the work of the step (see [`crate::support::threads`]); the
//! others sleep. The phases split their work with [`Team::range`]: member `t` of the
//! active ones takes one contiguous run of the items, the same for every phase and step,
//! so that a member tends to find its particles and contacts in its cache. Results never
//! depend on which member runs what: each phase writes per item (or per chunk) and sums in
//! a fixed order.

use std::cell::Cell;
use std::ops::Range;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long a waiting thread spins before it blocks (on an idle machine): long enough to
/// cover the serial work between two phases of a step and a member's late finish.
/// Measured on an idle 2-core machine, two threads: `settle.ron` cut to 20,000 steps took
/// 4.3 s with no spin (every wait paid a wake-up of tens of microseconds) against 0.3 s
/// with 5 to 300 us; `dem bench` at N = 10,000 ran 4.2e7 particle-steps/s with 5 us and
/// 6.0e7-6.2e7 with 20 to 300 us.
pub(crate) const SPIN: Duration = Duration::from_micros(50);

/// Share of recent full-length spins that ended in sleep, from which a thread counts the
/// machine as busy (and below which it counts it idle again).
const BUSY: (f32, f32) = (0.5, 0.2);
/// How long a waiting thread spins on a busy machine: a waiting thread that spins takes
/// the core from the thread it waits for (one of this team's, or of another program).
/// Measured with two threads stepping `settle.ron` beside two busy processes: 5.7 s of
/// CPU spinning 50 us per wait, 1.2 s spinning 2 us, against 0.33 s on one thread.
const BUSY_SPIN: Duration = Duration::from_micros(2);
/// On a busy machine, one wait in this many spins for the full time, to see whether the
/// machine is idle again.
const RETRY: u32 = 16;

/// A waiting thread's view of the machine: how often its recent full-length spins ended
/// in sleep, which sets how long it spins.
#[derive(Clone, Copy, Debug)]
struct Patience {
    /// The spin on an idle machine.
    spin: Duration,
    /// Moving average (over about 16 full spins) of "the spin ended in sleep".
    slept: f32,
    /// Counting the machine as busy?
    busy: bool,
    /// Waits since the last full-length spin.
    since: u32,
}

impl Patience {
    fn new(spin: Duration) -> Patience {
        Patience {
            spin,
            slept: 0.0,
            busy: false,
            since: 0,
        }
    }

    /// How long the next wait spins before it blocks.
    fn spin(&mut self) -> Duration {
        if !self.busy {
            return self.spin;
        }
        self.since += 1;
        if self.since >= RETRY {
            self.since = 0;
            return self.spin;
        }
        self.spin.min(BUSY_SPIN)
    }

    /// Books a wait that spun for `spin` (what [`Patience::spin`] gave), and then slept or
    /// not.
    fn record(&mut self, spin: Duration, slept: bool) {
        if spin < self.spin {
            return;
        }
        let x = if slept { 1.0 } else { 0.0 };
        self.slept += (x - self.slept) / 16.0;
        if self.busy && self.slept < BUSY.1 {
            self.busy = false;
        } else if !self.busy && self.slept > BUSY.0 {
            self.busy = true;
        }
    }
}

/// The job of one [`Team::run`]: a closure run by every active member with its index.
type Job = dyn Fn(usize) + Sync;

/// A flag on a cache line of its own: each member writes its own.
#[repr(align(128))]
#[derive(Default)]
struct Flag(AtomicBool);

struct Shared {
    /// The current job, as a pointer to a closure that outlives the run (see `run`).
    job: Mutex<Option<JobPtr>>,
    /// Counts the jobs posted; a member runs each generation once.
    generation: AtomicU64,
    /// Members taking part in the current job (the others skip it).
    active: AtomicUsize,
    /// Counts the changes of the number of active members: a member's wait across one
    /// says nothing of the machine.
    changes: AtomicU64,
    /// Members (not counting the caller) still running the current job.
    pending: AtomicUsize,
    /// Set when the team is dropped.
    stop: AtomicBool,
    /// The first panic of a member in the current job.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    /// Per member: asleep, or about to sleep (index 0, the caller, unused).
    parked: Vec<Flag>,
    /// The caller is asleep, or about to sleep, waiting for the members.
    caller_parked: Flag,
    /// The thread of the caller waiting for the members, to be woken by the last one.
    caller: Mutex<Option<Thread>>,
    /// How long a wait spins before it blocks on an idle machine.
    spin: Duration,
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
    /// Members taking part in the jobs, `1..=size`.
    active: usize,
    /// The caller's patience while it waits for the members (only the caller locks it).
    patience: Mutex<Patience>,
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
        write!(f, "Team({} of {})", self.active, self.size)
    }
}

impl Team {
    /// A team of `size` members (at least 1), all active: the caller of [`Team::run`] and
    /// `size - 1` threads started now.
    pub fn new(size: usize) -> Team {
        Team::with_spin(size, SPIN)
    }

    /// [`Team::new`] with waits that spin for `spin` before they block.
    pub fn with_spin(size: usize, spin: Duration) -> Team {
        let size = size.max(1);
        let shared = Arc::new(Shared {
            job: Mutex::new(None),
            generation: AtomicU64::new(0),
            active: AtomicUsize::new(size),
            changes: AtomicU64::new(0),
            pending: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            panic: Mutex::new(None),
            parked: (0..size).map(|_| Flag::default()).collect(),
            caller_parked: Flag::default(),
            caller: Mutex::new(None),
            spin,
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
            active: size,
            patience: Mutex::new(Patience::new(spin)),
            shared,
            handles,
        }
    }

    /// Number of members.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Number of members taking part in the jobs.
    pub fn active(&self) -> usize {
        self.active
    }

    /// Lets the first `n` members (at least 1, at most [`Team::size`]) take part in the
    /// next jobs; the others sleep.
    pub fn set_active(&mut self, n: usize) {
        let n = n.clamp(1, self.size);
        if n != self.active {
            self.active = n;
            self.shared.changes.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The run of `0..n` that active member `t` takes: contiguous, in member order, sizes
    /// differing by at most one.
    pub fn range(&self, n: usize, t: usize) -> Range<usize> {
        let (q, r) = (n / self.active, n % self.active);
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

    /// Runs `job(t)` on every active member `t` at once (the caller is member 0) and
    /// returns when all are done. A panic in a member is raised again here.
    pub fn run(&self, job: impl Fn(usize) + Sync) {
        if self.active == 1 {
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
        s.active.store(self.active, Ordering::Relaxed);
        s.pending.store(self.active - 1, Ordering::SeqCst);
        s.generation.fetch_add(1, Ordering::SeqCst);
        // A member that went to sleep before it saw the new generation is woken; one that
        // is about to sleep sees the generation (both sides are SeqCst) or gets the wake.
        for (t, h) in self.handles[..self.active - 1].iter().enumerate() {
            if s.parked[t + 1].0.load(Ordering::SeqCst) {
                h.thread().unpark();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| with_member(0, || job(0))));
        wait_for_members(s, &mut lock(&self.patience));
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

/// The caller's wait for the members of the current job: a spin, then sleep until the
/// last member wakes it.
fn wait_for_members(s: &Shared, patience: &mut Patience) {
    let spin = patience.spin();
    let done = spin_until(Instant::now(), spin, || {
        s.pending.load(Ordering::Acquire) == 0
    });
    if !done {
        *lock(&s.caller) = Some(std::thread::current());
        s.caller_parked.0.store(true, Ordering::SeqCst);
        while s.pending.load(Ordering::SeqCst) != 0 {
            std::thread::park();
        }
        s.caller_parked.0.store(false, Ordering::SeqCst);
    }
    patience.record(spin, !done);
}

/// Spins until `done()` or until `spin` after `start`, whichever comes first; returns
/// `done()`.
#[inline]
fn spin_until(start: Instant, spin: Duration, done: impl Fn() -> bool) -> bool {
    let mut spins = 0u32;
    loop {
        if done() {
            return true;
        }
        std::hint::spin_loop();
        spins = spins.wrapping_add(1);
        // The clock is read every 64 turns (about a microsecond).
        if spins.is_multiple_of(64) && start.elapsed() >= spin {
            return done();
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

fn member_loop(s: &Shared, t: usize) {
    let mut seen = 0;
    let mut patience = Patience::new(s.spin);
    let next =
        |seen: u64| s.generation.load(Ordering::SeqCst) != seen || s.stop.load(Ordering::SeqCst);
    loop {
        // The next job of this member: spin, then sleep until the caller wakes it. A job
        // it takes no part in does not end the wait.
        let (start, spin) = (Instant::now(), patience.spin());
        let changes = s.changes.load(Ordering::Relaxed);
        let mut slept = false;
        loop {
            // Once asleep, it sleeps through the jobs it takes no part in.
            if slept || !spin_until(start, spin, || next(seen)) {
                s.parked[t].0.store(true, Ordering::SeqCst);
                while !next(seen) {
                    std::thread::park();
                }
                s.parked[t].0.store(false, Ordering::SeqCst);
                slept = true;
            }
            if s.stop.load(Ordering::Acquire) {
                return;
            }
            seen = s.generation.load(Ordering::Acquire);
            if t < s.active.load(Ordering::Relaxed) {
                break;
            }
        }
        if s.changes.load(Ordering::Relaxed) == changes {
            patience.record(spin, slept);
        }
        let job = (*lock(&s.job)).expect("a posted job");
        // SAFETY: `run` keeps the job alive until `pending` reaches zero.
        let job: &Job = unsafe { &*job.0 };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| with_member(t, || job(t)))) {
            lock(&s.panic).get_or_insert(p);
        }
        let last = s.pending.fetch_sub(1, Ordering::SeqCst) == 1;
        if last && s.caller_parked.0.load(Ordering::SeqCst) {
            if let Some(caller) = &*lock(&s.caller) {
                caller.unpark();
            }
        }
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        for h in &self.handles {
            h.thread().unpark();
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
        // Zero spin: every wait blocks at once, on both sides.
        for (size, spin) in (1..=4).flat_map(|n| [(n, SPIN), (n, Duration::ZERO)]) {
            let team = Team::with_spin(size, spin);
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
    fn only_the_active_members_run_and_share_the_items() {
        let mut team = Team::with_spin(4, Duration::ZERO);
        for active in [2, 1, 3, 4, 2] {
            team.set_active(active);
            let ran: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
            for _ in 0..200 {
                team.run(|t| {
                    assert!(t < active, "member {t} of {active} active");
                    ran[t].fetch_add(1, Ordering::Relaxed);
                });
            }
            let counts: Vec<u64> = ran.iter().map(|r| r.load(Ordering::Relaxed)).collect();
            let expect: Vec<u64> = (0..4).map(|t| if t < active { 200 } else { 0 }).collect();
            assert_eq!(counts, expect, "{active} active");
            let ranges: Vec<_> = (0..active).map(|t| team.range(10, t)).collect();
            assert_eq!((ranges[0].start, ranges[active - 1].end), (0, 10));
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
        }
        team.set_active(9);
        assert_eq!(team.active(), 4);
        team.set_active(0);
        assert_eq!(team.active(), 1);
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
