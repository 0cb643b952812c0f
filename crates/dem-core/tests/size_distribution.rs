//! Size distributions deliver what they are asked: 20,000 radii of each kind pass a
//! Kolmogorov-Smirnov test (p > 0.01) against the target written here from its
//! definition, by number and by mass (the mass-weighted empirical distribution against
//! the cumulative mass fraction); `RandomFill` keeps the drawn sizes in a crowded box.

use dem_core::support::sampling::size_distribution::{Basis, Radius, Sampler};
use rand::SeedableRng;
use std::f64::consts::SQRT_2;
use std::path::Path;

const N: usize = 20_000;

fn draw(sampler: &Sampler, seed: u64) -> Vec<f64> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    (0..N).map(|_| sampler.sample(&mut rng)).collect()
}

/// Kolmogorov's limiting distribution: P(sqrt(n) D > lambda).
fn kolmogorov_q(lambda: f64) -> f64 {
    if lambda < 0.2 {
        return 1.0;
    }
    let s: f64 = (1..100)
        .map(|k| {
            let k = k as f64;
            let sign = if k as u64 % 2 == 1 { 1.0 } else { -1.0 };
            sign * (-2.0 * k * k * lambda * lambda).exp()
        })
        .sum();
    (2.0 * s).clamp(0.0, 1.0)
}

/// p-value of the KS test of samples `r` weighted by `w(r)` (1: by number, r^3: by
/// mass) against the cumulative distribution `target`; the effective sample size of
/// weighted samples is `(sum w)^2 / sum w^2`.
fn ks_p(r: &[f64], w: impl Fn(f64) -> f64, target: impl Fn(f64) -> f64) -> f64 {
    let mut s: Vec<(f64, f64)> = r.iter().map(|&x| (x, w(x))).collect();
    s.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = s.iter().map(|x| x.1).sum();
    let n_eff = total * total / s.iter().map(|x| x.1 * x.1).sum::<f64>();
    let (mut below, mut d) = (0.0, 0.0f64);
    let mut i = 0;
    while i < s.len() {
        // Ties (discrete distributions) step together.
        let x = s[i].0;
        let before = below / total;
        while i < s.len() && s[i].0 == x {
            below += s[i].1;
            i += 1;
        }
        let after = below / total;
        let t_left = target(x - 1e-12 * x.abs());
        let t = target(x);
        d = d.max((before - t_left).abs()).max((after - t).abs());
    }
    let sq = n_eff.sqrt();
    kolmogorov_q((sq + 0.12 + 0.11 / sq) * d)
}

fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / SQRT_2)
}

fn by_number(_: f64) -> f64 {
    1.0
}

fn by_mass(r: f64) -> f64 {
    r * r * r
}

#[test]
fn uniform_and_discrete_by_number_and_by_mass() {
    let base = Path::new(".");
    let u = Radius::Uniform(1.0, 3.0).sampler(base).unwrap();
    let r = draw(&u, 1);
    let p = ks_p(&r, by_number, |x| ((x - 1.0) / 2.0).clamp(0.0, 1.0));
    assert!(p > 0.01, "Uniform by number: p = {p}");
    // By mass: the mass below x is the integral of r^3 over [1, x].
    let p = ks_p(&r, by_mass, |x| (x.clamp(1.0, 3.0).powi(4) - 1.0) / 80.0);
    assert!(p > 0.01, "Uniform by mass: p = {p}");

    let sizes = vec![(1.0, 0.2), (2.0, 0.5), (4.0, 0.3)];
    for by in [Basis::Number, Basis::Mass] {
        let d = Radius::Discrete {
            sizes: sizes.clone(),
            by,
        }
        .sampler(base)
        .unwrap();
        let r = draw(&d, 2);
        // The fractions as given, in their own basis.
        let given = |x: f64| sizes.iter().filter(|s| s.0 <= x).map(|s| s.1).sum::<f64>();
        // The other basis: number fractions f / r^3 from mass fractions, and back.
        let other = |x: f64| {
            let conv = |s: &(f64, f64)| match by {
                Basis::Number => s.1 * s.0.powi(3),
                Basis::Mass => s.1 / s.0.powi(3),
            };
            let all: f64 = sizes.iter().map(conv).sum();
            sizes.iter().filter(|s| s.0 <= x).map(conv).sum::<f64>() / all
        };
        let (own, cross) = match by {
            Basis::Number => (ks_p(&r, by_number, given), ks_p(&r, by_mass, other)),
            Basis::Mass => (ks_p(&r, by_mass, given), ks_p(&r, by_number, other)),
        };
        assert!(
            own > 0.01 && cross > 0.01,
            "Discrete {by:?}: p = {own}, {cross}"
        );
    }
}

#[test]
fn log_normal_by_number_and_by_mass_clipped_or_not() {
    let base = Path::new(".");
    let (median, sigma) = (1e-3, 0.4);
    for by in [Basis::Number, Basis::Mass] {
        for clip in [None, Some((0.6e-3, 2.5e-3))] {
            let s = Radius::LogNormal {
                median,
                sigma,
                by,
                clip,
            }
            .sampler(base)
            .unwrap();
            let r = draw(&s, 3);
            // ln r normal with the given median in the given basis; the other basis is
            // shifted by 3 sigma^2 (Hatch-Choate: the r^3 weight of a log-normal).
            let shift = 3.0 * sigma * sigma;
            let (mu_n, mu_m) = match by {
                Basis::Number => (median.ln(), median.ln() + shift),
                Basis::Mass => (median.ln() - shift, median.ln()),
            };
            let cdf = |mu: f64| {
                move |x: f64| {
                    let f = |y: f64| normal_cdf((y.ln() - mu) / sigma);
                    match clip {
                        None => f(x),
                        Some((lo, hi)) => {
                            ((f(x.clamp(lo, hi)) - f(lo)) / (f(hi) - f(lo))).clamp(0.0, 1.0)
                        }
                    }
                }
            };
            let pn = ks_p(&r, by_number, cdf(mu_n));
            let pm = ks_p(&r, by_mass, cdf(mu_m));
            assert!(
                pn > 0.01 && pm > 0.01,
                "LogNormal {by:?} {clip:?}: p = {pn}, {pm}"
            );
            if let Some((lo, hi)) = clip {
                assert!(r.iter().all(|&x| x >= lo && x <= hi));
            }
        }
    }
}

#[test]
fn a_table_by_number_and_by_mass() {
    let dir = std::env::temp_dir().join("dem-size-distribution");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("psd.csv");
    // A sieve curve: cumulative fraction passing at each radius (mm -> m).
    let rows = [
        (0.5e-3, 0.0),
        (0.8e-3, 0.1),
        (1.0e-3, 0.45),
        (1.6e-3, 0.9),
        (2.0e-3, 1.0),
    ];
    let text: String = std::iter::once("radius,cumulative\n".to_string())
        .chain(rows.iter().map(|(r, c)| format!("{r},{c}\n")))
        .collect();
    std::fs::write(&file, text).unwrap();
    // Linear between rows, as documented.
    let curve = |x: f64| {
        if x <= rows[0].0 {
            return 0.0;
        }
        for w in rows.windows(2) {
            if x <= w[1].0 {
                return w[0].1 + (x - w[0].0) / (w[1].0 - w[0].0) * (w[1].1 - w[0].1);
            }
        }
        1.0
    };
    for (by, weight) in [
        (Basis::Number, by_number as fn(f64) -> f64),
        (Basis::Mass, by_mass),
    ] {
        let s = Radius::Table {
            file: "psd.csv".into(),
            by,
        }
        .sampler(&dir)
        .unwrap();
        let r = draw(&s, 4);
        let p = ks_p(&r, weight, curve);
        assert!(p > 0.01, "Table {by:?}: p = {p}");
        // The other basis, against the curve, must fail: the test can tell them apart.
        let other = if by == Basis::Number {
            by_mass
        } else {
            by_number
        };
        assert!(ks_p(&r, other, curve) < 1e-6);
    }
}

/// Radii of the spheres `RandomFill` places in a box holding them at a volume fraction
/// of `phi` (count 3,000, radius uniform in [1, 3] mm).
fn fill_radii(phi: f64) -> Vec<f64> {
    let mean_volume =
        4.0 / 3.0 * std::f64::consts::PI * (3e-3f64.powi(4) - 1e-3f64.powi(4)) / (4.0 * 2e-3);
    let side = (3000.0 * mean_volume / phi).cbrt();
    let text = format!(
        r#"Scene(materials: {{ "m": (density: 1000, young: 1e6) }}, laws: [],
        bodies: [RandomFill(min: (0, 0, 0), max: ({side}, {side}, {side}), count: 3000,
                            radius: Uniform(0.001, 0.003), material: "m", seed: 5)],
        timestep: Fixed(1e-5), duration: Steps(1))"#
    );
    let scene = dem_core::scene::Scene::parse(&text, Path::new("fill.ron")).unwrap();
    let index = scene
        .materials
        .keys()
        .enumerate()
        .map(|(i, k)| (k.clone(), i as u32))
        .collect();
    let mut p = dem_core::model::particles::Particles::default();
    dem_core::scene::expand_bodies(
        &scene,
        &index,
        &dem_core::model::plugin_body::NoShapes,
        &mut p,
    )
    .unwrap();
    p.shape.iter().filter_map(|s| s.bounding_radius()).collect()
}

#[test]
fn random_fill_keeps_the_sizes_drawn_in_a_crowded_box() {
    let uniform = |x: f64| ((x - 1e-3) / 2e-3).clamp(0.0, 1.0);
    for phi in [0.02, 0.3] {
        let r = fill_radii(phi);
        assert_eq!(r.len(), 3000);
        let p = ks_p(&r, by_number, uniform);
        assert!(p > 0.01, "volume fraction {phi}: p = {p}");
    }
}

/// Radii an inlet delivers, `N` of them, into a box so small that it holds about ten
/// (each event starts from an empty box: the particles before left): every event ends
/// with a particle that found no room, which must then come first at the next event (an
/// inlet that dropped it instead fails these tests by far: p < 1e-200).
fn inlet_radii(radius: &str) -> Vec<f64> {
    let text = format!(
        r#"Inlet(name: "in", region: Box(min: (0, 0, 0), max: (0.005, 0.005, 0.005)),
                 radius: {radius}, material: "m", rate: Number(1e9), seed: 9, every: 1,
                 attempts: 20)"#
    );
    let spec: dem_core::engines::inlet::InletSpec =
        dem_core::scene::parse_ron(&text, Path::new("inlet.ron")).unwrap();
    let materials = [("m".to_string(), 0u32)].into_iter().collect();
    let mut inlet = dem_core::engines::inlet::Inlet::new(
        &spec,
        &materials,
        vec![1000.0],
        Path::new("."),
        None,
        &dem_core::model::plugin_body::NoShapes,
    )
    .unwrap();
    let empty = dem_core::model::particles::Particles::default();
    let (mut r, mut events, mut short) = (Vec::new(), 0u64, 0);
    while r.len() < N {
        events += 1;
        let made = inlet.insert(events, events as f64, &empty, None).unwrap();
        // A box of 5 mm holds a few spheres: every event ends full.
        short += (inlet.state.count < 1_000_000_000 * events) as usize;
        r.extend(made.iter().map(|s| s.radius));
    }
    assert!(
        events > 1000 && short as u64 == events,
        "{events} events, {short} full"
    );
    r.truncate(N);
    r
}

#[test]
fn an_inlet_filling_a_crowded_region_keeps_the_distribution() {
    let r = inlet_radii("Uniform(0.0005, 0.0015)");
    let uniform = |x: f64| ((x - 0.5e-3) / 1e-3).clamp(0.0, 1.0);
    let p = ks_p(&r, by_number, uniform);
    assert!(p > 0.01, "Uniform by number: p = {p}");
    let p = ks_p(&r, by_mass, |x| {
        (x.clamp(0.5e-3, 1.5e-3).powi(4) - 0.5e-3f64.powi(4))
            / (1.5e-3f64.powi(4) - 0.5e-3f64.powi(4))
    });
    assert!(p > 0.01, "Uniform by mass: p = {p}");

    // By mass, clipped: the mass-weighted radii against the log-normal given.
    let (median, sigma, lo, hi): (f64, f64, f64, f64) = (0.8e-3, 0.3, 0.4e-3, 1.6e-3);
    let r = inlet_radii(&format!(
        "LogNormal(median: {median}, sigma: {sigma}, by: Mass, clip: ({lo}, {hi}))"
    ));
    let f = |y: f64| normal_cdf((y.ln() - median.ln()) / sigma);
    let p = ks_p(&r, by_mass, |x| {
        ((f(x.clamp(lo, hi)) - f(lo)) / (f(hi) - f(lo))).clamp(0.0, 1.0)
    });
    assert!(p > 0.01, "LogNormal by mass: p = {p}");

    let sizes = [(0.5e-3, 0.5), (1.5e-3, 0.5)];
    let r = inlet_radii("Discrete(sizes: [(0.0005, 0.5), (0.0015, 0.5)], by: Mass)");
    let given = |x: f64| sizes.iter().filter(|s| s.0 <= x).map(|s| s.1).sum::<f64>();
    let p = ks_p(&r, by_mass, given);
    assert!(p > 0.01, "Discrete by mass: p = {p}");
}
