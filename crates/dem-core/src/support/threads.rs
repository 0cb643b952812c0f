//! How many threads a run uses.
//!
//! A program that steps a simulation inside a rayon pool of `N` threads gets `N` team
//! members ([`Threads::Pool`], the library's default: a test or a user who builds the pool
//! chose `N`). The executable and the Python module, when the user gives no thread count,
//! build a pool of [`available`] threads (the cores this process may use, shared among the
//! MPI ranks on this machine) and let each step choose ([`Threads::Auto`]):
//!
//! - never more threads than the work of the step pays for on an idle machine
//!   ([`for_work`]): a scene of a few hundred particles runs on one;
//! - among those, the number whose steps were measured fastest ([`Chooser`]): on a machine
//!   busy with other work a member of the team may wait a whole time slice for a core at
//!   every phase of a step, and two threads can then be several times slower than one.
//!   The choice is measured again and again, so it follows the load as it comes and goes.
//!
//! Results are bitwise the same for any number of threads, so the choice changes only the
//! time.

use std::num::NonZeroUsize;

/// How the threads of a step are chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threads {
    /// Every thread of the rayon pool the step runs in.
    #[default]
    Pool,
    /// As many as pay for the step's work, measured (see the module docs); at most the
    /// pool's.
    Auto,
}

/// Work at which a second thread starts to pay, in particles plus twice the contacts:
/// measured on an idle 2-core machine with `scenes/settle.ron` cut to 50 to 800 spheres,
/// in free fall (no contacts: one and two threads tie at 400 spheres) and as a settled
/// bed (tie at 100 spheres and 107 contacts; 200 spheres and 435 contacts run in 0.65 of
/// the time on two threads). See README, "Threads".
pub const BREAK_EVEN: usize = 350;

/// The cores this process may use (its CPU affinity and cgroup quota, as
/// `std::thread::available_parallelism` reads them), shared evenly among `ranks`
/// processes of one run on this machine; at least 1.
pub fn available(ranks: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    (cores / ranks.max(1)).max(1)
}

/// The work of a step, in the unit of [`BREAK_EVEN`].
pub fn work(particles: usize, contacts: usize) -> usize {
    particles.saturating_add(contacts.saturating_mul(2))
}

/// Most threads that pay for a step of `work` ([`work`]) on an idle machine, at most
/// `most`: `k` threads when the work is at least `BREAK_EVEN k (k - 1) / 2`. (With the
/// step's time `a w / k + o k` for `k` threads, each thread costing a synchronisation `o`,
/// a `k`-th thread pays once `w >= (o / a) k (k - 1)`, and a second one at `2 o / a`.)
pub fn for_work(work: usize, most: usize) -> usize {
    let mut k = 1;
    while k < most && work >= BREAK_EVEN * k * (k + 1) / 2 {
        k += 1;
    }
    k
}

/// Wall time a window of steps on one thread count lasts at least, s: several of a busy
/// machine's time slices (a few ms each), so that a window sees the load, not one slice.
const WINDOW: f64 = 0.02;
/// Fewest steps of a window.
const WINDOW_STEPS: u32 = 3;
/// Steps after a change of the thread count that are not measured: at least this many,
/// and at least this long (s).
const WARM_UP: (u32, f64) = (2, 5e-3);
/// A probe ends early once its time per unit of work passes the base's by these factors:
/// the first after [`WINDOW_STEPS`] steps, the second after a quarter of a window.
const LOSING: (f64, f64) = (2.0, 1.25);
/// Most windows between two probes of another thread count.
const MOST_GAP: u32 = 64;

/// The steps of a window: their count, wall time (s) and work.
#[derive(Clone, Copy, Debug, Default)]
struct Window {
    steps: u32,
    seconds: f64,
    work: f64,
}

/// Chooses the threads of each step of a [`Threads::Auto`] run from the measured time of
/// its steps: windows of steps run on the chosen count (the base), and now and then a
/// window on a neighbouring count (a probe); the count with the lower time per unit of
/// work becomes the base. A run starts on one thread. A probe that loses doubles the
/// number of windows before the next one (up to [`MOST_GAP`]: then at most one window in
/// 64 runs on the slower count), and ends as soon as it is clearly slower ([`LOSING`]);
/// one that wins takes over at once. The first steps after a change are not measured
/// ([`WARM_UP`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Chooser {
    /// Seconds per unit of work of the last window measured on `k + 1` threads.
    cost: Vec<Option<f64>>,
    /// Threads of the current window (0 before the first step).
    threads: usize,
    /// The count the choice rests on: `threads`, unless the window is a probe.
    base: usize,
    window: Window,
    /// Windows to run on the base before the next probe, and windows run since the last.
    gap: u32,
    since: u32,
    /// Is the next probe above the base (else below)?
    up: bool,
    /// Steps run since the thread count changed, and their time (s), up to [`WARM_UP`].
    warm: u32,
    warmed: f64,
}

impl Chooser {
    /// Threads for the next step, whose work allows at most `cap` ([`for_work`]).
    pub(crate) fn threads(&mut self, cap: usize) -> usize {
        let cap = cap.max(1);
        if self.threads == 0 || self.base > cap {
            // The first step, or less work than the base needs: start again from one
            // thread (a second one is tried after the first window).
            (self.threads, self.base, self.gap, self.since) = (1, 1, 1, 0);
            self.window = Window::default();
            (self.warm, self.warmed) = (0, 0.0);
        } else if self.threads > cap {
            // A probe the work no longer pays for.
            self.threads = self.base;
            self.window = Window::default();
            (self.warm, self.warmed) = (0, 0.0);
        }
        self.threads
    }

    /// Books a step of `work` that took `seconds` on the threads [`Chooser::threads`]
    /// gave; `cap` as there.
    pub(crate) fn record(&mut self, seconds: f64, work: usize, cap: usize) {
        if self.warm < WARM_UP.0 || self.warmed < WARM_UP.1 {
            // The first steps after a change wake sleeping threads and refill their caches.
            self.warm += 1;
            self.warmed += seconds;
            return;
        }
        let w = &mut self.window;
        w.steps += 1;
        w.seconds += seconds;
        w.work += work.max(1) as f64;
        // A probe that is already clearly slower than the base ends early: on a busy
        // machine a second thread can make a step ten times slower.
        let losing = self.threads != self.base
            && self
                .cost
                .get(self.base - 1)
                .copied()
                .flatten()
                .is_some_and(|base| {
                    let ratio = w.seconds / (base * w.work);
                    ratio > LOSING.0 || (ratio > LOSING.1 && w.seconds > WINDOW / 4.0)
                });
        let ended = w.seconds >= WINDOW || losing;
        if !ended || w.steps < WINDOW_STEPS {
            return;
        }
        let cost = w.seconds / w.work;
        tracing::debug!(
            target: "dem::threads",
            threads = self.threads, base = self.base, steps = w.steps,
            seconds = w.seconds, ns_per_work = cost * 1e9, "window"
        );
        self.window = Window::default();
        if self.cost.len() < self.threads {
            self.cost.resize(self.threads, None);
        }
        self.cost[self.threads - 1] = Some(cost);
        if self.threads != self.base {
            // A probe ends: it takes over if it was faster than the base just before it.
            let base_cost = self.cost.get(self.base - 1).copied().flatten();
            if cost < base_cost.unwrap_or(f64::INFINITY) {
                (self.base, self.gap) = (self.threads, 1);
            } else {
                self.gap = (self.gap * 2).min(MOST_GAP);
            }
            if self.threads != self.base {
                (self.warm, self.warmed) = (0, 0.0);
            }
            (self.threads, self.since) = (self.base, 0);
            return;
        }
        self.since += 1;
        if self.since < self.gap {
            return;
        }
        let cap = cap.max(1);
        let above = self.base < cap;
        let below = self.base > 1;
        let probe = match (above, below) {
            (true, true) => match self.up {
                true => self.base + 1,
                false => self.base - 1,
            },
            (true, false) => self.base + 1,
            (false, true) => self.base - 1,
            (false, false) => return,
        };
        self.up = !self.up;
        (self.threads, self.warm, self.warmed) = (probe, 0, 0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_work_runs_on_one_thread_and_large_work_on_the_pool() {
        assert_eq!(for_work(work(1, 0), 2), 1);
        assert_eq!(for_work(work(BREAK_EVEN - 1, 0), 8), 1);
        assert_eq!(for_work(work(BREAK_EVEN, 0), 8), 2);
        assert_eq!(for_work(3 * BREAK_EVEN - 1, 8), 2);
        assert_eq!(for_work(3 * BREAK_EVEN, 8), 3);
        assert_eq!(for_work(work(1_000_000, 2_000_000), 2), 2);
        assert_eq!(for_work(work(1_000_000, 0), 0), 1);
        assert_eq!(work(usize::MAX, usize::MAX), usize::MAX);
        assert!(available(1) >= 1);
        assert_eq!(available(usize::MAX), 1);
    }

    /// Runs `steps` steps through a chooser whose step takes `time(threads)` seconds;
    /// returns how many steps ran on each count.
    fn drive(c: &mut Chooser, cap: usize, steps: usize, time: impl Fn(usize) -> f64) -> Vec<usize> {
        let mut ran = vec![0; cap + 1];
        for _ in 0..steps {
            let k = c.threads(cap);
            assert!((1..=cap).contains(&k));
            ran[k] += 1;
            c.record(time(k), 1000, cap);
        }
        ran
    }

    #[test]
    fn the_faster_count_wins_and_the_slower_is_seldom_tried() {
        // Idle: two threads take 0.7 of one thread's time.
        let mut c = Chooser::default();
        let ran = drive(&mut c, 2, 20_000, |k| if k == 2 { 0.7e-3 } else { 1e-3 });
        assert!(ran[1] * 20 < ran[2], "{ran:?}");
        // The machine gets busy: two threads now take twice one thread's time.
        let ran = drive(&mut c, 2, 20_000, |k| if k == 2 { 2e-3 } else { 1e-3 });
        assert!(ran[2] * 20 < ran[1], "{ran:?}");
        // And idle again.
        let ran = drive(&mut c, 2, 20_000, |k| if k == 2 { 0.7e-3 } else { 1e-3 });
        assert!(ran[1] * 10 < ran[2], "{ran:?}");
    }

    #[test]
    fn a_cap_of_one_never_probes_and_a_lower_cap_is_obeyed() {
        let mut c = Chooser::default();
        let ran = drive(&mut c, 1, 1000, |_| 1e-3);
        assert_eq!(ran, vec![0, 1000]);
        let mut c = Chooser::default();
        // It climbs from one thread to the four that are fastest.
        let ran = drive(&mut c, 4, 20_000, |k| 1e-3 / k as f64);
        assert_eq!(c.base, 4);
        assert!(ran[4] > 10 * (ran[1] + ran[2] + ran[3]), "{ran:?}");
        // Less work: never more than the new cap.
        assert!(c.threads(2) <= 2);
        // Among 1..=3 the middle is fastest.
        let ran = drive(&mut c, 3, 40_000, |k| [0.0, 1e-3, 0.6e-3, 0.9e-3][k]);
        assert!(ran[2] > 10 * (ran[1] + ran[3]), "{ran:?}");
    }
}
