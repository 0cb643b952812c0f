//! `RandomFill` with a mix of materials: the number fractions are delivered (a binomial
//! count within four standard deviations), the densities follow the materials, and a bad
//! mix is refused naming the field.

use dem_core::model::particles::Particles;
use dem_core::scene::{expand_bodies, Scene};
use std::path::Path;

fn fill(material: &str) -> Result<Particles, String> {
    let text = format!(
        r#"Scene(materials: {{ "a": (density: 1000, young: 1e6), "b": (density: 3000, young: 1e6) }},
        laws: [],
        bodies: [RandomFill(min: (0, 0, 0), max: (1, 1, 1), count: 3000,
                            radius: Const(0.01), material: {material}, seed: 5)],
        timestep: Fixed(1e-5), duration: Steps(1))"#
    );
    let scene = Scene::parse(&text, Path::new("mix.ron")).map_err(|e| e.to_string())?;
    let index = scene
        .materials
        .keys()
        .enumerate()
        .map(|(i, k)| (k.clone(), i as u32))
        .collect();
    let mut p = Particles::default();
    expand_bodies(
        &scene,
        &index,
        &dem_core::model::plugin_body::NoShapes,
        &mut p,
    )
    .map_err(|e| e.to_string())?;
    Ok(p)
}

#[test]
fn a_mix_delivers_its_number_fractions() {
    let p = fill(r#"[("a", 7), ("b", 3)]"#).unwrap();
    let n_b = p.material.iter().filter(|&&m| m == 1).count() as f64;
    // Binomial: mean 900, standard deviation sqrt(3000 * 0.3 * 0.7) = 25.1.
    assert!((n_b - 900.0).abs() < 4.0 * 25.1, "{n_b} of 3000 are b");
    let volume = 4.0 / 3.0 * std::f64::consts::PI * 1e-6;
    for (m, mass) in p.material.iter().zip(&p.mass) {
        let density = if *m == 0 { 1000.0 } else { 3000.0 };
        assert!((mass / (density * volume) - 1.0).abs() < 1e-12);
    }
    // One material, written either way, places the same spheres.
    let one = fill(r#""a""#).unwrap();
    let mixed_one = fill(r#"[("a", 1)]"#).unwrap();
    assert_eq!(one.pos, mixed_one.pos);
    assert_eq!(one.pos, p.pos);
}

#[test]
fn a_bad_mix_is_refused_naming_the_field() {
    let e = fill(r#"[("a", 1), ("c", 1)]"#).unwrap_err();
    assert!(e.contains("`c`"), "{e}");
    let e = fill(r#"[("a", -1), ("b", 1)]"#).unwrap_err();
    assert!(
        e.contains("bodies[0].material") && e.contains("must be >= 0"),
        "{e}"
    );
    let e = fill(r#"[("a", 0)]"#).unwrap_err();
    assert!(e.contains("sum to more than 0"), "{e}");
}
