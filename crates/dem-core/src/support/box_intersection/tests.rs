//! Against brute force on random and degenerate box sets: same pairs, each exactly once.

use super::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Every pair of distinct boxes overlapping (closed) on all axes, `(min id, max id)`, sorted.
fn brute(boxes: &[Aabb]) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for (n, a) in boxes.iter().enumerate() {
        for b in &boxes[n + 1..] {
            if touch(a, b) {
                v.push((a.id.min(b.id), a.id.max(b.id)));
            }
        }
    }
    v.sort_unstable();
    v
}

fn brute_bipartite(a: &[Aabb], b: &[Aabb]) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for x in a {
        for y in b {
            if touch(x, y) {
                v.push((x.id, y.id));
            }
        }
    }
    v.sort_unstable();
    v
}

fn touch(a: &Aabb, b: &Aabb) -> bool {
    (0..3).all(|k| a.lo[k] <= b.hi[k] && b.lo[k] <= a.hi[k])
}

fn sphere_box(c: [f64; 3], r: f64, id: u32) -> Aabb {
    Aabb {
        lo: c.map(|x| x - r),
        hi: c.map(|x| x + r),
        id,
    }
}

/// Spheres of radius 1 at uniform random centres, about 0.5 solid fraction.
fn monodisperse(n: usize, rng: &mut Pcg64) -> Vec<Aabb> {
    let side = (n as f64 * 4.19 / 0.5).cbrt().max(1.0);
    (0..n)
        .map(|i| sphere_box([(); 3].map(|_| rng.random::<f64>() * side), 1.0, i as u32))
        .collect()
}

/// Radii log-uniform in [0.01, 1] (100:1), about 0.3 solid fraction.
fn polydisperse(n: usize, rng: &mut Pcg64) -> Vec<Aabb> {
    let radii: Vec<f64> = (0..n)
        .map(|_| 0.01 * 100f64.powf(rng.random::<f64>()))
        .collect();
    let vol: f64 = radii.iter().map(|r| 4.19 * r * r * r).sum();
    let side = (vol / 0.3).cbrt().max(0.1);
    radii
        .iter()
        .enumerate()
        .map(|(i, &r)| sphere_box([(); 3].map(|_| rng.random::<f64>() * side), r, i as u32))
        .collect()
}

/// A few tight clusters of small boxes with random sizes.
fn clustered(n: usize, rng: &mut Pcg64) -> Vec<Aabb> {
    let centres: Vec<[f64; 3]> = (0..5)
        .map(|_| [(); 3].map(|_| rng.random::<f64>() * 100.0))
        .collect();
    (0..n)
        .map(|i| {
            let c = centres[rng.random_range(0..centres.len())];
            let p = c.map(|x| x + (rng.random::<f64>() - 0.5) * 6.0);
            sphere_box(p, 0.05 + rng.random::<f64>() * 0.5, i as u32)
        })
        .collect()
}

/// Boxes whose corners are on an integer grid 0..4 (many equal coordinates, touching faces,
/// zero-size boxes, -0.0 next to 0.0).
fn degenerate(n: usize, rng: &mut Pcg64) -> Vec<Aabb> {
    (0..n)
        .map(|i| {
            let mut lo = [0.0; 3];
            let mut hi = [0.0; 3];
            for k in 0..3 {
                let a = rng.random_range(0..5) as f64;
                let w = rng.random_range(0..3) as f64;
                lo[k] = if a == 0.0 && rng.random::<bool>() {
                    -0.0
                } else {
                    a
                };
                hi[k] = if rng.random::<bool>() { a } else { a + w };
            }
            Aabb {
                lo,
                hi,
                id: i as u32,
            }
        })
        .collect()
}

/// All boxes identical.
fn identical(n: usize, _: &mut Pcg64) -> Vec<Aabb> {
    (0..n)
        .map(|i| sphere_box([1.0, 2.0, 3.0], 0.5, i as u32))
        .collect()
}

/// Boxes of different sizes all containing one point (every pair intersects).
fn one_spot(n: usize, rng: &mut Pcg64) -> Vec<Aabb> {
    (0..n)
        .map(|i| Aabb {
            lo: [(); 3].map(|_| -rng.random::<f64>()),
            hi: [(); 3].map(|_| rng.random::<f64>() * 3.0),
            id: i as u32,
        })
        .collect()
}

/// Zero-size boxes on a line along y, touching neighbours end to end along x.
fn points_and_chain(n: usize, _: &mut Pcg64) -> Vec<Aabb> {
    (0..n)
        .map(|i| {
            let x = (i / 2) as f64;
            if i % 2 == 0 {
                Aabb {
                    lo: [x, 0.0, 0.0],
                    hi: [x, 0.0, 0.0],
                    id: i as u32,
                }
            } else {
                Aabb {
                    lo: [x, 0.0, 0.0],
                    hi: [x + 1.0, 0.0, 0.0],
                    id: i as u32,
                }
            }
        })
        .collect()
}

type Gen = fn(usize, &mut Pcg64) -> Vec<Aabb>;
const GENERATORS: [(&str, Gen); 7] = [
    ("monodisperse", monodisperse),
    ("polydisperse", polydisperse),
    ("clustered", clustered),
    ("degenerate", degenerate),
    ("identical", identical),
    ("one spot", one_spot),
    ("points and chain", points_and_chain),
];

fn assert_once(name: &str, got: &[(u32, u32)], want: &[(u32, u32)]) {
    for w in got.windows(2) {
        assert!(w[0] < w[1], "{name}: not sorted or duplicate {:?}", w);
    }
    assert_eq!(got.len(), want.len(), "{name}: pair count");
    assert_eq!(got, want, "{name}: pairs differ");
}

/// Sizes worth testing for a generator (the all-pairs sets stay small).
fn sizes(name: &str) -> &'static [usize] {
    match name {
        "identical" | "one spot" => &[0, 1, 2, 3, 7, 40, 300],
        _ => &[0, 1, 2, 3, 5, 10, 33, 100, 400, 2000],
    }
}

#[test]
fn hybrid_and_scan_match_brute_force() {
    let mut rng = Pcg64::seed_from_u64(7);
    let mut bi = BoxIntersection::new();
    let mut out = Vec::new();
    for (name, generate) in GENERATORS {
        for &n in sizes(name) {
            let boxes = generate(n, &mut rng);
            let want = brute(&boxes);
            for cutoff in [2, 3, 16, DEFAULT_CUTOFF] {
                bi.cutoff = cutoff;
                bi.self_pairs(&boxes, &mut out);
                assert_once(&format!("{name} n={n} cutoff={cutoff}"), &out, &want);
            }
            bi.scan_self_pairs(&boxes, &mut out);
            assert_once(&format!("{name} n={n} scan"), &out, &want);
        }
    }
}

#[test]
fn every_sweep_axis_and_unsorted_output() {
    let mut rng = Pcg64::seed_from_u64(8);
    let mut bi = BoxIntersection::new();
    bi.sort_output = false;
    bi.cutoff = 4;
    let mut out = Vec::new();
    for (name, generate) in GENERATORS {
        let boxes = generate(250, &mut rng);
        let want = brute(&boxes);
        for axis in 0..3 {
            bi.sweep_axis = Some(axis);
            bi.self_pairs(&boxes, &mut out);
            let first = out.clone();
            out.sort_unstable();
            assert_once(&format!("{name} axis {axis}"), &out, &want);
            // The unsorted order depends only on the input and settings.
            bi.self_pairs(&boxes, &mut out);
            assert_eq!(out, first, "{name}: order not repeatable");
            bi.scan_self_pairs(&boxes, &mut out);
            out.sort_unstable();
            assert_once(&format!("{name} axis {axis} scan"), &out, &want);
        }
    }
}

#[test]
fn bipartite_matches_brute_force() {
    let mut rng = Pcg64::seed_from_u64(9);
    let mut bi = BoxIntersection::new();
    let mut out = Vec::new();
    for (name, generate) in GENERATORS {
        for &(na, nb) in &[(0, 5), (5, 0), (1, 1), (30, 7), (300, 500), (1500, 1000)] {
            if matches!(name, "identical" | "one spot") && na + nb > 800 {
                continue;
            }
            let a = generate(na, &mut rng);
            // Ids of the second set overlap those of the first: they need not be distinct.
            let b = generate(nb, &mut rng);
            let want = brute_bipartite(&a, &b);
            for cutoff in [2, 16, DEFAULT_CUTOFF] {
                bi.cutoff = cutoff;
                bi.bipartite_pairs(&a, &b, &mut out);
                assert_eq!(out, want, "{name} {na}x{nb} cutoff {cutoff}");
            }
            bi.scan_bipartite_pairs(&a, &b, &mut out);
            assert_eq!(out, want, "{name} {na}x{nb} scan");
        }
    }
}

#[test]
fn ids_are_reported_not_positions() {
    // Shuffled, sparse ids; the output is sorted by id with a < b.
    let mut rng = Pcg64::seed_from_u64(10);
    let mut boxes = polydisperse(1500, &mut rng);
    for b in boxes.iter_mut() {
        b.id = b.id * 7919 % 100_003 + 70_000;
    }
    boxes.reverse();
    let want = brute(&boxes);
    assert_once("sparse ids", &self_intersections(&boxes), &want);
    assert_once("sparse ids scan", &scan_self_intersections(&boxes), &want);
}

#[test]
fn touching_faces_edges_and_corners_count() {
    let unit = |x: f64, y: f64, z: f64, id| Aabb {
        lo: [x, y, z],
        hi: [x + 1.0, y + 1.0, z + 1.0],
        id,
    };
    let boxes = [
        unit(0.0, 0.0, 0.0, 0),
        unit(1.0, 0.0, 0.0, 1),         // face
        unit(1.0, 1.0, 0.0, 2),         // edge with 0, face with 1
        unit(1.0, 1.0, 1.0, 3),         // corner with 0
        unit(2.0 + 1e-12, 0.0, 0.0, 4), // a hair away from 1's face
    ];
    // 4 is a hair away from 1's face and touches nobody.
    assert_eq!(
        brute(&boxes),
        [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    );
    assert_eq!(self_intersections(&boxes), brute(&boxes));
    assert_eq!(scan_self_intersections(&boxes), brute(&boxes));
}

#[test]
fn large_sets_with_shared_coordinates_keep_the_recursion_shallow() {
    // 30k disjoint zero-size boxes that share y and z and differ in x, swept along x: on the
    // tree axes (z, then y) every box holds every later one, so every split relies on the
    // position tie-break and all pairs travel down as spanning sets to the x scan, which
    // rejects them. Run on a small stack with the smallest cutoff.
    let boxes: Vec<Aabb> = (0..30_000)
        .map(|i| Aabb {
            lo: [i as f64, 0.0, 0.0],
            hi: [i as f64, 0.0, 0.0],
            id: i,
        })
        .collect();
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let mut bi = BoxIntersection::new();
            bi.cutoff = 2;
            bi.sweep_axis = Some(0);
            let mut out = Vec::new();
            bi.self_pairs(&boxes, &mut out);
            out
        })
        .unwrap();
    assert!(handle.join().unwrap().is_empty());
}

#[test]
fn radix_sort_sorts() {
    let mut rng = Pcg64::seed_from_u64(11);
    for (n, range) in [(5000, 1u32 << 20), (70_000, 300), (10_000, u32::MAX)] {
        let mut v: Vec<(u32, u32)> = (0..n)
            .map(|_| (rng.random_range(0..range), rng.random_range(0..range)))
            .collect();
        let mut want = v.clone();
        want.sort_unstable();
        radix_sort_pairs(&mut v, &mut Vec::new(), &mut Vec::new());
        assert_eq!(v, want);
    }
}

#[test]
fn many_random_small_configurations() {
    // Mixed sets (boxes from two generators side by side), random sizes, cutoffs and axes:
    // the branches of the recursion are reached in many combinations.
    let mut rng = Pcg64::seed_from_u64(12);
    let mut bi = BoxIntersection::new();
    let mut out = Vec::new();
    for round in 0..300 {
        let (_, g1) = GENERATORS[rng.random_range(0..GENERATORS.len())];
        let (_, g2) = GENERATORS[rng.random_range(0..GENERATORS.len())];
        let mut boxes = g1(rng.random_range(0..150), &mut rng);
        let offset = boxes.len() as u32;
        boxes.extend(
            g2(rng.random_range(0..150), &mut rng)
                .into_iter()
                .map(|mut b| {
                    b.id += offset;
                    b
                }),
        );
        let want = brute(&boxes);
        bi.cutoff = rng.random_range(2..40);
        bi.sweep_axis = [None, Some(0), Some(1), Some(2)][rng.random_range(0..4)];
        bi.seed = rng.random();
        bi.self_pairs(&boxes, &mut out);
        assert_once(&format!("round {round}"), &out, &want);
        let split = rng.random_range(0..=boxes.len());
        let (a, b) = boxes.split_at(split);
        bi.bipartite_pairs(a, b, &mut out);
        assert_eq!(out, brute_bipartite(a, b), "round {round} bipartite");
    }
}

#[test]
fn infinite_boxes() {
    // Half-spaces and slabs (infinite coordinates) among ordinary boxes.
    let mut rng = Pcg64::seed_from_u64(13);
    let mut boxes = monodisperse(400, &mut rng);
    let n = boxes.len() as u32;
    let inf = f64::INFINITY;
    boxes.push(Aabb {
        lo: [-inf; 3],
        hi: [inf, inf, 2.0],
        id: n,
    });
    boxes.push(Aabb {
        lo: [3.0, -inf, -inf],
        hi: [3.0, inf, inf],
        id: n + 1,
    });
    boxes.push(Aabb {
        lo: [-inf; 3],
        hi: [inf; 3],
        id: n + 2,
    });
    boxes.push(Aabb {
        lo: [5.0, 5.0, 5.0],
        hi: [inf; 3],
        id: n + 3,
    });
    let want = brute(&boxes);
    let mut bi = BoxIntersection::new();
    let mut out = Vec::new();
    for cutoff in [2, 16, DEFAULT_CUTOFF] {
        for axis in [None, Some(0), Some(2)] {
            bi.cutoff = cutoff;
            bi.sweep_axis = axis;
            bi.self_pairs(&boxes, &mut out);
            assert_once(&format!("cutoff {cutoff} axis {axis:?}"), &out, &want);
            bi.scan_self_pairs(&boxes, &mut out);
            assert_once(&format!("scan axis {axis:?}"), &out, &want);
        }
    }
}
