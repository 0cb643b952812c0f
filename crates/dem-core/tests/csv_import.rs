//! CSV import through a scene: a file without sphere rows is named as such (not reported
//! as a skin error further on), and bad rows name the file and line.

use std::path::PathBuf;

fn expand(csv: &str) -> Result<usize, String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("csv_import");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("spheres.csv"), csv).unwrap();
    let text = r#"Scene(
        materials: { "m": (density: 1000, young: 1e6) },
        laws: [],
        bodies: [Csv(file: "spheres.csv", radius: 0.01, material: "m")],
        timestep: Fixed(1e-5),
        duration: Steps(1),
    )"#;
    let scene = dem_core::Scene::parse(text, &dir.join("scene.ron")).unwrap();
    let index = [("m".to_string(), 0u32)].into_iter().collect();
    let mut p = dem_core::model::particles::Particles::default();
    dem_core::scene::expand_bodies(
        &scene,
        &index,
        &dem_core::model::plugin_body::NoShapes,
        &mut p,
    )
    .map_err(|e| e.to_string())?;
    Ok(p.len())
}

#[test]
fn a_csv_file_without_spheres_is_named() {
    assert_eq!(expand("x,y,z\n0,0,0.5\n"), Ok(1));
    let e = expand("x,y,z\n").unwrap_err();
    assert!(
        e.contains("bodies[0].file: ") && e.contains("spheres.csv holds no sphere"),
        "{e}"
    );
    let e = expand("id,kind,x,y,z\n0,Wall,0,0,0\n").unwrap_err();
    assert!(e.contains("holds no sphere"), "{e}");
    let e = expand("x,y,z,Vz\n0,0,0.5,1\n").unwrap_err();
    assert!(e.contains("spheres.csv:1: unknown column `Vz`"), "{e}");
}
