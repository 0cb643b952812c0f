//! Box-intersection timings: the hybrid streamed segment tree against the one-way scan on
//! sphere boxes, N = 1e4 and 1e5 (and one hybrid call at 1e6), plus a cutoff sweep.
//!
//! Run: `cargo bench -p dem-core --bench box_intersection`.
//! Sets (seeded, uniform random centres, boxes = sphere + 2.5 % of d on each side):
//! - settle: monodisperse d = 1 in a settle-scene footprint (25 x 40 for 1e4, 100 x 100
//!   for 1e5) filled to solid fraction 0.6;
//! - poly: radii log-uniform over 100:1, cube at nominal solid fraction 0.5.

use dem_core::box_intersection::{Aabb, BoxIntersection, DEFAULT_CUTOFF};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::time::Instant;

fn sphere_box(c: [f64; 3], r: f64, id: u32) -> Aabb {
    let h = r + 0.025 * 2.0 * r;
    Aabb {
        lo: c.map(|x| x - h),
        hi: c.map(|x| x + h),
        id,
    }
}

fn settle(n: usize, rng: &mut Pcg64) -> Vec<Aabb> {
    let (lx, ly) = if n <= 10_000 {
        (25.0, 40.0)
    } else {
        (100.0, 100.0)
    };
    let lz = n as f64 * std::f64::consts::PI / 6.0 / (0.6 * lx * ly);
    (0..n)
        .map(|i| {
            let c = [lx, ly, lz].map(|l| 0.5 + rng.random::<f64>() * (l - 1.0).max(0.0));
            sphere_box(c, 0.5, i as u32)
        })
        .collect()
}

fn poly(n: usize, rng: &mut Pcg64) -> Vec<Aabb> {
    let radii: Vec<f64> = (0..n)
        .map(|_| 0.05 * 100f64.powf(rng.random::<f64>()))
        .collect();
    let vol: f64 = radii
        .iter()
        .map(|r| 4.0 / 3.0 * std::f64::consts::PI * r * r * r)
        .sum();
    let side = (vol / 0.5).cbrt();
    radii
        .iter()
        .enumerate()
        .map(|(i, &r)| sphere_box([(); 3].map(|_| rng.random::<f64>() * side), r, i as u32))
        .collect()
}

/// Shortest wall time of `reps` calls (after one warm-up), in ms, and the pair count. The
/// minimum, not the median: the machine is shared and interference only adds time.
fn time(reps: usize, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let pairs = f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            std::hint::black_box(f());
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[0], pairs)
}

fn main() {
    let mut rng = Pcg64::seed_from_u64(2026);
    let sets: Vec<(String, Vec<Aabb>)> = [10_000, 100_000]
        .into_iter()
        .flat_map(|n| {
            [
                (format!("settle N={n}"), settle(n, &mut rng)),
                (format!("poly100 N={n}"), poly(n, &mut rng)),
            ]
        })
        .collect();
    let mut bi = BoxIntersection::new();
    let mut out = Vec::new();
    if let Ok(which) = std::env::var("BOXINT_PROFILE") {
        // Profiling aid: repeat the hybrid on one set, e.g. BOXINT_PROFILE="settle N=100000".
        let (_, boxes) = sets.iter().find(|(n, _)| *n == which).expect("no such set");
        bi.sort_output = false;
        let (t, p) = time(20, || {
            bi.self_pairs(boxes, &mut out);
            out.len()
        });
        println!("{which}: {t:.2} ms, {p} pairs");
        return;
    }

    println!(
        "time per call (best of 5-15), ms; pairs found; cutoff {DEFAULT_CUTOFF}, sweep axis auto"
    );
    println!(
        "{:<18} {:>10} {:>12} {:>14} {:>12} {:>9} {:>12}",
        "set", "pairs", "hybrid", "hybrid+sort", "scan+sort", "scan/hyb", "scratch B/box"
    );
    for (name, boxes) in &sets {
        let reps = if boxes.len() > 50_000 { 5 } else { 15 };
        bi.sort_output = false;
        let (th, ph) = time(reps, || {
            bi.self_pairs(boxes, &mut out);
            out.len()
        });
        bi.sort_output = true;
        let (ths, _) = time(reps, || {
            bi.self_pairs(boxes, &mut out);
            out.len()
        });
        // A fresh scratch, so that its size is this set's.
        let mut fresh = BoxIntersection::new();
        fresh.self_pairs(boxes, &mut out);
        let bytes = fresh.capacity_bytes() as f64 / boxes.len() as f64;
        let (ts, ps) = time(reps.min(5), || {
            bi.scan_self_pairs(boxes, &mut out);
            out.len()
        });
        assert_eq!(ph, ps, "{name}: hybrid and scan disagree");
        println!(
            "{name:<18} {ph:>10} {th:>12.2} {ths:>14.2} {ts:>12.2} {:>9.2} {bytes:>12.0}",
            ts / ths
        );
    }

    println!();
    println!("cutoff sweep: hybrid, unsorted output, ms per call");
    let cutoffs = [32, 64, 128, 256, 512, 1024, 2048, 4096];
    print!("{:<18}", "set");
    for c in cutoffs {
        print!(" {c:>8}");
    }
    println!();
    bi.sort_output = false;
    for (name, boxes) in &sets {
        print!("{name:<18}");
        for c in cutoffs {
            bi.cutoff = c;
            let (t, _) = time(if boxes.len() > 50_000 { 7 } else { 15 }, || {
                bi.self_pairs(boxes, &mut out);
                out.len()
            });
            print!(" {t:>8.2}");
        }
        println!();
    }
    bi.cutoff = DEFAULT_CUTOFF;

    println!();
    let big = settle_big(&mut rng);
    let (t, p) = time(1, || {
        bi.self_pairs(&big, &mut out);
        out.len()
    });
    println!("settle-like N=1e6 (1000 x 100 footprint), hybrid unsorted: {t:.0} ms, {p} pairs");
}

fn settle_big(rng: &mut Pcg64) -> Vec<Aabb> {
    let n = 1_000_000;
    let (lx, ly) = (1000.0, 100.0);
    let lz = n as f64 * std::f64::consts::PI / 6.0 / (0.6 * lx * ly);
    (0..n)
        .map(|i| {
            let c = [lx, ly, lz].map(|l: f64| 0.5 + rng.random::<f64>() * (l - 1.0));
            sphere_box(c, 0.5, i as u32)
        })
        .collect()
}
