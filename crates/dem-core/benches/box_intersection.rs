//! Box-intersection timings: the hybrid streamed segment tree against the one-way scan on
//! sphere boxes, N = 1e4 and 1e5 (and one hybrid call at 1e6), plus a cutoff sweep.
//!
//! Run: `cargo bench -p dem-core --bench box_intersection`.
//! Sets (seeded, uniform random centres, boxes = sphere + half a skin on each side, skin 5 %
//! of the smallest diameter):
//! - settle: monodisperse d = 1 in a settle-scene footprint (25 x 40 for 1e4, 100 x 100
//!   for 1e5) filled to solid fraction 0.6;
//! - poly: radii log-uniform over 100:1, cube at nominal solid fraction 0.5.
//!
//! For N = 1e4 the existing cell grid (`VerletList::rebuild`, sphere-distance test with the
//! same skin) is timed too, for context.

use dem_api::SphereShape;
use dem_core::engines::broadphase::VerletList;
use dem_core::model::particles::{Dofs, Particles, Shape};
use dem_core::support::box_intersection::{Aabb, BoxIntersection, DEFAULT_CUTOFF};
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::time::Instant;

/// Sphere centres and radii.
type Spheres = Vec<([f64; 3], f64)>;

fn boxes_of(spheres: &Spheres, skin: f64) -> Vec<Aabb> {
    spheres
        .iter()
        .enumerate()
        .map(|(i, &(c, r))| Aabb {
            lo: c.map(|x| x - r - 0.5 * skin),
            hi: c.map(|x| x + r + 0.5 * skin),
            id: i as u32,
        })
        .collect()
}

fn particles_of(spheres: &Spheres) -> Particles {
    let mut p = Particles::default();
    for &(c, r) in spheres {
        let z = Vector3::zeros();
        let shape = Shape::Sphere(SphereShape { radius: r });
        p.push(
            shape,
            Vector3::from(c),
            z,
            z,
            1.0,
            Vector3::repeat(1.0),
            Dofs::FREE,
            0,
        );
    }
    p
}

fn settle(n: usize, rng: &mut Pcg64) -> Spheres {
    let (lx, ly) = if n <= 10_000 {
        (25.0, 40.0)
    } else {
        (100.0, 100.0)
    };
    let lz = n as f64 * std::f64::consts::PI / 6.0 / (0.6 * lx * ly);
    (0..n)
        .map(|_| {
            let c = [lx, ly, lz].map(|l| 0.5 + rng.random::<f64>() * (l - 1.0).max(0.0));
            (c, 0.5)
        })
        .collect()
}

fn poly(n: usize, rng: &mut Pcg64) -> Spheres {
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
        .map(|&r| ([(); 3].map(|_| rng.random::<f64>() * side), r))
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
    let spheres: Vec<(String, Spheres, f64)> = [10_000, 100_000]
        .into_iter()
        .flat_map(|n| {
            [
                (format!("settle N={n}"), settle(n, &mut rng), 0.05),
                (format!("poly100 N={n}"), poly(n, &mut rng), 0.005),
            ]
        })
        .collect();
    let sets: Vec<(String, Vec<Aabb>)> = spheres
        .iter()
        .map(|(name, s, skin)| (name.clone(), boxes_of(s, *skin)))
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
    println!("cell grid (VerletList::rebuild, sphere gap < skin), N = 1e4, for context");
    for (name, s, skin) in spheres.iter().filter(|(_, s, _)| s.len() <= 10_000) {
        let p = particles_of(s);
        let mut list = VerletList::default();
        let (t, pairs) = time(5, || {
            list.rebuild(&p, 0.0, *skin);
            list.pairs.len()
        });
        println!("{name:<18} {t:>8.2} ms, {pairs} sphere pairs");
    }

    println!();
    let big = settle_big(&mut rng);
    let (t, p) = time(1, || {
        bi.self_pairs(&big, &mut out);
        out.len()
    });
    println!("settle-like N=1e6 (1000 x 100 footprint), hybrid unsorted: {t:.0} ms, {p} pairs");
}

fn settle_big(rng: &mut Pcg64) -> Vec<Aabb> {
    let spheres = settle_big_spheres(rng);
    boxes_of(&spheres, 0.05)
}

fn settle_big_spheres(rng: &mut Pcg64) -> Spheres {
    let n = 1_000_000;
    let (lx, ly) = (1000.0, 100.0);
    let lz = n as f64 * std::f64::consts::PI / 6.0 / (0.6 * lx * ly);
    (0..n)
        .map(|_| {
            let c = [lx, ly, lz].map(|l: f64| 0.5 + rng.random::<f64>() * (l - 1.0));
            (c, 0.5)
        })
        .collect()
}
