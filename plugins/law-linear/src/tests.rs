//! Tests of the linear law: closed forms, parameters, and its lanes against one contact.
use super::*;
use dem_api::{L6Geom, Material, Vec3};

/// Four contacts in one lane give bitwise what each gives alone, over random steps with
/// every option (the SDK runs batches four at a time, `law` one contact at a time).
#[test]
fn four_lanes_give_bitwise_what_each_contact_gives_alone() {
    let laws = [
        Params {
            kn: Some(1e3),
            gamma_n: Some(1e4),
            gamma_t: Some(5e3),
            friction: Some(0.5),
            attraction: true,
            ..Default::default()
        },
        Params {
            restitution: Some(0.5),
            rolling: Resistance::Cdt { mu: 0.1 },
            twisting: Resistance::Epsd { mu: 0.05 },
            ..Default::default()
        },
        Params {
            kn: Some(5e7),
            hertz_factor: true,
            gamma_t: Some(0.0),
            rolling: Resistance::Epsd { mu: 0.2 },
            ..Default::default()
        },
        Params {
            kn_per_area: Some(1e8),
            restitution: Some(0.3),
            twisting: Resistance::Cdt { mu: 0.1 },
            ..Default::default()
        },
    ];
    let mut seed = 7u64;
    let mut rand = move |lo: f64, hi: f64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((seed >> 11) as f64 / (1u64 << 53) as f64)
    };
    for p in laws {
        let law = LinearElPl::new(p).unwrap();
        let steps: Vec<[LawInput; 4]> = (0..400)
            .map(|step| {
                std::array::from_fn(|_| {
                    let mut inp = input(
                        Vec3::new(rand(-1e-4, 2e-5), rand(-1e-5, 1e-5), rand(-1e-5, 1e-5)),
                        Vec3::new(rand(-1.0, 1.0), rand(-1.0, 1.0), rand(-1.0, 1.0)),
                    );
                    inp.geom.phi_dot = Vec3::new(rand(-50.0, 50.0), rand(-50.0, 50.0), 0.0);
                    inp.geom.area = rand(0.0, 1e-6);
                    inp.is_new = u32::from(step == 0);
                    inp.is_last = u32::from(rand(0.0, 1.0) < 0.05);
                    inp
                })
            })
            .collect();
        dem_api::sdk::lanes_agree(&law, &steps).unwrap();
    }
}

fn run(law: &LinearElPl, inp: &LawInput, s: &mut [f64; END]) -> LawOutput {
    let c = law.constants(inp);
    law.law(inp, &c, s)
}

fn input(u: Vec3, u_dot: Vec3) -> LawInput {
    let m = Material {
        density: 1000.0,
        young: 1e6,
        poisson: 0.3,
        friction: 0.5,
    };
    LawInput {
        geom: L6Geom {
            u,
            u_dot,
            ..Default::default()
        },
        pair: LawPair {
            radius: [0.01, 0.01],
            mass: [1.0, 1.0],
            material: [m, m],
        },
        dt: 1e-3,
        ..Default::default()
    }
}

#[test]
fn hertz_factor_scales_force_and_energy_as_lammps() {
    let law = LinearElPl::new(Params {
        kn: Some(5e7),
        hertz_factor: true,
        ..Default::default()
    })
    .unwrap();
    let d = 1e-5;
    let inp = input(Vec3::new(-d, 0.0, 0.0), Vec3::ZERO);
    let out = run(&law, &inp, &mut [0.0; END]);
    // R* = 0.005 m for two 1 cm spheres: F = kn sqrt(d R*) d, E = 2/5 F d.
    let f = 5e7 * (d * 0.005f64).sqrt() * d;
    assert!(
        (out.force.x / f - 1.0).abs() < 1e-12,
        "{} vs {f}",
        out.force.x
    );
    assert!((out.elastic / (0.4 * f * d) - 1.0).abs() < 1e-12);
}

#[test]
fn stiffness_from_young_modulus_in_series() {
    let law = LinearElPl::new(Params::default()).unwrap();
    let inp = input(Vec3::new(-1e-4, 0.0, 0.0), Vec3::ZERO);
    // 2 E r = 2e4 per body, in series 1e4 N/m.
    assert!((law.stiffness(&inp.pair) - 1e4).abs() < 1e-9);
    let mut s = [0.0; END];
    let out = run(&law, &inp, &mut s);
    assert!((out.force.x - 1.0).abs() < 1e-12);
    assert!((out.elastic - 0.5 * 1e4 * 1e-8).abs() < 1e-18);
}

#[test]
fn stiffness_per_area_scales_with_the_contact_area() {
    let law = LinearElPl::new(Params {
        kn_per_area: Some(1e8),
        ..Default::default()
    })
    .unwrap();
    let mut inp = input(Vec3::new(-1e-4, 0.0, 0.0), Vec3::ZERO);
    // Stable-step estimate with area pi r^2.
    let k_est = 1e8 * std::f64::consts::PI * 1e-4;
    assert!((law.stiffness(&inp.pair) - k_est).abs() < 1e-6 * k_est);
    for area in [0.0, 1e-4, 3e-4] {
        inp.geom.area = area;
        let mut s = [0.0; END];
        let out = run(&law, &inp, &mut s);
        let kn = 1e8 * area;
        assert!((out.force.x - kn * 1e-4).abs() < 1e-9, "{area}: {out:?}");
        assert!((out.elastic - 0.5 * kn * 1e-8).abs() < 1e-15);
    }
    assert!(LinearElPl::new(Params {
        kn: Some(1.0),
        kn_per_area: Some(1.0),
        ..Default::default()
    })
    .is_err());
}

#[test]
fn coulomb_limit_and_booked_slip() {
    let law = LinearElPl::new(Params {
        kn: Some(1000.0),
        kt_kn: 1.0,
        ..Default::default()
    })
    .unwrap();
    let mut s = [0.0; END];
    // F_n = 1 N, mu = 0.5; a large slide must be capped at 0.5 N, opposing the motion.
    let out = run(
        &law,
        &input(Vec3::new(-1e-3, 0.0, 0.0), Vec3::new(0.0, 10.0, 0.0)),
        &mut s,
    );
    assert!((out.force.y + 0.5).abs() < 1e-12);
    assert!(out.friction > 0.0);
    // Work done against the contact = stored + dissipated (trapezoid, from zero force).
    let work = 0.5 * (0.0 + 0.5) * 10.0 * 1e-3;
    let stored_t = 0.25 / 2000.0;
    assert!((work - stored_t - out.friction).abs() < 1e-15);
}

#[test]
fn no_attraction_unless_asked() {
    let mut s = [0.0; END];
    let sep = input(Vec3::new(-1e-6, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0));
    let law = LinearElPl::new(Params {
        restitution: Some(0.5),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(run(&law, &sep, &mut s).force.x, 0.0);
    let law = LinearElPl::new(Params {
        restitution: Some(0.5),
        attraction: true,
        ..Default::default()
    })
    .unwrap();
    assert!(run(&law, &sep, &mut [0.0; END]).force.x < 0.0);
}

#[test]
fn last_call_books_the_final_interval_and_releases_the_springs() {
    let law = LinearElPl::new(Params {
        kn: Some(1000.0),
        kt_kn: 1.0,
        restitution: Some(0.5),
        ..Default::default()
    })
    .unwrap();
    let mut s = [0.0; END];
    // In contact and sliding: a damping force and a tangential force are stored.
    run(
        &law,
        &input(Vec3::new(-1e-3, 0.0, 0.0), Vec3::new(-0.1, 1e-3, 0.0)),
        &mut s,
    );
    let (f_damp, f_t) = (s[N0], s[T0]);
    assert!(f_damp > 0.0 && f_t < 0.0);
    // Last call: separated, moving apart at 0.2 m/s, no further slide.
    let mut last = input(Vec3::new(1e-9, 0.0, 0.0), Vec3::new(0.2, 0.0, 0.0));
    last.is_last = 1;
    let out = run(&law, &last, &mut s);
    assert_eq!(out.force, Vec3::ZERO);
    assert_eq!(out.elastic, 0.0);
    // Second half of the trapezoid: the damping force of the previous step alone.
    assert!((out.damping - (-0.5 * f_damp * 0.2 * 1e-3)).abs() < 1e-18);
    // The tangential spring is released through slip: its stored energy is dissipated.
    assert!((out.friction - f_t * f_t / 2000.0).abs() < 1e-15);
}

#[test]
fn bad_parameters_are_refused() {
    assert!(LinearElPl::new(Params {
        restitution: Some(0.0),
        ..Default::default()
    })
    .is_err());
    assert!(LinearElPl::new(Params {
        kn: Some(-1.0),
        ..Default::default()
    })
    .is_err());
    // LAMMPS' Hertzian damping has no speed-independent restitution: only its own
    // definition is accepted.
    let hertzian = |damping_from| Params {
        kn: Some(1e9),
        hertz_factor: true,
        restitution: Some(0.5),
        damping_from,
        ..Default::default()
    };
    assert!(LinearElPl::new(hertzian(DampingFrom::Collision)).is_err());
    assert!(LinearElPl::new(hertzian(DampingFrom::Oscillator)).is_ok());
}
