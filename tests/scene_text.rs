//! Scene text a parser should not choke on: a byte-order mark, line endings, invalid UTF-8,
//! huge identifiers and invisible characters each get a message that says what is wrong and
//! where (or are accepted), never a confusing `1:1` or a message as long as the input.

use dem_core::Scene;
use dem_verification::sim_from_text;
use std::path::PathBuf;

const SCENE: &str = r#"Scene(
    materials: { "m": (density: 1000, young: 1e6, friction: 0.3) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: ())],
    bodies: [
        Sphere(center: (0, 0, 0.0095), radius: 0.01, material: "m"),
        Wall(point: (0, 0, 0), normal: (0, 0, 1), sense: 1, material: "m"),
    ],
    gravity: (0, 0, -9.81),
    timestep: Fixed(1e-5),
    duration: Steps(10),
)"#;

/// Writes `bytes` as a scene file of its own and loads it.
fn load(name: &str, bytes: &[u8]) -> Result<Scene, String> {
    let dir = std::env::temp_dir().join(format!("dem-scene-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    Scene::load(&path).map_err(|e| e.to_string())
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend_from_slice(SCENE.as_bytes());
    let scene = load("bom.ron", &bytes).expect("a scene with a byte-order mark loads");
    assert_eq!(scene.bodies.len(), 2);
}

#[test]
fn crlf_is_accepted_and_cr_alone_is_named() {
    load("crlf.ron", SCENE.replace('\n', "\r\n").as_bytes()).expect("CRLF loads");
    let e = load("cr.ron", SCENE.replace('\n', "\r").as_bytes()).unwrap_err();
    assert!(
        e.contains("cr.ron:1:7:") && e.contains("carriage return") && e.contains("LF"),
        "{e}"
    );
}

#[test]
fn invalid_utf8_is_located() {
    let bytes = SCENE.replace("\"m\": (", "\"m\u{1}\": (").into_bytes();
    // The control character's byte becomes an invalid one.
    let bytes: Vec<u8> = bytes
        .into_iter()
        .map(|b| if b == 1 { 0xff } else { b })
        .collect();
    let e = load("utf8.ron", &bytes).unwrap_err();
    assert!(
        e.contains("utf8.ron:2:") && e.contains("invalid UTF-8") && e.contains("0xff"),
        "{e}"
    );
}

#[test]
fn a_huge_identifier_gives_a_short_message() {
    let huge = "Q".repeat(1_000_000);
    let text = SCENE.replace("duration: Steps(10)", &format!("duration: {huge}(10)"));
    let e = match sim_from_text(&text, "huge.ron") {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    };
    assert!(e.len() < 1000, "a message of {} bytes", e.len());
    assert!(
        e.contains("huge.ron:10:") && e.contains("characters"),
        "{e}"
    );
}

#[test]
fn invisible_characters_in_a_name_are_shown() {
    let text = SCENE.replace(
        "material: \"m\"),\n        Wall",
        "material: \"m\u{200b}\"),\n        Wall",
    );
    let e = match sim_from_text(&text, "zw.ron") {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("m\\u{200b}") && !e.contains('\u{200b}'), "{e}");
}
