//! Mesh import: a tetrahedron and a cube written as ASCII STL, binary STL and OBJ read back
//! as identical facets; degenerate triangles and non-finite coordinates are refused with a
//! message naming the file and the triangle.

use dem_core::model::mesh::build_facets;
use dem_core::model::mesh::read::{read_triangles, Triangle};
use nalgebra::Vector3;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mesh_io")
}

fn tetra() -> (Vec<[f32; 3]>, Vec<[usize; 3]>) {
    let v = vec![[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]];
    (v, vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]])
}

fn cube() -> (Vec<[f32; 3]>, Vec<[usize; 3]>) {
    let v = (0..8)
        .map(|i| {
            [
                (i & 1) as f32 * 0.5,
                ((i >> 1) & 1) as f32 * 0.5,
                (i >> 2) as f32 * 0.5,
            ]
        })
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let f = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    (v, f)
}

fn ascii_stl(v: &[[f32; 3]], f: &[[usize; 3]]) -> String {
    let mut s = String::from("solid test\n");
    for t in f {
        s.push_str("  facet normal 0 0 0\n    outer loop\n");
        for &i in t {
            s.push_str(&format!(
                "      vertex {} {} {}\n",
                v[i][0], v[i][1], v[i][2]
            ));
        }
        s.push_str("    endloop\n  endfacet\n");
    }
    s + "endsolid test\n"
}

fn obj(v: &[[f32; 3]], f: &[[usize; 3]]) -> String {
    let mut s = String::new();
    for p in v {
        s.push_str(&format!("v {} {} {}\n", p[0], p[1], p[2]));
    }
    for t in f {
        s.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    s
}

fn binary_stl(path: &PathBuf, v: &[[f32; 3]], f: &[[usize; 3]]) {
    let tris: Vec<stl_io::Triangle> = f
        .iter()
        .map(|t| stl_io::Triangle {
            normal: stl_io::Normal::new([0.0; 3]),
            vertices: t.map(|i| stl_io::Vertex::new(v[i])),
        })
        .collect();
    let mut file = std::fs::File::create(path).unwrap();
    stl_io::write_stl(&mut file, tris.iter()).unwrap();
}

fn write(name: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(dir()).unwrap();
    let p = dir().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn placed(t: &[Triangle]) -> Vec<[Vector3<f64>; 3]> {
    t.iter()
        .map(|t| t.map(|x| Vector3::new(x[0], x[1], x[2])))
        .collect()
}

#[test]
fn stl_ascii_binary_and_obj_give_identical_facets() {
    for (name, (v, f)) in [("tetra", tetra()), ("cube", cube())] {
        let ascii = write(&format!("{name}_ascii.stl"), &ascii_stl(&v, &f));
        let objp = write(&format!("{name}.obj"), &obj(&v, &f));
        let binary = dir().join(format!("{name}_binary.stl"));
        binary_stl(&binary, &v, &f);
        let a = read_triangles(&ascii).unwrap();
        let b = read_triangles(&binary).unwrap();
        let o = read_triangles(&objp).unwrap();
        assert_eq!(a.len(), f.len(), "{name}");
        assert_eq!(a, b, "{name}: ASCII and binary STL");
        assert_eq!(a, o, "{name}: STL and OBJ");
        let fa = build_facets(&placed(&a), &Vector3::zeros(), 0.0, 0);
        let fo = build_facets(&placed(&o), &Vector3::zeros(), 0.0, 0);
        for (x, y) in fa.iter().zip(&fo) {
            assert_eq!(x.shape.vertices, y.shape.vertices);
            assert_eq!(x.shape.neighbour_inward, y.shape.neighbour_inward);
            assert_eq!(x.shape.owns, y.shape.owns);
        }
        // A closed mesh: every edge has a neighbour; every edge and vertex has one owner;
        // every vertex is interior.
        assert!(fa
            .iter()
            .all(|x| x.shape.neighbour_inward.iter().all(|n| n.na().norm() > 0.5)));
        let edges: u32 = fa.iter().map(|x| (x.shape.owns & 7).count_ones()).sum();
        let verts: u32 = fa
            .iter()
            .map(|x| ((x.shape.owns >> 3) & 7).count_ones())
            .sum();
        assert!(
            fa.iter()
                .all(|x| (0..3).all(|k| x.shape.vertex_is_interior(k))),
            "{name}: every vertex of a closed mesh is interior"
        );
        assert_eq!(
            (edges as usize, verts as usize),
            (3 * f.len() / 2, v.len()),
            "{name}"
        );
    }
}

#[test]
fn bad_triangles_are_refused_with_file_and_index() {
    let (v, mut f) = tetra();
    f.push([1, 1, 2]);
    let p = write("degenerate.obj", &obj(&v, &f));
    let e = read_triangles(&p).unwrap_err().to_string();
    println!("{e}");
    assert!(e.contains("degenerate.obj") && e.contains("triangle 4") && e.contains("degenerate"));

    let text = ascii_stl(&v, &tetra().1).replacen("vertex 0 1 0", "vertex 0 NaN 0", 1);
    let p = write("nan.stl", &text);
    let e = read_triangles(&p).unwrap_err().to_string();
    println!("{e}");
    assert!(e.contains("nan.stl") && e.contains("triangle 0") && e.contains("finite"));

    let (mut v2, f2) = tetra();
    v2[3][2] = f32::INFINITY;
    let p = dir().join("inf_binary.stl");
    binary_stl(&p, &v2, &f2);
    let e = read_triangles(&p).unwrap_err().to_string();
    println!("{e}");
    assert!(e.contains("inf_binary.stl") && e.contains("triangle 1") && e.contains("finite"));

    let text = obj(&v, &tetra().1).replacen("v 0 0 1", "v 0 0 inf", 1);
    let p = write("inf.obj", &text);
    let e = read_triangles(&p).unwrap_err().to_string();
    println!("{e}");
    assert!(e.contains("inf.obj") && e.contains("triangle 1") && e.contains("non-finite"));
}

#[test]
fn a_binary_stl_whose_header_miscounts_is_refused() {
    let (v, f) = cube();
    let p = dir().join("miscounted.stl");
    std::fs::create_dir_all(dir()).unwrap();
    binary_stl(&p, &v, &f);
    let mut bytes = std::fs::read(&p).unwrap();
    // 12 triangles written; the header says 11: the last one would be dropped.
    bytes[80..84].copy_from_slice(&11u32.to_le_bytes());
    std::fs::write(&p, &bytes).unwrap();
    let e = read_triangles(&p).unwrap_err().to_string();
    assert!(
        e.contains("miscounted.stl: not a valid STL file: its binary header gives 11 triangles")
            && e.contains("the file has 684 bytes, room for 12 triangles"),
        "{e}"
    );
    // Garbage: said to be no STL, not "failed to fill whole buffer".
    let p = write("garbage.stl", "\u{1}\u{2} this is not a mesh");
    let e = read_triangles(&p).unwrap_err().to_string();
    assert!(e.contains("garbage.stl: not a valid STL file"), "{e}");
}

#[test]
fn a_scale_that_collapses_the_mesh_is_refused() {
    // A file of its own: the tests run at once, and another one writes tetra.obj (a
    // reader here once caught it truncated: 'the mesh has no triangles').
    let (v, f) = tetra();
    write("collapse.obj", &obj(&v, &f));
    let text = |scale: &str| {
        format!(
            r#"Scene(
        materials: {{ "m": (density: 1000, young: 1e6) }},
        laws: [],
        bodies: [Mesh(file: "collapse.obj", scale: {scale}, material: "m")],
        timestep: Fixed(1e-5),
        duration: Steps(1),
    )"#
        )
    };
    let expand = |scale: &str| {
        let scene = dem_core::Scene::parse(&text(scale), &dir().join("scene.ron")).unwrap();
        let index = [("m".to_string(), 0u32)].into_iter().collect();
        dem_core::scene::expand_bodies(
            &scene,
            &index,
            &dem_core::model::plugin_body::NoShapes,
            &mut Default::default(),
        )
        .map(|_| ())
    };
    expand("0.001").unwrap();
    // A missing file: named with the scene and the field.
    std::fs::remove_file(dir().join("collapse.obj")).unwrap();
    let e = expand("0.001").unwrap_err().to_string();
    assert!(
        e.contains("scene.ron: bodies[0].file: ") && e.contains("collapse.obj: "),
        "{e}"
    );
    write("collapse.obj", &obj(&v, &f));
    let e = expand("1e-300").unwrap_err().to_string();
    assert!(
        e.contains("bodies[0]: triangle 0 (0-based) of")
            && e.contains("collapse.obj, placed with scale 1e-300")
            && e.contains("degenerate"),
        "{e}"
    );
}
