//! The names of a law's state slots (dem-api 0.5.1): the SDK gives its constants' field
//! names (`slots!`) then the law's `STATE_NAMES`; the solver keeps them per law (Python's
//! `law_state_names`). Checked on the linear law, whose named slots hold the values its
//! docs give: `kn` the fixed stiffness, `mu` the smaller friction of the pair, the
//! tangential spring's force balancing gravity's pull along a tilted floor.

use dem_verification::sim_from_text;

#[test]
fn the_linear_law_names_its_slots_and_they_hold_what_the_names_say() {
    let theta: f64 = 0.2;
    let (m, g, kn) = (2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-6, 9.81, 1e4);
    let overlap = m * g * theta.cos() / kn;
    let scene = format!(
        r#"Scene(
        materials: {{ "a": (density: 2500, young: 1e9, friction: 0.7),
                      "b": (density: 2500, young: 1e9, friction: 0.6) }},
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
                params: (kn: {kn}, kt_kn: 1.0, restitution: 0.3, gamma_t: 200))],
        bodies: [
            Sphere(center: (0, 0, {z}), radius: 0.01, material: "a", blocked: "XYZ"),
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "b"),
        ],
        gravity: ({gx}, 0, {gz}),
        timestep: Fixed(1e-5),
        duration: Steps(100000),
    )"#,
        z = 0.01 - overlap,
        gx = g * theta.sin(),
        gz = -g * theta.cos(),
    );
    let mut sim = sim_from_text(&scene, "names.ron").unwrap();
    let law = &sim.dispatch.laws[0];
    let constants = ["kn", "kt", "eta", "eta_t", "mu", "r", "i"];
    let own = [
        "normal_damping_force",
        "normal_rate_prev",
        "shear_force_y",
        "shear_force_z",
        "shear_stiffness_prev",
        "shear_dashpot_y",
        "shear_dashpot_z",
        "rolling_torque_y",
        "rolling_torque_z",
        "rolling_stiffness_prev",
        "twisting_torque",
        "twisting_stiffness_prev",
    ];
    let expected: Vec<&str> = constants.iter().chain(&own).copied().collect();
    assert_eq!(law.slot_names, expected);
    assert_eq!(law.state_len, expected.len());
    // The tangential dashpot damps the spring's swing: after a while it holds the pull.
    sim.run_steps(40_000).unwrap();
    let names = sim.dispatch.laws[0].slot_names.clone();
    let state = sim.contacts.law_state(0, names.len());
    let slot = |name: &str| state[names.iter().position(|n| n == name).unwrap()];
    assert_eq!(slot("kn"), kn);
    assert_eq!(slot("kt"), kn);
    assert_eq!(slot("mu"), 0.6);
    // The spring's force in the contact frame (row 0 the normal +z): its magnitude is the
    // pull m g sin(theta).
    let shear = slot("shear_force_y").hypot(slot("shear_force_z"));
    let pull = m * g * theta.sin();
    println!("tangential spring {shear:e} N against m g sin = {pull:e} N");
    assert!((shear - pull).abs() < 1e-6 * pull, "{shear} vs {pull}");
    assert_eq!(slot("shear_stiffness_prev"), kn);
}
