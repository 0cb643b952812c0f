//! The per-pair queries a contact detection runs for every candidate pair allocate
//! nothing on the heap: GJK keeps its simplex in fixed storage, and the contact of an
//! overlapping pair in general position is computed from the clipped polytope in the
//! thread's reused work buffers, without building the intersection polyhedron.
//!
//! This test binary counts every heap allocation of the process (one test function,
//! so that no other test allocates meanwhile).

use dem_convex::generate::{cube, rock};
use dem_convex::{contact, gjk_distance, ContactKind, ContactOptions};
use nalgebra::{Isometry3, Vector3};
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

/// Allocations made by `f`.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    f();
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

#[test]
fn per_pair_queries_do_not_allocate() {
    let a = rock(3, 30, Vector3::new(0.6, 0.5, 0.4)).unwrap();
    let c = cube(1.0).unwrap();
    let mut distances = Vec::with_capacity(64);
    for k in 0..32 {
        // Apart, touching and overlapping, at various orientations.
        let t = Vector3::new(0.05 * k as f64, 0.3, 0.1);
        let b = c.transformed(&Isometry3::new(t, Vector3::new(0.3, 0.1 * k as f64, -0.2)));
        let made = allocations(|| distances.push(gjk_distance(&a, &b).distance));
        assert_eq!(made, 0, "GJK allocated {made} times (pair {k})");
    }
    // The queries did run: both overlapping and separated pairs were met.
    assert!(distances.contains(&0.0));
    assert!(distances.iter().any(|&d| d > 0.1));

    // Contacts of overlapping pairs in general position (cube into rock, turned and
    // shifted): once the work buffers have grown (a first round), none allocates.
    let opts = ContactOptions::for_size(1.0);
    let pairs: Vec<_> = (0..16)
        .map(|k| {
            let t = Vector3::new(0.2 + 0.02 * k as f64, 0.15, -0.1);
            c.transformed(&Isometry3::new(
                t,
                Vector3::new(0.35, 0.1 * k as f64 + 0.05, -0.25),
            ))
        })
        .collect();
    let mut areas = Vec::with_capacity(pairs.len());
    for b in &pairs {
        contact(&a, b, &opts).unwrap();
    }
    for (k, b) in pairs.iter().enumerate() {
        let made = allocations(|| {
            let found = contact(&a, b, &opts).unwrap();
            assert_eq!(found.kind, ContactKind::Overlap);
            areas.push(found.area);
        });
        assert_eq!(made, 0, "contact allocated {made} times (pair {k})");
    }
    assert!(areas.iter().all(|&s| s > 0.01), "{areas:?}");
}
