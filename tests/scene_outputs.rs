//! Every shipped scene, run briefly through `dem run`, writes each output file the README and
//! docs/scenes.md list for its kind of scene, and none is empty: `energy.csv`,
//! `particles.csv`, `energy.png` and the particle and contact VTK collections always;
//! `walls.pvd` with walls, `meshes.csv` with meshes, `flow.csv` with inlets or outlets,
//! `stress.csv` with a periodic cell, `polyhedra.pvd` with polyhedra. (A change of the run
//! loop once stopped writing `stress.csv` for periodic cells, and only the solver's own tests
//! looked at stress.)

use dem_verification::cli::{dem, fresh_dir, ok, s};
use dem_verification::root;
use std::path::Path;

/// The scene's text cut to `steps` steps with an output every `every` steps, its relative
/// file paths made absolute (the copy is run from elsewhere).
fn brief(text: &str, scenes: &Path, steps: u64, every: u64) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut line = line.replace("file: \"", &format!("file: \"{}/", scenes.display()));
        if let Some(at) = line.find("duration:") {
            let end = line[at..].find(')').map_or(line.len(), |e| at + e + 1);
            line.replace_range(at..end, &format!("duration: Steps({steps})"));
        }
        if let Some(at) = line.find("every:") {
            let digits = line[at + 6..]
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            let spaces = line[at + 6..].len() - line[at + 6..].trim_start().len();
            line.replace_range(at..at + 6 + spaces + digits, &format!("every: {every}"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[test]
fn every_shipped_scene_writes_the_files_of_its_kind() {
    let scenes = root().join("scenes");
    let mut names: Vec<_> = std::fs::read_dir(&scenes)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    let dir = fresh_dir("scene-outputs", "all");
    for path in names {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let copy = dir.join(format!("{name}.ron"));
        std::fs::write(&copy, brief(&text, &scenes, 12, 5)).unwrap();
        let out = dir.join(&name);
        ok(&dem(&[
            "run",
            s(&copy),
            "--quiet",
            "--threads",
            "1",
            "--out",
            s(&out),
        ]));
        let mut expected = vec![
            "energy.csv",
            "particles.csv",
            "energy.png",
            "particles.pvd",
            "contacts.pvd",
        ];
        let has = |word: &str| code.contains(word);
        if has("Wall(") || has("Box(") {
            expected.push("walls.pvd");
        }
        if has("Mesh(") {
            expected.push("meshes.csv");
        }
        if has("inlets:") || has("outlets:") || has("Inlet(") || has("Outlet(") {
            expected.push("flow.csv");
        }
        if has("cell:") {
            expected.push("stress.csv");
        }
        if has("Polyhedron") || has("Rocks(") || has("polyhedra") {
            expected.push("polyhedra.pvd");
        }
        for file in expected {
            let f = out.join(file);
            let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
            assert!(
                len > 0,
                "{name}: {file} missing or empty in {}",
                out.display()
            );
        }
    }
}
