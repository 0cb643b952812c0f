//! Nanoseconds per cube-cube intersection and contact, overlapping and separated,
//! and per rock-rock contact. Run with `cargo bench -p dem-convex`.
//!
//! For instruction counts (repeatable on a loaded machine): `DEM_BENCH_PASSES=N` runs
//! each selected set exactly N times through [`pass`], untimed, so that
//! `valgrind --tool=callgrind --toggle-collect='intersection::pass*'` counts only
//! the calls (instructions per call = total / (N × pairs)).
//!
//! `DEM_BENCH_DIGEST=1` prints instead a hash of every bit of the results (GJK,
//! Chebyshev centre, intersection, contact) on all sets plus degenerate and touching
//! pairs: equal digests before and after a change show that it left results bitwise
//! unchanged.

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

fn time<T>(name: &str, set: &[T], f: &dyn Fn(&T) -> bool) {
    // DEM_BENCH_FILTER=substring runs only the matching lines (for profiling);
    // `=name` only the line of that exact name.
    if let Ok(filter) = std::env::var("DEM_BENCH_FILTER") {
        let hit = match filter.strip_prefix('=') {
            Some(exact) => name == exact,
            None => name.contains(&filter),
        };
        if !hit {
            return;
        }
    }
    // Warm up, then repeat the set until at least 0.5 s has passed.
    let mut hits = 0;
    for x in set {
        hits += usize::from(f(x));
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
        for x in set {
            black_box(f(black_box(x)));
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
fn pass<T>(set: &[T], f: &dyn Fn(&T) -> bool) {
    for x in set {
        black_box(f(black_box(x)));
    }
}

/// CPU time of this thread (ns) from Linux's schedstat: unlike wall time it is not
/// inflated when other processes share the cores.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Hash of every bit of the results on `sets` (see the module doc).
fn digest(sets: &[&[(Polyhedron, Polyhedron)]]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let bits = |x: &[f64], h: &mut std::collections::hash_map::DefaultHasher| {
        for v in x {
            v.to_bits().hash(h);
        }
    };
    let opts = ContactOptions::for_size(1.0);
    for set in sets {
        for (a, b) in set.iter() {
            let p = dem_convex::gjk_distance(a, b);
            bits(&[p.distance], &mut h);
            bits(p.point_a.coords.as_slice(), &mut h);
            bits(p.point_b.coords.as_slice(), &mut h);
            p.iterations.hash(&mut h);
            match dem_convex::chebyshev_centre(a, b) {
                Ok(c) => {
                    bits(c.point.coords.as_slice(), &mut h);
                    bits(&[c.radius], &mut h);
                    for (body, i, l) in &c.active {
                        (body, i).hash(&mut h);
                        bits(&[*l], &mut h);
                    }
                }
                Err(e) => e.0.hash(&mut h),
            }
            match intersect(a, b, 1e-6) {
                Ok(i) => {
                    for v in i.polyhedron.vertices() {
                        bits(v.coords.as_slice(), &mut h);
                    }
                    for f in i.polyhedron.faces() {
                        f.vertices.hash(&mut h);
                        bits(f.normal.as_slice(), &mut h);
                        bits(&[f.offset], &mut h);
                    }
                    for s in &i.sources {
                        (s.a, s.b).hash(&mut h);
                    }
                }
                Err(e) => format!("{e:?}").hash(&mut h),
            }
            match contact(a, b, &opts) {
                Ok(c) => {
                    bits(c.point.coords.as_slice(), &mut h);
                    bits(c.normal.as_slice(), &mut h);
                    bits(&[c.area, c.volume, c.gap, c.conditioning], &mut h);
                    c.faces.hash(&mut h);
                    format!("{:?}", c.kind).hash(&mut h);
                }
                Err(e) => format!("{e:?}").hash(&mut h),
            }
        }
    }
    h.finish()
}

/// Slivers, needles, flat rocks and cubes, overlapping, touching face to face and
/// apart: the unusual paths of the computation.
fn unusual_pairs() -> Vec<(Polyhedron, Polyhedron)> {
    use dem_convex::generate::cuboid;
    use nalgebra::Point3;
    let mut rng = Pcg64::seed_from_u64(21);
    let mut out = Vec::new();
    for k in 0..600 {
        let shape = |rng: &mut Pcg64| match rng.random_range(0..4) {
            0 => cuboid(Point3::new(-0.5, -0.5, -1e-7), Point3::new(0.5, 0.5, 1e-7)).unwrap(),
            1 => cuboid(
                Point3::new(-1e-6, -1e-6, -0.7),
                Point3::new(1e-6, 1e-6, 0.7),
            )
            .unwrap(),
            2 => rock(rng.random(), 200, Vector3::new(0.6, 0.6, 1e-4)).unwrap(),
            _ => cube(1.0).unwrap(),
        };
        let a = shape(&mut rng);
        let b = shape(&mut rng);
        let b = if k % 5 == 0 {
            // Cubes face to face (touching) or a hair apart or into each other.
            let c = cube(1.0).unwrap();
            let dz = [1.0, 1.0 + 1e-9, 1.0 - 1e-9, 0.999, 1.0 + 1e-7][k / 5 % 5];
            out.push((
                c.clone(),
                c.translated(&Vector3::new(rng.random_range(-0.5..0.5), 0.3, dz)),
            ));
            // Flush side faces (coplanar planes of A and B merged).
            let dx = [0.0, 0.2, 1e-12][k / 5 % 3];
            out.push((c.clone(), c.translated(&Vector3::new(dx, 0.0, dz))));
            b
        } else {
            b
        };
        let iso = Isometry3::new(
            Vector3::new(
                rng.random_range(-0.3..0.3),
                rng.random_range(-0.3..0.3),
                rng.random_range(-0.3..0.3),
            ),
            Vector3::new(
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
                rng.random_range(-2.0..2.0),
            ),
        );
        out.push((a, b.transformed(&iso)));
    }
    out
}

/// Each pair of `set` with the unit direction (from A to B) along which GJK found them
/// apart one step before: B moved back by 1e-3 along a random direction and turned
/// back by 1e-3 rad about its centre.
fn with_axes(
    set: &[(Polyhedron, Polyhedron)],
    seed: u64,
) -> Vec<(Polyhedron, Polyhedron, Vector3<f64>)> {
    let mut rng = Pcg64::seed_from_u64(seed);
    set.iter()
        .map(|(a, b)| {
            let mut unit = || {
                Vector3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                )
                .normalize()
            };
            let (lo, hi) = b.aabb();
            let centre = (lo.coords + hi.coords) * 0.5;
            let turn = UnitQuaternion::from_scaled_axis(unit() * 1e-3);
            let shift = unit() * 1e-3;
            let before = b.transformed(
                &(Isometry3::translation(centre.x, centre.y, centre.z)
                    * Isometry3::from_parts((shift).into(), turn)
                    * Isometry3::translation(-centre.x, -centre.y, -centre.z)),
            );
            let p = dem_convex::gjk_distance(a, &before);
            let n = (p.point_b - p.point_a).normalize();
            (a.clone(), b.clone(), n)
        })
        .collect()
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
    // Resting contacts as in a settled pile: B moved along its offset direction until
    // the bodies just touch, then `depth` back into A.
    let shallow = |set: Vec<(Polyhedron, Polyhedron)>,
                   depth: f64|
     -> Vec<(Polyhedron, Polyhedron)> {
        set.into_iter()
            .map(|(a, b)| {
                let dir = (b.aabb().0.coords + b.aabb().1.coords).normalize();
                let (mut lo, mut hi) = (0.0, 4.0);
                for _ in 0..50 {
                    let mid = 0.5 * (lo + hi);
                    if dem_convex::gjk_distance(&a, &b.translated(&(dir * mid))).distance > 0.0 {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                let b = b.translated(&(dir * (hi - depth)));
                (a, b)
            })
            .collect()
    };
    let shallow_cubes = shallow(pairs(&cubes, 0.6, 1000, 6), 0.01);
    let shallow_rocks = shallow(pairs(&rocks, 0.6, 1000, 7), 0.005);
    if std::env::var("DEM_BENCH_DIGEST").is_ok() {
        let unusual = unusual_pairs();
        println!(
            "digest {:016x}",
            digest(&[
                &overlapping,
                &separated,
                &rock_pairs,
                &near_cubes,
                &near_rocks,
                &shallow_cubes,
                &shallow_rocks,
                &unusual
            ])
        );
        return;
    }
    time("cube-cube intersect, overlapping", &overlapping, &|(
        a,
        b,
    )| {
        intersect(a, b, 1e-6).is_ok()
    });
    time("cube-cube contact, overlapping", &overlapping, &|(a, b)| {
        contact(a, b, &opts).is_ok()
    });
    time("cube-cube contact, separated", &separated, &|(a, b)| {
        contact(a, b, &opts).is_ok()
    });
    time("cube-cube contact, near miss", &near_cubes, &|(a, b)| {
        contact(a, b, &opts).is_ok()
    });
    time("rock-rock contact, near miss", &near_rocks, &|(a, b)| {
        contact(a, b, &opts).is_ok()
    });
    // Temporal coherence (the polyhedron functor's pair cache): pairs apart with the
    // direction GJK found for them one step earlier, B then 1e-3 nearer along a random
    // direction and turned by 1e-3 rad about its centre. The shadows on that direction
    // are compared (an exact rejection, as in the functor, with its margin); only pairs
    // it cannot reject go to the full computation.
    let cached_sets = [
        (
            "cube-cube contact, separated, cached",
            with_axes(&separated, 8),
        ),
        (
            "cube-cube contact, near miss, cached",
            with_axes(&near_cubes, 9),
        ),
        (
            "rock-rock contact, near miss, cached",
            with_axes(&near_rocks, 10),
        ),
    ];
    for (name, set) in &cached_sets {
        time(name, set, &|(a, b, n)| {
            let gap = n.dot(&b.support(&-n).1.coords) - n.dot(&a.support(n).1.coords);
            // The functor's margin from its stored bounding radii (about 1 here).
            let margin = 1e-9 * 2.0;
            if gap > opts.epsilon + margin {
                return false;
            }
            contact(a, b, &opts).is_ok()
        });
    }
    time("cube-cube contact, shallow", &shallow_cubes, &|(a, b)| {
        contact(a, b, &opts).is_ok()
    });
    time("rock-rock contact, shallow", &shallow_rocks, &|(a, b)| {
        contact(a, b, &opts).is_ok()
    });
    time("rock-rock intersect, shallow", &shallow_rocks, &|(a, b)| {
        intersect(a, b, 1e-6).is_ok()
    });
    time(
        "rock-rock exact-path intersect, shallow",
        &shallow_rocks,
        &|(a, b)| dem_convex::intersect_exact(a, b, 1e-6).is_ok(),
    );
    time(
        "rock-rock exact-path intersect (30-point)",
        &rock_pairs,
        &|(a, b)| dem_convex::intersect_exact(a, b, 1e-6).is_ok(),
    );
    time(
        "rock-rock intersect (30-point hulls)",
        &rock_pairs,
        &|(a, b)| intersect(a, b, 1e-6).is_ok(),
    );
    time("rock-rock contact (30-point hulls)", &rock_pairs, &|(
        a,
        b,
    )| {
        contact(a, b, &opts).is_ok()
    });
    // The stages of an overlapping cube-cube intersection.
    time("  stage: GJK", &overlapping, &|(a, b)| {
        dem_convex::gjk_distance(a, b).distance > 0.0
    });
    time("  stage: Chebyshev centre LP", &overlapping, &|(a, b)| {
        dem_convex::chebyshev_centre(a, b).is_ok()
    });
    time("  stage: hull of 12 polar points", &overlapping, &|(
        a,
        b,
    )| {
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
