//! `examples/shape-template` (a capsule), built out of tree as a researcher would and
//! loaded into an unchanged solver: its volume and moments against a quadrature written
//! here, and a capsule dropped on a floor coming to rest lying level at the height of its
//! radius less its ends' overlap.

use dem_core::scene::Scene;
use dem_core::setup::plugins::PluginSet;
use dem_core::Simulation;
use dem_verification::{build_out_of_tree, plugins, root};
use nalgebra::Vector3;
use std::f64::consts::PI;
use std::path::Path;

fn with_template() -> PluginSet {
    let lib = build_out_of_tree(&root().join("examples/shape-template"), "shape_template");
    let mut set = plugins().clone();
    set.load(&lib).unwrap();
    set
}

fn sim(set: &PluginSet, bodies: &str, kn: f64, time: f64) -> Simulation {
    let text = format!(
        r#"Scene(
    materials: {{ "m": (density: 1000, young: 1e7, friction: 0.5) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn: {kn}, kt_kn: 0.5, restitution: 0.3))],
    bodies: [{bodies}],
    gravity: (0, 0, -9.81),
    damping: 0.3,
    timestep: Critical(0.2),
    duration: Time({time}),
    contacts: (l6geom: (no_ratch: false)),
)"#
    );
    Simulation::new(Scene::parse(&text, Path::new("capsule.ron")).unwrap(), set).unwrap()
}

/// Volume and moments (about the axis, about a transverse axis through the centre) per
/// unit density of a capsule, by slices along its axis: a disc of radius `rho(z)` has
/// area `pi rho^2`, axial moment `pi rho^4 / 2` and transverse moment `pi rho^4 / 4`
/// about its own diameter.
fn sliced(r: f64, h: f64) -> (f64, f64, f64) {
    let n = 200_000;
    let dz = 2.0 * (h + r) / n as f64;
    let (mut v, mut axial, mut transverse) = (0.0, 0.0, 0.0);
    for k in 0..n {
        let z = -h - r + (k as f64 + 0.5) * dz;
        let beyond = (z.abs() - h).max(0.0);
        let rho2 = r * r - beyond * beyond;
        v += PI * rho2 * dz;
        axial += PI * rho2 * rho2 / 2.0 * dz;
        transverse += (PI * rho2 * rho2 / 4.0 + PI * rho2 * z * z) * dz;
    }
    (v, axial, transverse)
}

#[test]
fn the_template_capsule_has_the_sliced_volume_and_moments() {
    let set = with_template();
    let (r, h) = (0.01, 0.02);
    let body = format!(
        r#"Shaped(shape: "Capsule", params: (radius: {r}, half_length: {h}), position: (0, 0, 1),
                  material: "m")"#
    );
    let s = sim(&set, &body, 1e4, 0.01);
    let (v, axial, transverse) = sliced(r, h);
    let (m, j) = (s.particles.mass[0], s.particles.inertia[0]);
    println!("capsule: mass {m:.9e} kg against {:.9e}; moments {j:?} against ({transverse:.6e}, {axial:.6e}) x 1000", 1000.0 * v);
    assert!((m - 1000.0 * v).abs() < 1e-8 * m);
    assert!((j.z - 1000.0 * axial).abs() < 1e-7 * j.z);
    assert!((j.x - 1000.0 * transverse).abs() < 1e-7 * j.x && j.y == j.x);
}

#[test]
fn a_template_capsule_comes_to_rest_lying_on_a_floor() {
    let set = with_template();
    let (r, h, kn) = (0.01, 0.02, 1e4);
    let bodies = format!(
        r#"Shaped(shape: "Capsule", params: (radius: {r}, half_length: {h}),
                  position: (0, 0, 0.05), rotate: (0.4, 0.2, 0), material: "m"),
           Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m")"#
    );
    let mut s = sim(&set, &bodies, kn, 2.0);
    s.run_steps(s.end_step).unwrap();
    let p = &s.particles;
    let axis = p.ori[0] * Vector3::z();
    // Each end carries half the weight.
    let height = r - p.mass[0] * 9.81 / (2.0 * kn);
    println!(
        "capsule at rest: axis {axis:?}, centre height {:.9} m against {height:.9} m",
        p.pos[0].z
    );
    assert!(axis.z.abs() < 1e-6, "not level: {axis:?}");
    assert!(
        (p.pos[0].z - height).abs() < 1e-9,
        "{} against {height}",
        p.pos[0].z
    );
    assert!(p.vel[0].norm() < 1e-6);
}

/// Capsule 1 along z at the origin (half-length 20 mm), capsule 2 along x (turned about
/// y, half-length 30 mm) centred at `(0, y, z)`, both of radius 10 mm and fixed: their one
/// contact after a step, as (gap m, normal, point m).
fn crossed(y: f64, z: f64) -> (f64, Vector3<f64>, Vector3<f64>) {
    let set = with_template();
    let bodies = format!(
        r#"
        Shaped(shape: "Capsule", params: (radius: 0.01, half_length: 0.02), position: (0, 0, 0),
               material: "m", blocked: "xyzXYZ"),
        Shaped(shape: "Capsule", params: (radius: 0.01, half_length: 0.03), position: (0, {y}, {z}),
               rotate: (0, 1.5707963267948966, 0), material: "m", blocked: "xyzXYZ")"#
    );
    let mut s = sim(&set, &bodies, 1e4, 0.01);
    s.step().unwrap();
    let live: Vec<_> = s.contacts.live_with_geometry().collect();
    assert_eq!(live.len(), 1);
    let (_, l6, _) = &live[0];
    let n = l6.frame.row(0).transpose();
    println!(
        "capsule 2 at (0, {y}, {z}): gap {:e} m, normal {n:?}, point {:?}",
        l6.u.x, l6.point
    );
    (l6.u.x, n, l6.point)
}

#[test]
fn crossed_template_capsules_touch_where_their_axes_are_closest() {
    // 15 mm apart along y: the axes' closest points are the origin and (0, 15 mm, 0), so
    // the overlap is 2 r - 15 mm = 5 mm along +y, whatever the lengths.
    let (gap, n, point) = crossed(0.015, 0.0);
    assert!((gap + 0.005).abs() < 1e-15);
    assert!((n - Vector3::y()).norm() < 1e-12);
    assert!((point - Vector3::new(0.0, 0.0075, 0.0)).norm() < 1e-15);
}

#[test]
fn template_capsules_whose_axes_cross_keep_their_contact() {
    // Capsule 2 through (0, 0, 1 mm): the axes cross there and the closest points
    // coincide: the way out is along the common perpendicular of the axes, y (z x x),
    // with the whole overlap 2 r.
    let (gap, n, _) = crossed(0.0, 0.001);
    assert!((gap + 0.02).abs() < 1e-15);
    assert!((n - Vector3::y()).norm() < 1e-12);
}

/// The template with `edits` (pairs of text and replacement, each of which must occur)
/// made to its source, built as package `package`.
fn altered_template(package: &str, edits: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dem-src-{package}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let template = root().join("examples/shape-template");
    let manifest = std::fs::read_to_string(template.join("Cargo.toml")).unwrap();
    let manifest = manifest.replace("name = \"shape-template\"", &format!("name = {package:?}"));
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let mut source = std::fs::read_to_string(template.join("src/lib.rs")).unwrap();
    for (from, to) in edits {
        assert!(source.contains(from), "the template no longer has `{from}`");
        source = source.replace(from, to);
    }
    std::fs::write(dir.join("src/lib.rs"), source).unwrap();
    build_out_of_tree(&dir, &package.replace('-', "_"))
}

#[test]
fn a_shape_plugin_that_lies_about_its_bodies_is_refused_with_the_shape_named() {
    // A shape taking a built-in kind's name is refused when the plugin loads.
    let impostor = altered_template(
        "shape-impostor",
        &[(
            "const NAME: &'static str = \"Capsule\";",
            "const NAME: &'static str = \"Polyhedron\";",
        )],
    );
    let e = match PluginSet::default().load(&impostor) {
        Ok(_) => panic!("a shape named Polyhedron was loaded"),
        Err(e) => e.to_string(),
    };
    println!("{e}");
    assert!(
        e.contains("shape_impostor") && e.contains("offers a shape named `Polyhedron`"),
        "{e}"
    );
    // A box that cuts the ends off, and a panic for a radius above 1 m: each body is
    // refused with the shape's name and what is wrong; nothing panics in the solver.
    let liar = altered_template(
        "shape-liar",
        &[
            (
                "half_extents: Vec3::new(r, r, h + r)",
                "half_extents: Vec3::new(r, r, h)",
            ),
            (
                "let axial = cylinder",
                "assert!(r <= 1.0, \"radius above 1 m\");\n        let axial = cylinder",
            ),
        ],
    );
    let mut set = PluginSet::default();
    set.load(&liar).unwrap();
    let build = |params: &str| {
        let text = format!(
            r#"Scene(materials: {{ "m": (density: 1000, young: 1e7) }}, laws: [],
                     bodies: [Shaped(shape: "Capsule", params: {params}, position: (0, 0, 1),
                                     material: "m")],
                     timestep: Fixed(1e-5), duration: Steps(1))"#
        );
        let scene = Scene::parse(&text, Path::new("liar.ron")).unwrap();
        Simulation::new(scene, &set)
            .err()
            .expect("refused")
            .to_string()
    };
    let short = build("(radius: 0.01, half_length: 0.02)");
    println!("{short}");
    assert!(
        short.contains("liar.ron:2:")
            && short.contains("shape `Capsule`")
            && short.contains("support point along (-0.577, -0.577, -0.577) is")
            && short.contains("half-extents (1e-2, 1e-2, 2e-2) m"),
        "{short}"
    );
    let panicked = build("(radius: 2, half_length: 0.02)");
    println!("{panicked}");
    assert!(
        panicked.contains("shape `Capsule`") && panicked.contains("must be finite and positive"),
        "{panicked}"
    );
}

#[test]
fn inlets_pour_template_capsules_and_refuse_a_shape_that_cannot_scale() {
    let inlet = |set: &PluginSet| {
        let text = r#"Scene(materials: { "m": (density: 1000, young: 1e7) },
            laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (kn: 1e4))],
            bodies: [Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m")],
            inlets: [Inlet(name: "feed", region: Box(min: (0, 0, 0.1), max: (0.1, 0.1, 0.2)),
                           shape: Shaped(shape: "Capsule", params: (radius: 1, half_length: 2)),
                           radius: Uniform(0.004, 0.006), material: "m", seed: 1,
                           rate: Number(1e5), total: 5)],
            gravity: (0, 0, -9.81), timestep: Critical(0.2), duration: Steps(200),
            contacts: (l6geom: (no_ratch: false)))"#;
        Simulation::new(Scene::parse(text, Path::new("feed.ron")).unwrap(), set)
    };
    // The template's capsules: radius and half-length in the ratio 1 : 2 at every size.
    let mut sim = inlet(&with_template()).unwrap();
    sim.run_steps(sim.end_step).unwrap();
    let capsules: Vec<_> = sim
        .particles
        .shape
        .iter()
        .filter_map(|s| match s {
            dem_core::model::particles::Shape::Plugin(b) => Some(b.params.clone()),
            _ => None,
        })
        .collect();
    println!("{capsules:?}");
    assert_eq!(capsules.len(), 5);
    let unscalable = altered_template(
        "shape-unscalable",
        &[(
            "fn scaled(p: &Params, factor: f64) -> Option<Params> {",
            "fn scaled(p: &Params, factor: f64) -> Option<Params> {\n        if factor > 0.0 {\n            return None;\n        }",
        )],
    );
    let mut set = plugins().clone();
    set.load(&unscalable).unwrap();
    let e = inlet(&set).err().expect("refused").to_string();
    println!("{e}");
    assert!(
        e.contains("feed.ron: inlets[0].shape: at radius 4e-3 m")
            && e.contains("the shape `Capsule` cannot be scaled"),
        "{e}"
    );
}
