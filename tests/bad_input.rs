//! Bad input gives a clear error naming where the problem is, never a panic.

use dem_core::{DemError, PluginSet, Scene};
use dem_verification::{plugins, sim_from_text};
use std::path::Path;

fn scene(law: &str, params: &str, extra: &str) -> String {
    format!(
        r#"Scene(
    materials: {{ "m": (density: 1000, young: 1e6, friction: 0.3) }},
    laws: [(materials: ("*", "*"), law: "{law}", params: {params})],
    bodies: [
        Sphere(center: (0, 0, 0.0095), radius: 0.01, material: "m"{extra}),
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Fixed(1e-5),
    duration: Steps(10),
)"#
    )
}

fn error_of(text: &str) -> String {
    match sim_from_text(text, "bad.ron").and_then(|mut s| s.run_steps(10)) {
        Ok(()) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_ron_names_file_line_and_column() {
    let text =
        scene("Law2_L6Geom_LinearElPl", "()", "").replace("radius: 0.01,", "radius: 0.01 material");
    match Scene::parse(&text, Path::new("bad.ron")) {
        Err(DemError::Parse {
            path,
            line,
            col,
            message,
        }) => {
            assert_eq!(path, Path::new("bad.ron"));
            assert_eq!(line, 5, "{message}");
            assert!(col > 40, "col {col}: {message}");
        }
        other => panic!("expected a parse error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn unknown_field_is_named() {
    let text = scene("Law2_L6Geom_LinearElPl", "()", ", colour: 3");
    let e = error_of(&text);
    assert!(e.starts_with("bad.ron:5:") && e.contains("colour"), "{e}");
}

#[test]
fn unknown_plugin_parameter_is_named_with_its_scene_position() {
    let e = error_of(&scene("Law2_L6Geom_LinearElPl", "(restitutoin: 0.5)", ""));
    assert!(
        e.contains("bad.ron:3:")
            && e.contains("restitutoin")
            && e.contains("Law2_L6Geom_LinearElPl"),
        "{e}"
    );
}

#[test]
fn unknown_law_lists_what_is_available() {
    let e = error_of(&scene("Law2_Nonexistent", "()", ""));
    assert!(
        e.contains("Law2_Nonexistent") && e.contains("Law2_L6Geom_LinearElPl (law-linear)"),
        "{e}"
    );
    // At the law's name (line 3, column 41 of the scene: its quote), not at its params.
    assert!(
        e.starts_with("bad.ron:3:41: laws[0].law: no loaded plugin offers `Law2_Nonexistent`"),
        "{e}"
    );
}

#[test]
fn missing_plugin_file_is_named() {
    let e = PluginSet::default()
        .load(Path::new("/nonexistent/libnothing.so"))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("/nonexistent/libnothing.so"), "{e}");
}

#[test]
fn a_library_that_is_not_a_plugin_is_refused() {
    // Any shared library without our root module, e.g. the C library.
    let libc = [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists());
    if let Some(libc) = libc {
        let e = PluginSet::default()
            .load(Path::new(libc))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not a dem plugin"), "{e}");
    }
}

#[test]
fn plugin_panic_names_plugin_functor_and_contact() {
    let e = error_of(&scene("Law2_Test_Faulty", r#"(fault: "panic")"#, ""));
    assert!(
        e.contains("Law2_Test_Faulty") && e.contains("test-faulty") && e.contains("contact 0-1"),
        "{e}"
    );
    assert!(e.contains("deliberate failure"), "{e}");
}

#[test]
fn plugin_panic_outside_a_batch_is_an_error_not_an_abort() {
    let e = error_of(&scene("Law2_Test_Faulty", r#"(fault: "stiffness")"#, ""));
    assert!(
        e.contains("Law2_Test_Faulty") && e.contains("non-finite stiffness"),
        "{e}"
    );
}

#[test]
fn non_finite_force_is_caught() {
    let e = error_of(&scene("Law2_Test_Faulty", r#"(fault: "nan")"#, ""));
    assert!(
        e.contains("non-finite")
            && e.contains("Law2_Test_Faulty")
            && e.contains("step 0")
            && e.contains("contact 0-1"),
        "{e}"
    );
}

#[test]
fn non_finite_state_names_particle_and_step() {
    let text = scene("Law2_L6Geom_LinearElPl", "()", "")
        .replace("center: (0, 0, 0.0095)", "center: (0, 0, 1)");
    let mut sim = sim_from_text(&text, "bad.ron").unwrap();
    sim.run_steps(3).unwrap();
    // Drive the sphere's velocity past the largest float during step 3.
    sim.particles.vel[0].x = f64::MAX;
    sim.integrator.gravity = nalgebra::Vector3::new(f64::MAX, 0.0, 0.0);
    let e = sim
        .run_steps(10)
        .expect_err("overflow to infinity")
        .to_string();
    assert!(
        e.starts_with("step 3: non-finite state of particle 0: "),
        "{e}"
    );
}

#[test]
fn non_finite_scene_values_are_refused() {
    let text = scene("Law2_L6Geom_LinearElPl", "()", ", velocity: (NaN, 0, 0)");
    let e = error_of(&text);
    assert!(e.contains("bodies[0]") && e.contains("finite"), "{e}");
}

#[test]
fn bad_values_are_refused_at_load() {
    let e = error_of(&scene("Law2_L6Geom_LinearElPl", "(restitution: 1.5)", ""));
    assert!(e.contains("restitution"), "{e}");
    let e =
        error_of(&scene("Law2_L6Geom_LinearElPl", "()", "").replace("radius: 0.01", "radius: -1"));
    assert!(e.contains("bodies[0].radius"), "{e}");
    let e = error_of(
        &scene("Law2_L6Geom_LinearElPl", "()", "")
            .replace(r#"material: "m"),"#, r#"material: "steel"),"#),
    );
    assert!(e.contains("unknown material `steel`"), "{e}");
    // A functor choice naming a shape kind that does not exist (they are capitalised).
    let e = error_of(&scene("Law2_L6Geom_LinearElPl", "()", "").replace(
        "    laws:",
        "    geometry: [(shapes: (\"wall\", \"Sphere\"), functor: \"Cg2_Wall_Sphere_L6Geom\")],\n    laws:",
    ));
    assert!(
        e.contains("bad.ron") && e.contains("geometry[0].shapes") && e.contains("`wall`"),
        "{e}"
    );
}

#[test]
fn walls_listed_before_spheres_dispatch_with_the_swap_flag() {
    let text = r#"Scene(
        materials: { "m": (density: 1000, young: 1e6) },
        laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl")],
        bodies: [
            Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
            Sphere(center: (0, 0, 0.0099), radius: 0.01, material: "m"),
        ],
        timestep: Fixed(1e-6),
        duration: Steps(1),
    )"#;
    let mut sim = sim_from_text(text, "order.ron").unwrap();
    sim.step().unwrap();
    assert!(sim.particles.vel[1].z > 0.0, "pushed up by the floor");
    let _ = plugins();
}

#[test]
fn settings_and_generators_out_of_range_are_refused() {
    let base = scene("Law2_L6Geom_LinearElPl", "()", "");
    let e = error_of(&base.replace(
        "duration: Steps(10),",
        "duration: Steps(10), contacts: (contact_eps: NaN),",
    ));
    assert!(e.contains("contacts.contact_eps"), "{e}");
    let e = error_of(&base.replace("density: 1000", "density: inf"));
    assert!(e.contains("materials.m"), "{e}");
    let fill = r#"RandomFill(min: (-1e308, 0, 0), max: (1e308, 1, 1), count: 3, radius: Const(0.1), material: "m", seed: 1),"#;
    let e = error_of(&base.replace("bodies: [", &format!("bodies: [\n        {fill}")));
    assert!(
        e.contains("bodies[0]") && e.contains("must be finite and at most 1e12"),
        "{e}"
    );
}

#[test]
fn a_unicode_params_block_with_an_error_is_located_without_panicking() {
    // The params text starts with a two-byte character: locating it must not slice inside it.
    let e = error_of(&scene("Law2_L6Geom_LinearElPl", "Ü(kn: -1)", ""));
    assert!(e.contains("bad.ron:3:") && e.contains("`Ü`"), "{e}");
}

/// A FIFO named like a library (which made the loader wait forever) and a truncated copy of
/// a real plugin (which made it die of a bus error) are refused with a message, by name
/// and by a directory scan.
#[test]
fn a_fifo_or_a_truncated_library_is_refused_not_a_hang_or_a_crash() {
    let dir = dem_verification::root().join("target/test-output/bad-libraries");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("libfifo.so");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let e = PluginSet::default().load(&fifo).err().unwrap().to_string();
        assert!(
            e.contains("libfifo.so") && e.contains("not a regular file"),
            "{e}"
        );
    }
    let real = dem_verification::build_plugins(&["law-linear"]).remove(0);
    let bytes = std::fs::read(&real).unwrap();
    for cut in [4096, 65_536, bytes.len() / 2] {
        let short = dir.join(format!("libshort{cut}.so"));
        std::fs::write(&short, &bytes[..cut]).unwrap();
        let e = PluginSet::default().load(&short).err().unwrap().to_string();
        assert!(e.contains("truncated"), "{cut} bytes: {e}");
    }
    // A scan skips them all, with a message for each truncated one.
    let mut set = PluginSet::default();
    set.scan(&dir);
    assert!(set.refused.iter().any(|(_, why)| why.contains("truncated")));
}

#[test]
fn particles_packed_into_one_another_are_refused_at_load() {
    // 100,000 spheres at one point: every pair is a candidate and a contact, far beyond any
    // machine's memory. Refused while loading, with the estimate and the place.
    let text = scene("Law2_L6Geom_LinearElPl", "()", "").replace(
        "Sphere(center: (0, 0, 0.0095), radius: 0.01, material: \"m\"),",
        "Lattice(origin: (0, 0, 0.5), count: (50, 50, 40), spacing: 1e-12, radius: 0.001, \
         material: \"m\"),",
    );
    let e = match sim_from_text(&text, "crowd.ron") {
        Ok(_) => panic!("expected the scene to be refused"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.starts_with("crowd.ron: bodies: the initial positions put particles into one another")
            && e.contains("GB available")
            && e.contains("100000 particles crowd in one cell"),
        "{e}"
    );
}

#[test]
fn values_out_of_range_are_refused_at_load_naming_the_field() {
    // What `check` let through and `run` then failed on at step 0-100, or ran with zero
    // masses or a time step of zero. Each is refused while loading, naming the field.
    let base = scene("Law2_L6Geom_LinearElPl", "()", "");
    let cases = [
        ("gravity: (0, 0, -9.81)", "gravity: (0, 0, NaN)", "gravity:"),
        (
            "gravity: (0, 0, -9.81)",
            "gravity: (0, 0, 1e308)",
            "gravity:",
        ),
        (
            "gravity: (0, 0, -9.81)",
            "gravity: (0, 0, -inf)",
            "gravity:",
        ),
        ("density: 1000", "density: 5e-324", "materials.m: density"),
        (
            "young: 1e6",
            "young: 1e6, poisson: 0.7",
            "materials.m: poisson",
        ),
        ("radius: 0.01", "radius: 5e-324", "bodies[0].radius"),
        (
            "radius: 0.01",
            "radius: 1e-120",
            "bodies[0]: a particle's mass",
        ),
        (
            "(0, 0, 0.0095)",
            "(0, 0, 1e308)",
            "bodies[0]: every coordinate",
        ),
        (
            "Fixed(1e-5)",
            "Critical(5e-324)",
            "timestep: gives dt = 0e0 s",
        ),
        (
            "Fixed(1e-5)",
            "Fixed(5e-324)",
            "timestep: gives dt = 5e-324 s",
        ),
        (
            "\"m\": (density: 1000, young: 1e6, friction: 0.3)",
            "\"m\": (density: 1000, young: 1e6), \"m\": (density: 2000, young: 1e6)",
            "bad.ron:2:",
        ),
        (
            "sense: 1, material: \"m\")",
            "sense: 1, material: \"m\", motion: Rotate(center: (1e300, 0, 0), axis: (0, 1, 0), omega: 3))",
            "bodies[1].motion: Rotate: center (1e300, 0, 0) must be finite and at most 1e12",
        ),
    ];
    for (from, to, field) in cases {
        assert!(base.contains(from), "{from}");
        let e = match sim_from_text(&base.replace(from, to), "bad.ron") {
            Ok(_) => panic!("{to}: expected an error"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(field), "{to}: {e}");
    }
    // A wall's normal is a direction: one of huge components is that direction.
    let huge = base.replace("normal: (0, 0, 1)", "normal: (0, 0, 1e308)");
    let mut sim = sim_from_text(&huge, "ok.ron").expect("a huge normal is a direction");
    sim.run_steps(10).expect("and runs");
}
