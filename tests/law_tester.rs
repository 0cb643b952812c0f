//! The law tester drives one contact through a prescribed motion; checked here with the
//! linear law, whose response to each motion has a closed form.

use dem_core::step::law_tester::{LawTest, Record};
use dem_verification::plugins;
use std::path::Path;

const KN: f64 = 1e5;

fn run(params: &str, stages: &str) -> Vec<Record> {
    let text = format!(
        r#"LawTest(
        law: "Law2_L6Geom_LinearElPl",
        params: (kn: {KN}, kt_kn: 0.5, {params}),
        materials: [(density: 1000, young: 1e9, poisson: 0.3, friction: 0.4)],
        radii: (0.01, 0.01),
        dt: 1e-6,
        stages: [{stages}],
    )"#
    );
    LawTest::parse(&text, Path::new("test.ron"))
        .unwrap()
        .run(plugins())
        .unwrap()
}

fn last(records: &[Record], stage: usize) -> Record {
    *records.iter().rev().find(|r| r.stage == stage).unwrap()
}

#[test]
fn approach_slide_and_separation() {
    let r = run(
        "",
        "Approach(distance: 1e-4, speed: 0.1), Slide(distance: 1e-5, speed: 0.01), \
         Slide(distance: 1e-3, speed: 0.1), Approach(distance: -2.5e-4, speed: 125)",
    );
    // Normal: -kn u_n, elastic kn u^2 / 2 (the record at a step is the geometry at its start).
    let a = last(&r, 0);
    assert!((a.force[0] + KN * a.u[0]).abs() < 1e-9, "{a:?}");
    assert!((a.u[0] + 1e-4).abs() < 2e-7, "{a:?}");
    // A small slide sticks: F_t = -kt u_t.
    let s = last(&r, 1);
    assert!((s.u[1].abs() - 1e-5).abs() < 1e-8, "{s:?}");
    assert!((s.force[1] + 0.5 * KN * s.u[1]).abs() < 1e-6, "{s:?}");
    assert!(s.friction.abs() < 1e-15, "{s:?}");
    // A long slide slips at mu F_n and dissipates.
    let s = last(&r, 2);
    let limit = 0.4 * s.force[0];
    assert!((s.force[1].abs() - limit).abs() < 1e-9 * limit, "{s:?}");
    // Dissipated: the limit times the slide beyond the elastic part limit / kt.
    let slipped = s.u[1].abs() - limit / (0.5 * KN);
    assert!((s.friction / (limit * slipped) - 1.0).abs() < 1e-3, "{s:?}");
    // Pulled apart in two steps: the contact ends while its tangential spring is loaded;
    // the record of its last call books the energy the spring still stored.
    let e = last(&r, 3);
    assert!(!e.contact && e.force == [0.0; 3], "{e:?}");
    let ending = r.iter().position(|x| x.stage == 3 && !x.contact).unwrap();
    let loaded = r[..ending].iter().rposition(|x| x.force[1] != 0.0).unwrap();
    let before = r[loaded];
    let stored_t = before.force[1].powi(2) / (2.0 * 0.5 * KN);
    let booked = r[ending].friction - before.friction;
    println!("booked at the end {booked:e} J, stored before {stored_t:e} J");
    assert_eq!(loaded, ending - 1, "{:?}", &r[loaded..=ending]);
    assert!(booked > 0.5 * stored_t, "{:?}", &r[loaded..=ending]);
}

#[test]
fn twist_and_roll_meet_their_resistance() {
    let r = run(
        "twisting: Epsd(mu: 0.1), rolling: Cdt(mu: 0.1)",
        "Approach(distance: 1e-4, speed: 0.1), Twist(angle: 1e-4, rate: 1), \
         Twist(angle: 1e-1, rate: 10), Roll(angle: 1e-2, rate: 1)",
    );
    let (r_star, kn) = (0.005, KN);
    // Elastic twist: -k_tw phi_n, k_tw = 2.25 kn mu^2 R*^2.
    let t = last(&r, 1);
    let k_tw = 2.25 * kn * 0.01 * r_star * r_star;
    assert!(
        (t.torque[0] + k_tw * t.phi[0]).abs() < 1e-6 * k_tw * t.phi[0],
        "{t:?}"
    );
    // Past the limit: mu R* F_n.
    let t = last(&r, 2);
    assert!(
        (t.torque[0].abs() - 0.1 * r_star * t.force[0]).abs() < 1e-12,
        "{t:?}"
    );
    // Rolling without slip: the CDT torque against the rolling, no tangential force.
    let ro = last(&r, 3);
    let f_n = ro.force[0];
    let rolling = (ro.torque[1].powi(2) + ro.torque[2].powi(2)).sqrt();
    assert!((rolling - 0.1 * r_star * f_n).abs() < 1e-12, "{ro:?}");
    assert!(
        ro.force[1].abs() < 1e-6 * f_n && ro.force[2].abs() < 1e-6 * f_n,
        "{ro:?}"
    );
}

#[test]
fn bad_test_files_are_refused_with_the_file_named() {
    let e = LawTest::parse("LawTest(law: 3)", Path::new("bad.ron"))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("bad.ron:1:"), "{e}");
    let t = LawTest::parse(
        r#"LawTest(law: "Law2_L6Geom_LinearElPl", materials: [(density: 1, young: 1)],
           radii: (0.01, -1), dt: 1e-6, stages: [])"#,
        Path::new("neg.ron"),
    )
    .unwrap();
    let e = t.run(plugins()).err().unwrap().to_string();
    assert!(e.contains("neg.ron") && e.contains("radii"), "{e}");
}
