//! A step allocates nothing once the run is under way: the parallel loops keep their
//! buffers from step to step (`dem_core::support::workers`). Only a broad-phase rebuild (new
//! candidate lists) and the growth of the kept buffers, the contact list among them (by
//! an eighth at a time), allocate.
//!
//! This test binary counts every heap allocation of the process.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

#[test]
fn steps_between_rebuilds_allocate_nothing() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = dem_verification::bench_scene(
            "scenes/bench-settle.ron",
            "data/data.settle_N1000.csv",
            "(0.010499999999999999, 0.010499999999999999, 0.0126)",
            6000,
        );
        // The lattice falls and packs: most contacts form in the first few thousand steps.
        sim.run_steps(4000).unwrap();
        let (mut quiet, mut allocating) = (0, Vec::new());
        for _ in 0..2000 {
            let rebuilds = sim.verlet.rebuilds;
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            sim.step().unwrap();
            let made = ALLOCATIONS.load(Ordering::Relaxed) - before;
            if sim.verlet.rebuilds != rebuilds {
                continue;
            }
            if made == 0 {
                quiet += 1;
            } else {
                allocating.push((sim.step, made, sim.live_contacts));
            }
        }
        println!(
            "{quiet} steps without a rebuild allocated nothing; these did (step, allocations, \
             contacts): {allocating:?}"
        );
        // The packing is still forming (the contacts triple in this window): the kept
        // buffers grow now and then, the contact list by an eighth of its length at a
        // time, each growth one or two allocations. Before the buffers were kept, every
        // step allocated (three times or more).
        let steps = quiet + allocating.len();
        assert!(steps > 1000, "only {steps} steps without a rebuild");
        assert!(
            quiet as f64 >= 0.95 * steps as f64,
            "{} of {steps} steps without a rebuild allocated: {allocating:?}",
            allocating.len()
        );
    });
}
