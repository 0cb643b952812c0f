//! Nanoseconds per cube-cube intersection and contact, overlapping and separated,
//! and per rock-rock contact. Run with `cargo bench -p dem-convex`.
//!
//! For instruction counts (repeatable on a loaded machine): `DEM_BENCH_PASSES=N` runs
//! each selected set exactly N times through [`pass`], untimed, so that
//! `valgrind --tool=callgrind --toggle-collect='intersection::pass*'` counts only
//! the calls (instructions per call = total / (N × pairs)).

use dem_convex::generate::{cube, rock};
use dem_convex::{contact, intersect, ContactOptions, Polyhedron};
use nalgebra::{Isometry3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::hint::black_box;
use std::time::Instant;

fn pairs(
    shape: &dyn Fn(&mut Pcg64) -> Polyhedron,
    offset: f64,
    n: usize,
    seed: u64,
) -> Vec<(Polyhedron, Polyhedron)> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let rot = |rng: &mut Pcg64| {
        UnitQuaternion::from_scaled_axis(
            Vector3::new(rng.random(), rng.random(), rng.random()) * 3.0,
        )
    };
    (0..n)
        .map(|_| {
            let a = shape(&mut rng).transformed(&Isometry3::from_parts(
                Vector3::zeros().into(),
                rot(&mut rng),
            ));
            let dir = Vector3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            )
            .normalize();
            let b = shape(&mut rng)
                .transformed(&Isometry3::from_parts((dir * offset).into(), rot(&mut rng)));
            (a, b)
        })
        .collect()
}

fn time(
    name: &str,
    set: &[(Polyhedron, Polyhedron)],
    f: &dyn Fn(&Polyhedron, &Polyhedron) -> bool,
) {
    // DEM_BENCH_FILTER=substring runs only the matching lines (for profiling).
    if let Ok(filter) = std::env::var("DEM_BENCH_FILTER") {
        if !name.contains(&filter) {
            return;
        }
    }
    // Warm up, then repeat the set until at least 0.5 s has passed.
    let mut hits = 0;
    for (a, b) in set {
        hits += usize::from(f(a, b));
    }
    if let Some(n) = std::env::var("DEM_BENCH_PASSES")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        for _ in 0..n {
            pass(set, f);
        }
        println!(
            "{name:<36} {n} untimed passes   ({hits}/{} pairs in contact)",
            set.len()
        );
        return;
    }
    let start = Instant::now();
    let cpu0 = thread_cpu_ns();
    let mut calls = 0u64;
    while start.elapsed().as_secs_f64() < 0.5 {
        for (a, b) in set {
            black_box(f(black_box(a), black_box(b)));
        }
        calls += set.len() as u64;
    }
    let wall = start.elapsed().as_nanos() as f64 / calls as f64;
    let cpu = match (cpu0, thread_cpu_ns()) {
        (Some(a), Some(b)) => format!("{:>8.0} ns on CPU", (b - a) as f64 / calls as f64),
        _ => String::new(),
    };
    println!(
        "{name:<36} {wall:>8.0} ns wall {cpu}   ({hits}/{} pairs in contact)",
        set.len()
    );
}

/// One call of `f` per pair: the unit that callgrind's `--toggle-collect` counts.
#[inline(never)]
fn pass(set: &[(Polyhedron, Polyhedron)], f: &dyn Fn(&Polyhedron, &Polyhedron) -> bool) {
    for (a, b) in set {
        black_box(f(black_box(a), black_box(b)));
    }
}

/// CPU time of this thread (ns) from Linux's schedstat: unlike wall time it is not
/// inflated when other processes share the cores.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() {
    let opts = ContactOptions::for_size(1.0);
    let cubes = |_: &mut Pcg64| cube(1.0).unwrap();
    let rocks = |rng: &mut Pcg64| rock(rng.random(), 30, Vector3::new(0.6, 0.5, 0.4)).unwrap();
    let overlapping = pairs(&cubes, 0.6, 1000, 1);
    let separated = pairs(&cubes, 2.0, 1000, 2);
    let rock_pairs = pairs(&rocks, 0.6, 1000, 3);
    // Apart, but with overlapping bounding spheres (what a broad phase hands over).
    let near = |set: Vec<(Polyhedron, Polyhedron)>| -> Vec<(Polyhedron, Polyhedron)> {
        set.into_iter()
            .filter(|(a, b)| dem_convex::gjk_distance(a, b).distance > 1e-3)
            .take(1000)
            .collect()
    };
    let near_cubes = near(pairs(&cubes, 1.3, 5000, 4));
    let near_rocks = near(pairs(&rocks, 1.0, 3000, 5));
    time("cube-cube intersect, overlapping", &overlapping, &|a, b| {
        intersect(a, b, 1e-6).is_ok()
    });
    time("cube-cube contact, overlapping", &overlapping, &|a, b| {
        contact(a, b, &opts).is_ok()
    });
    time("cube-cube contact, separated", &separated, &|a, b| {
        contact(a, b, &opts).is_ok()
    });
    time("cube-cube contact, near miss", &near_cubes, &|a, b| {
        contact(a, b, &opts).is_ok()
    });
    time("rock-rock contact, near miss", &near_rocks, &|a, b| {
        contact(a, b, &opts).is_ok()
    });
    time(
        "rock-rock intersect (30-point hulls)",
        &rock_pairs,
        &|a, b| intersect(a, b, 1e-6).is_ok(),
    );
    time(
        "rock-rock contact (30-point hulls)",
        &rock_pairs,
        &|a, b| contact(a, b, &opts).is_ok(),
    );
    // The stages of an overlapping cube-cube intersection.
    time("  stage: GJK", &overlapping, &|a, b| {
        dem_convex::gjk_distance(a, b).distance > 0.0
    });
    time("  stage: Chebyshev centre LP", &overlapping, &|a, b| {
        dem_convex::chebyshev_centre(a, b).is_ok()
    });
    time("  stage: hull of 12 polar points", &overlapping, &|a, b| {
        let c = dem_convex::chebyshev_centre(a, b).unwrap();
        let q: Vec<nalgebra::Point3<f64>> = a
            .faces()
            .iter()
            .chain(b.faces())
            .map(|f| (f.normal * (c.radius / (f.offset - f.normal.dot(&c.point.coords)))).into())
            .collect();
        dem_convex::convex_hull(&q).is_ok()
    });
}
