//! The VTK files (`.vtu` with raw appended binary, `.pvd`) read back by an independent
//! reader, VTK itself (Python's `vtk` package, what ParaView is built on), with the same
//! arrays, values and cell types, for particles, contacts, walls and the faces of
//! polyhedra, also when a step has no contact.

use dem_core::files::vtk::{self, Grid, VTK_LINE, VTK_POLYGON, VTK_QUAD, VTK_TRIANGLE, VTK_VERTEX};
use dem_core::Simulation;
use dem_verification::{read_vtk, root, sim_from_text};
use serde_json::Value;
use std::path::PathBuf;

const SCENE: &str = r#"Scene(
    materials: { "m": (density: 2500, young: 1e7, friction: 0.4) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    bodies: [
        Box(min: (0, 0, 0), max: (0.01, 0.01, 0.02), material: "m"),
        Lattice(origin: (0.002, 0.002, 0.0019), count: (3, 3, 2), spacing: 0.0039, radius: 0.002,
                material: "m", velocity: (0.01, 0.02, -0.01)),
    ],
    gravity: (0, 0, -9.81),
    timestep: Critical(0.2),
    duration: Steps(100),
    output: (sphere_orientation: true),
)"#;

fn dir() -> PathBuf {
    let d = root().join("target").join("test-output").join("vtk");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `grid` and reads it back with VTK.
fn read_back(grid: &Grid, name: &str) -> Piece {
    let path = dir().join(name);
    std::fs::write(&path, grid.to_vtu()).unwrap();
    let all = read_vtk(&[&path]);
    Piece(all[path.to_str().unwrap()].clone())
}

/// One grid as VTK read it.
struct Piece(Value);

impl Piece {
    fn num_points(&self) -> usize {
        self.points().len() / 3
    }

    fn points(&self) -> Vec<f64> {
        floats(&self.0["points"])
    }

    /// Connectivity, offsets (VTK's, with a leading 0), cell types.
    fn cells(&self) -> (Vec<u64>, Vec<u64>, Vec<u8>) {
        let ints = |v: &Value| -> Vec<u64> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect()
        };
        let types = ints(&self.0["types"]).iter().map(|&t| t as u8).collect();
        (
            ints(&self.0["connectivity"]),
            ints(&self.0["offsets"]),
            types,
        )
    }

    /// A point (`point_data`) or cell (`cell_data`) array: VTK type, components, values.
    fn array(&self, kind: &str, name: &str) -> (String, u64, Vec<f64>) {
        let a = &self.0[kind][name];
        assert!(!a.is_null(), "no {kind} array `{name}`");
        let ty = a["type"].as_str().unwrap().to_string();
        (ty, a["components"].as_u64().unwrap(), floats(&a["values"]))
    }

    fn f64s(&self, kind: &str, name: &str, comps: u64) -> Vec<f64> {
        let (ty, n, v) = self.array(kind, name);
        assert_eq!((ty.as_str(), n), ("double", comps), "{name}");
        v
    }

    fn ids(&self, kind: &str, name: &str) -> Vec<i64> {
        let (ty, n, v) = self.array(kind, name);
        assert!(
            n == 1 && (ty == "long long" || ty == "long" || ty == "vtkIdType"),
            "{name}: {ty}"
        );
        v.iter().map(|&x| x as i64).collect()
    }
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn running() -> Simulation {
    let mut sim = sim_from_text(SCENE, "vtk.ron").unwrap();
    sim.run_steps(100).unwrap();
    sim
}

/// Without `output.sphere_orientation` (and no functor reading it) spheres keep their
/// initial orientation, the VTK particles have no `orientation` array, and nothing else
/// changes: the same bits as the run that integrates it.
#[test]
fn sphere_orientation_only_when_asked() {
    let asked = running();
    let text = SCENE.replace("    output: (sphere_orientation: true),\n", "");
    assert_ne!(text, SCENE);
    let mut plain = sim_from_text(&text, "vtk.ron").unwrap();
    plain.run_steps(100).unwrap();
    let (a, b) = (&asked.particles, &plain.particles);
    assert!(a.pos == b.pos && a.vel == b.vel && a.angvel == b.angvel);
    let turned = (0..a.len()).filter(|&i| a.ori[i] != b.ori[i]).count();
    assert!(turned >= 18, "{turned} spheres turned");
    assert!(b
        .ori
        .iter()
        .all(|q| *q == nalgebra::UnitQuaternion::identity()));
    let piece = read_back(&vtk::particles(&plain), "particles_plain.vtu");
    assert!(piece.0["point_data"]["orientation"].is_null());
    assert!(!piece.0["point_data"]["angular_velocity"].is_null());
}

#[test]
fn particles_read_back() {
    let sim = running();
    let piece = read_back(&vtk::particles(&sim), "particles.vtu");
    let p = &sim.particles;
    // Storage is in Morton order by now; the file is in scene order.
    assert!(!sim.order.ids().is_empty(), "storage was reordered");
    let spheres: Vec<usize> = (0..p.len())
        .map(|id| sim.order.index(id))
        .filter(|&i| p.shape[i].bounding_radius().is_some())
        .collect();
    assert_eq!(spheres.len(), 18);
    assert_eq!(piece.num_points(), 18);
    let (conn, offsets, types) = piece.cells();
    assert_eq!(conn, (0..18).collect::<Vec<u64>>());
    assert_eq!(offsets, (0..=18).collect::<Vec<u64>>());
    assert_eq!(types, vec![VTK_VERTEX; 18]);
    let pd = "point_data";
    let ids = piece.ids(pd, "id");
    let pts = piece.points();
    let radius = piece.f64s(pd, "radius", 1);
    let vel = piece.f64s(pd, "velocity", 3);
    let w = piece.f64s(pd, "angular_velocity", 3);
    let force = piece.f64s(pd, "force", 3);
    let torque = piece.f64s(pd, "torque", 3);
    let ori = piece.f64s(pd, "orientation", 4);
    let material = piece.array(pd, "material");
    assert_eq!(material, ("int".to_string(), 1, vec![0.0; 18]));
    for (k, &i) in spheres.iter().enumerate() {
        assert_eq!(ids[k], sim.order.id(i) as i64);
        assert_eq!(radius[k], 0.002);
        let v3 = |a: &[f64]| [a[3 * k], a[3 * k + 1], a[3 * k + 2]];
        assert_eq!(v3(&pts), [p.pos[i].x, p.pos[i].y, p.pos[i].z]);
        assert_eq!(v3(&vel), [p.vel[i].x, p.vel[i].y, p.vel[i].z]);
        assert_eq!(v3(&w), [p.angvel[i].x, p.angvel[i].y, p.angvel[i].z]);
        assert_eq!(v3(&force), [p.force[i].x, p.force[i].y, p.force[i].z]);
        assert_eq!(v3(&torque), [p.torque[i].x, p.torque[i].y, p.torque[i].z]);
        let q = p.ori[i].coords;
        assert_eq!(ori[4 * k..4 * k + 4], [q.x, q.y, q.z, q.w]);
    }
}

#[test]
fn contacts_read_back() {
    let sim = running();
    let live: Vec<_> = sim.contacts.live_with_geometry().collect();
    assert!(live.len() > 10, "{} contacts", live.len());
    let piece = read_back(&vtk::contacts(&sim), "contacts.vtu");
    let (conn, offsets, types) = piece.cells();
    assert_eq!(types, vec![VTK_LINE; live.len()]);
    assert_eq!(conn.len(), 2 * live.len());
    assert_eq!(offsets.last().copied(), Some(2 * live.len() as u64));
    let cd = "cell_data";
    let (id1, id2) = (piece.ids(cd, "id1"), piece.ids(cd, "id2"));
    let fnorm = piece.f64s(cd, "normal_force", 1);
    let normal = piece.f64s(cd, "normal", 3);
    let fn_vec = piece.f64s(cd, "normal_force_vector", 3);
    let ft = piece.f64s(cd, "tangential_force", 3);
    let overlap = piece.f64s(cd, "overlap", 1);
    let pts = piece.points();
    let p = &sim.particles;
    let mut walls = 0;
    for (k, (s, l6, pushed)) in live.iter().enumerate() {
        let (b1, b2) = s.bodies();
        let id = |i: usize| sim.order.id(i) as i64;
        assert_eq!((id1[k], id2[k]), (id(b1), id(b2)));
        assert_eq!(overlap[k], (-l6.u.x).max(0.0));
        let n = l6.frame.row(0).transpose();
        assert_eq!(normal[3 * k..3 * k + 3], [n.x, n.y, n.z]);
        // Normal and tangential parts add up to the contact force.
        for c in 0..3 {
            let sum = fn_vec[3 * k + c] + ft[3 * k + c];
            let f = pushed.force;
            assert!((sum - f[c]).abs() <= 1e-12 * f.norm(), "{k}");
        }
        assert_eq!(fnorm[k], n.dot(&pushed.force).abs());
        // Line ends: sphere centres, or the contact point on a wall.
        let mut end = |i: usize| {
            if p.shape[i].bounding_radius().is_some() {
                p.pos[i]
            } else {
                walls += 1;
                l6.point
            }
        };
        let (e1, e2) = (end(b1), end(b2));
        let (c1, c2) = (conn[2 * k] as usize, conn[2 * k + 1] as usize);
        assert_eq!(pts[3 * c1..3 * c1 + 3], [e1.x, e1.y, e1.z]);
        assert_eq!(pts[3 * c2..3 * c2 + 3], [e2.x, e2.y, e2.z]);
    }
    assert!(walls > 0, "contacts with the floor");
}

#[test]
fn walls_read_back() {
    let sim = running();
    let piece = read_back(&vtk::walls(&sim), "walls.vtu");
    let (conn, _, types) = piece.cells();
    assert_eq!(types, vec![VTK_QUAD; 6]);
    assert_eq!(piece.num_points(), 24);
    assert_eq!(conn, (0..24).collect::<Vec<u64>>());
    let cd = "cell_data";
    let ids = piece.ids(cd, "id");
    assert_eq!(
        ids,
        (0..6).collect::<Vec<i64>>(),
        "the box's walls come first"
    );
    let vel = piece.f64s(cd, "velocity", 3);
    let force = piece.f64s(cd, "force", 3);
    let p = &sim.particles;
    for (k, &id) in ids.iter().enumerate() {
        let (v, f) = (p.vel[id as usize], p.force[id as usize]);
        assert_eq!(vel[3 * k..3 * k + 3], [v.x, v.y, v.z]);
        assert_eq!(force[3 * k..3 * k + 3], [f.x, f.y, f.z]);
    }
    // Each quad lies in its wall's plane.
    let pts = piece.points();
    for (k, &id) in ids.iter().enumerate() {
        let dem_core::model::particles::Shape::Wall(w) = &p.shape[id as usize] else {
            panic!("not a wall");
        };
        let n = w.normal.na();
        for c in 0..4 {
            let q = &pts[3 * (4 * k + c)..3 * (4 * k + c) + 3];
            let d = nalgebra::Vector3::new(q[0], q[1], q[2]) - p.pos[id as usize];
            assert!(n.dot(&d).abs() < 1e-12, "wall {id} corner {c}");
        }
    }
}

#[test]
fn a_step_without_contacts_gives_valid_empty_files() {
    // Before the first step: no contact yet.
    let sim = sim_from_text(SCENE, "vtk.ron").unwrap();
    let piece = read_back(&vtk::contacts(&sim), "contacts_empty.vtu");
    assert_eq!(piece.num_points(), 0);
    let (conn, offsets, types) = piece.cells();
    assert!(conn.is_empty() && offsets == [0] && types.is_empty());
    assert!(piece.ids("cell_data", "id1").is_empty());
    assert!(piece.f64s("cell_data", "normal", 3).is_empty());
}

#[test]
fn pvd_lists_files_with_their_times() {
    let entries = [
        (0.0, "particles_000000000.vtu".to_string()),
        (2.5e-3, "particles_000000200.vtu".to_string()),
        (1.0 / 3.0, "particles_000000400.vtu".to_string()),
    ];
    let path = dir().join("particles.pvd");
    std::fs::write(&path, vtk::pvd(&entries)).unwrap();
    let read = &read_vtk(&[&path])[path.to_str().unwrap()]["datasets"];
    let read: Vec<(f64, String)> = read
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d[0].as_f64().unwrap(), d[1].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(read, entries);
}

/// Mesh facets are triangles in the walls stream, where the mesh is now.
#[test]
fn mesh_facets_read_back_as_triangles() {
    use dem_verification::mesh::{one_sphere_scene, write_obj, Boundary};
    let obj = write_obj(
        "vtk-square",
        &[
            [0.0, 0.0, 0.0],
            [0.1, 0.0, 0.0],
            [0.1, 0.1, 0.0],
            [0.0, 0.1, 0.0],
        ],
        &[[0, 1, 2], [0, 2, 3]],
    );
    let text = one_sphere_scene(
        &Boundary::Mesh(obj),
        "(density: 1000, young: 1e7)",
        "",
        [0.05, 0.05, 0.02],
        0.01,
        [0.0; 3],
        [0.0; 3],
        0.0,
        1e-5,
    );
    let sim = sim_from_text(&text, "mesh.ron").unwrap();
    let piece = read_back(&vtk::walls(&sim), "walls-mesh.vtu");
    let (_, _, types) = piece.cells();
    assert_eq!(types, vec![VTK_TRIANGLE; 2]);
    let pts = piece.points();
    let expected = [
        [0.0, 0.0, 0.0],
        [0.1, 0.0, 0.0],
        [0.1, 0.1, 0.0],
        [0.0, 0.0, 0.0],
        [0.1, 0.1, 0.0],
        [0.0, 0.1, 0.0],
    ];
    for (k, e) in expected.iter().enumerate() {
        for c in 0..3 {
            assert!(
                (pts[3 * k + c] - e[c]).abs() < 1e-15,
                "point {k}: {:?}",
                &pts[3 * k..3 * k + 3]
            );
        }
    }
}

#[test]
fn polyhedra_read_back_as_outward_polygons() {
    // A 0.1 m cube, turned and moving, among the walls of a box.
    let rot = nalgebra::UnitQuaternion::from_euler_angles(0.3, -0.5, 0.9);
    let centre = nalgebra::Vector3::new(0.5, 0.4, 0.3);
    let scene = format!(
        r#"Scene(
    materials: {{ "m": (density: 1000, young: 1e7, friction: 0.4) }},
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl",
            params: (kn_per_area: 1e7))],
    bodies: [
        Box(min: (0, 0, 0), max: (1, 1, 1), material: "m"),
        Polyhedron(vertices: {}, material: "m", velocity: (0.1, 0.2, 0.3)),
    ],
    gravity: (0, 0, 0),
    timestep: Critical(0.2),
    duration: Steps(3),
    contacts: (l6geom: (no_ratch: false, point_rate: true)),
)"#,
        dem_verification::polyhedra::cube(centre.into(), 0.1, rot)
    );
    let mut sim = sim_from_text(&scene, "poly-vtk.ron").unwrap();
    sim.run_steps(3).unwrap();
    let piece = read_back(&vtk::polyhedra(&sim), "polyhedra.vtu");
    let id = 6usize; // after the box's six walls
    let dem_core::model::particles::Shape::Polyhedron(body) = &sim.particles.shape[id] else {
        panic!("not a polyhedron");
    };
    let d = &body.data;
    let nf = d.planes.len();
    let mut ends = vec![0u64];
    for f in &d.planes {
        ends.push(ends.last().unwrap() + f.count as u64);
    }
    let total = *ends.last().unwrap();
    let (conn, offsets, types) = piece.cells();
    assert_eq!(types, vec![VTK_POLYGON; nf]);
    assert_eq!(offsets, ends);
    assert_eq!(conn, (0..total).collect::<Vec<u64>>());
    let cd = "cell_data";
    assert_eq!(piece.ids(cd, "id"), vec![id as i64; nf]);
    assert_eq!(piece.ids(cd, "face"), (0..nf as i64).collect::<Vec<i64>>());
    let p = &sim.particles;
    let v = p.vel[id];
    assert_eq!(piece.f64s(cd, "velocity", 3), [v.x, v.y, v.z].repeat(nf));
    // Every point is a corner of the cube where it is now (its centre moved by v t), each
    // polygon is planar with its normal (Newell) pointing outwards, and the areas add up
    // to the cube's surface 6 a^2.
    let now = p.pos[id];
    assert!((now - centre - v * sim.time).norm() < 1e-12);
    let pts = piece.points();
    let point = |k: usize| nalgebra::Vector3::new(pts[3 * k], pts[3 * k + 1], pts[3 * k + 2]);
    for k in 0..total as usize {
        let local = rot.inverse() * (point(k) - now);
        assert!(
            local.iter().all(|c| (c.abs() - 0.05).abs() < 1e-12),
            "{local:?}"
        );
    }
    let mut surface = 0.0;
    for f in 0..nf {
        let q: Vec<_> = (ends[f]..ends[f + 1]).map(|k| point(k as usize)).collect();
        let m = q.len();
        let newell: nalgebra::Vector3<f64> = (0..m).map(|c| q[c].cross(&q[(c + 1) % m])).sum();
        surface += 0.5 * newell.norm();
        let mid = q.iter().sum::<nalgebra::Vector3<f64>>() / m as f64;
        assert!(newell.dot(&(mid - now)) > 0.0, "face {f} faces inwards");
        assert!(q
            .iter()
            .all(|x| newell.normalize().dot(&(x - mid)).abs() < 1e-12));
    }
    assert!((surface - 0.06).abs() < 1e-12, "surface {surface}");
}
