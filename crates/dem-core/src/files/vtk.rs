//! VTK XML files for ParaView: unstructured grids (`.vtu`) of the particles, the contacts
//! and the walls, with raw binary appended data (`header_type="UInt64"`, little endian),
//! and `.pvd` collections that give each file its physical time.
//!
//! Particles are written in the order of their scene ids (their places in the scene's
//! bodies), and every `id` is a scene id, whatever the storage order
//! ([`crate::engines::reorder`]).
//!
//! - particles: one vertex cell per sphere, point data `id`, `radius`, `velocity`,
//!   `angular_velocity`, `force`, `torque`, `material` (index into the scene's materials in
//!   name order) and `orientation` (unit quaternion `i, j, k, w`, body to global);
//! - contacts: one line cell per live contact from body 1 to body 2 (a wall's end is the
//!   contact point), cell data `id1`, `id2`, `normal_force` (magnitude, N), `normal`,
//!   `normal_force_vector`, `tangential_force` (force on body 2, global frame, N) and
//!   `overlap` (m, >= 0);
//! - polyhedra: one polygon per face of each polyhedron where it is now (vertices
//!   counter-clockwise seen from outside), cell data `id`, `face` (index in the body),
//!   `velocity`, `angular_velocity` and `material` (polyhedra are also in `particles`, as
//!   vertex cells at their centroids, with `radius` their bounding radius);
//! - walls: one quad per wall, centred on the projection of the spheres' bounding box
//!   centre and as wide as the box's diagonal, then one triangle per mesh facet where it
//!   is now; cell data `id`, `velocity`, `force`, `material` (a mesh's force is on its
//!   facets; `meshes.csv` has each mesh's total).

use crate::engines::l6geom::initial_frame;
use crate::model::particles::Shape;
use crate::step::simulation::Simulation;
use nalgebra::Vector3;
use std::fmt::Write;

/// VTK cell type of a vertex.
pub const VTK_VERTEX: u8 = 1;
/// VTK cell type of a line.
pub const VTK_LINE: u8 = 3;
/// VTK cell type of a triangle.
pub const VTK_TRIANGLE: u8 = 5;
/// VTK cell type of a polygon.
pub const VTK_POLYGON: u8 = 7;
/// VTK cell type of a quadrilateral.
pub const VTK_QUAD: u8 = 9;

/// The values of one data array.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// `Float64`.
    F64(Vec<f64>),
    /// `Int64`.
    I64(Vec<i64>),
    /// `Int32`.
    I32(Vec<i32>),
    /// `UInt8`.
    U8(Vec<u8>),
}

impl Values {
    fn type_name(&self) -> &'static str {
        match self {
            Values::F64(_) => "Float64",
            Values::I64(_) => "Int64",
            Values::I32(_) => "Int32",
            Values::U8(_) => "UInt8",
        }
    }

    /// Appends the block: byte count (UInt64) then the values, little endian.
    fn append_to(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&0u64.to_le_bytes());
        match self {
            Values::F64(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Values::I64(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Values::I32(v) => v
                .iter()
                .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Values::U8(v) => out.extend_from_slice(v),
        }
        let len = (out.len() - start - 8) as u64;
        out[start..start + 8].copy_from_slice(&len.to_le_bytes());
    }
}

/// A named array with `components` values per point or cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// Name shown in ParaView.
    pub name: std::borrow::Cow<'static, str>,
    /// Components per tuple.
    pub components: usize,
    /// The values, tuple after tuple.
    pub values: Values,
}

/// An unstructured grid of one piece.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid {
    /// Point coordinates, m.
    pub points: Vec<[f64; 3]>,
    /// Point indices of every cell, cell after cell.
    pub connectivity: Vec<i64>,
    /// End of each cell in `connectivity`.
    pub offsets: Vec<i64>,
    /// VTK cell type of each cell.
    pub types: Vec<u8>,
    /// Arrays with one tuple per point.
    pub point_data: Vec<Array>,
    /// Arrays with one tuple per cell.
    pub cell_data: Vec<Array>,
}

fn f64s(name: &'static str, values: Vec<f64>) -> Array {
    Array {
        name: name.into(),
        components: 1,
        values: Values::F64(values),
    }
}

fn vectors(name: &'static str, values: impl Iterator<Item = Vector3<f64>>) -> Array {
    Array {
        name: name.into(),
        components: 3,
        values: Values::F64(values.flat_map(|v| [v.x, v.y, v.z]).collect()),
    }
}

fn ints(name: &'static str, values: impl Iterator<Item = i64>) -> Array {
    Array {
        name: name.into(),
        components: 1,
        values: Values::I64(values.collect()),
    }
}

impl Grid {
    /// Adds a cell of `kind` over the given points.
    fn cell(&mut self, kind: u8, points: &[[f64; 3]]) {
        for p in points {
            self.connectivity.push(self.points.len() as i64);
            self.points.push(*p);
        }
        self.offsets.push(self.connectivity.len() as i64);
        self.types.push(kind);
    }

    /// Adds the triangles `triangles` (indices into `points`) with their points, each
    /// point once.
    fn triangles(&mut self, points: &[[f64; 3]], triangles: &[[u32; 3]]) {
        let first = self.points.len() as i64;
        self.points.extend_from_slice(points);
        for t in triangles {
            self.connectivity
                .extend(t.iter().map(|&k| first + k as i64));
            self.offsets.push(self.connectivity.len() as i64);
            self.types.push(VTK_TRIANGLE);
        }
    }

    /// The `.vtu` file content.
    pub fn to_vtu(&self) -> Vec<u8> {
        let mut xml = String::from(
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" \
             byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n",
        );
        let _ = writeln!(
            xml,
            "    <Piece NumberOfPoints=\"{}\" NumberOfCells=\"{}\">",
            self.points.len(),
            self.types.len()
        );
        let mut data = Vec::new();
        section(&mut xml, &mut data, "PointData", &self.point_data);
        section(&mut xml, &mut data, "CellData", &self.cell_data);
        let points = Array {
            name: "Points".into(),
            components: 3,
            values: Values::F64(self.points.iter().flatten().copied().collect()),
        };
        section(&mut xml, &mut data, "Points", &[points]);
        let cells = [
            Array {
                name: "connectivity".into(),
                components: 1,
                values: Values::I64(self.connectivity.clone()),
            },
            Array {
                name: "offsets".into(),
                components: 1,
                values: Values::I64(self.offsets.clone()),
            },
            Array {
                name: "types".into(),
                components: 1,
                values: Values::U8(self.types.clone()),
            },
        ];
        section(&mut xml, &mut data, "Cells", &cells);
        xml.push_str("    </Piece>\n  </UnstructuredGrid>\n");
        appended(xml, &data)
    }
}

/// Writes the `<tag>` element of `arrays` to `xml`, their values appended to `data`.
pub(crate) fn section(xml: &mut String, data: &mut Vec<u8>, tag: &str, arrays: &[Array]) {
    let _ = writeln!(xml, "      <{tag}>");
    for a in arrays {
        let _ = writeln!(
            xml,
            "        <DataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\" \
             format=\"appended\" offset=\"{}\"/>",
            a.values.type_name(),
            a.name,
            a.components,
            data.len()
        );
        a.values.append_to(data);
    }
    let _ = writeln!(xml, "      </{tag}>");
}

/// The file: `xml` (up to its data set's closing tag), then `data` appended raw.
pub(crate) fn appended(mut xml: String, data: &[u8]) -> Vec<u8> {
    xml.push_str("  <AppendedData encoding=\"raw\">\n   _");
    let mut out = xml.into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n  </AppendedData>\n</VTKFile>\n");
    out
}

/// Storage indices of the particles in the order of their scene ids.
fn scene_order(sim: &Simulation) -> impl Iterator<Item = usize> + '_ {
    sim.order
        .by_id(sim.particles.len())
        .into_iter()
        .map(|(_, i)| i)
}

/// The spheres of `sim`, one vertex cell each.
pub fn particles(sim: &Simulation) -> Grid {
    let p = &sim.particles;
    let ids: Vec<usize> = scene_order(sim)
        .filter(|&i| p.shape[i].bounding_radius().is_some())
        .collect();
    let mut g = Grid::default();
    for &i in &ids {
        let x = p.pos[i];
        g.cell(VTK_VERTEX, &[[x.x, x.y, x.z]]);
    }
    let radius = ids.iter().filter_map(|&i| p.shape[i].bounding_radius());
    g.point_data = vec![
        ints("id", ids.iter().map(|&i| sim.order.id(i) as i64)),
        f64s("radius", radius.collect()),
        vectors("velocity", ids.iter().map(|&i| p.vel[i])),
        vectors("angular_velocity", ids.iter().map(|&i| p.angvel[i])),
        vectors("force", ids.iter().map(|&i| p.force[i])),
        vectors("torque", ids.iter().map(|&i| p.torque[i])),
        Array {
            name: "material".into(),
            components: 1,
            values: Values::I32(ids.iter().map(|&i| p.material[i] as i32).collect()),
        },
    ];
    // The particle fields' values, an array each, named as the fields.
    for (def, values) in sim.exchanges.fields.iter().zip(&p.fields) {
        g.point_data.push(Array {
            name: def.name.clone().into(),
            components: 1,
            values: Values::F64(ids.iter().map(|&i| values[i]).collect()),
        });
    }
    // Free spheres keep their initial orientation unless it is integrated (see
    // `Integrator::sphere_orientation`): then no orientation is written rather than that.
    let kept = |&i: &usize| {
        sim.integrator.sphere_orientation
            || !matches!(p.shape[i], Shape::Sphere(_))
            || p.blocked[i].member()
    };
    if ids.iter().all(kept) {
        g.point_data.push(Array {
            name: "orientation".into(),
            components: 4,
            values: Values::F64(
                ids.iter()
                    .flat_map(|&i| {
                        let q = p.ori[i].coords;
                        [q.x, q.y, q.z, q.w]
                    })
                    .collect(),
            ),
        });
    }
    if !sim.clumps.is_empty() || sim.flow.inserts_clumps() {
        // A member's clump (index in the simulation's clumps: scene order, then insertion
        // order, less those removed), -1 for a free sphere; its velocity,
        // angular velocity and orientation above are those of its clump's motion.
        let clump = |&i: &usize| sim.clump_of(i).map_or(-1, |k| k as i64);
        g.point_data.push(ints("clump", ids.iter().map(clump)));
    }
    g
}

/// The live contacts of `sim`, one line cell each.
pub fn contacts(sim: &Simulation) -> Grid {
    // In a periodic cell a contact across a face ends at an image row (drawn at the
    // image, named by the particle it images).
    let p = sim.periodic.as_ref().map_or(&sim.particles, |per| &per.ext);
    let id = |i: usize| match &sim.periodic {
        Some(per) => sim.order.id(per.owner(i as u32) as usize),
        None => sim.order.id(i),
    };
    let live: Vec<_> = sim.contacts.live_with_geometry().collect();
    let mut g = Grid::default();
    let end = |i: usize, c: &Vector3<f64>| {
        let x = if p.shape[i].bounding_radius().is_some() {
            p.pos[i]
        } else {
            *c
        };
        [x.x, x.y, x.z]
    };
    for (s, l6, _) in &live {
        let (b1, b2) = s.bodies();
        g.cell(VTK_LINE, &[end(b1, &l6.point), end(b2, &l6.point)]);
    }
    type Live<'c> = (
        &'c crate::engines::contacts::Contact,
        crate::engines::l6geom::L6State,
        crate::engines::contacts::Forces,
    );
    let normal = |(_, l6, _): &Live<'_>| -> Vector3<f64> { l6.frame.row(0).transpose() };
    let fnormal = |s: &Live<'_>| normal(s) * normal(s).dot(&s.2.force);
    g.cell_data = vec![
        ints("id1", live.iter().map(|(s, ..)| id(s.bodies().0) as i64)),
        ints("id2", live.iter().map(|(s, ..)| id(s.bodies().1) as i64)),
        f64s(
            "normal_force",
            live.iter()
                .map(|s| normal(s).dot(&s.2.force).abs())
                .collect(),
        ),
        vectors("normal", live.iter().map(normal)),
        vectors("normal_force_vector", live.iter().map(fnormal)),
        vectors(
            "tangential_force",
            live.iter().map(|s| s.2.force - fnormal(s)),
        ),
        f64s(
            "overlap",
            live.iter().map(|(_, l6, _)| (-l6.u.x).max(0.0)).collect(),
        ),
    ];
    g
}

/// The intact bonds of `sim`, one line cell each from centre to centre, with the ids of
/// their spheres, their tension (N, the force along the line of centres that pulls the
/// spheres together; negative in compression), shear force (N) and stored energy (J) at
/// the last step.
pub fn bonds(sim: &Simulation) -> Grid {
    let p = &sim.particles;
    let at = |id: u64| sim.order.index(id as usize);
    let live: Vec<_> = sim
        .bonds
        .set
        .list
        .iter()
        .filter(|b| b.ids.iter().all(|&id| at(id) < p.len()))
        .collect();
    let mut g = Grid::default();
    for b in &live {
        let [x, y] = b.ids.map(|id| {
            let x = p.pos[at(id)];
            [x.x, x.y, x.z]
        });
        g.cell(VTK_LINE, &[x, y]);
    }
    let normal = |b: &crate::engines::bond::Bond| -> Vector3<f64> {
        b.l6.map_or(Vector3::zeros(), |l6| l6.frame.row(0).transpose())
    };
    g.cell_data = vec![
        ints("id1", live.iter().map(|b| b.ids[0] as i64)),
        ints("id2", live.iter().map(|b| b.ids[1] as i64)),
        f64s(
            "tension",
            live.iter().map(|b| -normal(b).dot(&b.force)).collect(),
        ),
        f64s(
            "shear_force",
            live.iter()
                .map(|b| (b.force - normal(b) * normal(b).dot(&b.force)).norm())
                .collect(),
        ),
        f64s("elastic", live.iter().map(|b| b.elastic).collect()),
    ];
    g
}

/// The faces of the polyhedra of `sim`, one polygon cell each.
pub fn polyhedra(sim: &Simulation) -> Grid {
    let p = &sim.particles;
    let mut g = Grid::default();
    // (body, face) of each cell.
    let mut faces: Vec<(usize, usize)> = Vec::new();
    let mut corners: Vec<[f64; 3]> = Vec::new();
    for i in scene_order(sim) {
        let Shape::Polyhedron(b) = &p.shape[i] else {
            continue;
        };
        let d = &b.data;
        for (k, f) in d.planes.iter().enumerate() {
            corners.clear();
            let idx = &d.face_vertices[f.first as usize..(f.first + f.count) as usize];
            for &v in idx {
                let x = p.pos[i] + p.ori[i] * d.vertices[v as usize].na();
                corners.push([x.x, x.y, x.z]);
            }
            g.cell(VTK_POLYGON, &corners);
            faces.push((i, k));
        }
    }
    g.cell_data = vec![
        ints("id", faces.iter().map(|&(i, _)| sim.order.id(i) as i64)),
        ints("face", faces.iter().map(|&(_, k)| k as i64)),
        vectors("velocity", faces.iter().map(|&(i, _)| p.vel[i])),
        vectors("angular_velocity", faces.iter().map(|&(i, _)| p.angvel[i])),
        Array {
            name: "material".into(),
            components: 1,
            values: Values::I32(faces.iter().map(|&(i, _)| p.material[i] as i32).collect()),
        },
    ];
    g
}

/// The surfaces of the bodies of plugin shapes of `sim`: their triangles, each vertex
/// once, with the body's data on its vertices.
pub fn plugin_shapes(sim: &Simulation) -> Grid {
    let p = &sim.particles;
    let mut g = Grid::default();
    // The body of each point.
    let mut owner: Vec<usize> = Vec::new();
    for i in scene_order(sim) {
        let Shape::Plugin(b) = &p.shape[i] else {
            continue;
        };
        let s = b.surface();
        let n = s.vertices.len();
        let points: Vec<[f64; 3]> = s
            .vertices
            .iter()
            .map(|v| {
                let x = p.pos[i] + p.ori[i] * v.na();
                [x.x, x.y, x.z]
            })
            .collect();
        let triangles: Vec<[u32; 3]> = (s.triangles.iter())
            .filter(|t| t.iter().all(|&k| (k as usize) < n))
            .copied()
            .collect();
        g.triangles(&points, &triangles);
        owner.extend(std::iter::repeat_n(i, n));
    }
    g.point_data = vec![
        ints("id", owner.iter().map(|&i| sim.order.id(i) as i64)),
        vectors("velocity", owner.iter().map(|&i| p.vel[i])),
        vectors("angular_velocity", owner.iter().map(|&i| p.angvel[i])),
        Array {
            name: "material".into(),
            components: 1,
            values: Values::I32(owner.iter().map(|&i| p.material[i] as i32).collect()),
        },
    ];
    g
}

/// The walls of `sim`, one quad each, then the mesh facets, one triangle each.
pub fn walls(sim: &Simulation) -> Grid {
    let p = &sim.particles;
    let (mut lo, mut hi) = (
        Vector3::repeat(f64::INFINITY),
        Vector3::repeat(-f64::INFINITY),
    );
    for i in 0..p.len() {
        if let Some(r) = p.shape[i].bounding_radius() {
            lo = lo.inf(&p.pos[i].add_scalar(-r));
            hi = hi.sup(&p.pos[i].add_scalar(r));
        }
    }
    let (centre, half) = if lo.x <= hi.x {
        (0.5 * (lo + hi), 0.55 * (hi - lo).norm())
    } else {
        (Vector3::zeros(), 0.5)
    };
    let walls = (0..p.len()).filter(|&i| matches!(p.shape[i], Shape::Wall(_)));
    let facets = (0..p.len()).filter(|&i| matches!(p.shape[i], Shape::Facet(_)));
    let ids: Vec<usize> = walls.chain(facets).collect();
    let mut g = Grid::default();
    for &i in &ids {
        let w = match &p.shape[i] {
            Shape::Wall(w) => w,
            Shape::Facet(f) => {
                let v = f.vertices(&p.pos[i], &p.ori[i]).map(|x| [x.x, x.y, x.z]);
                g.cell(VTK_TRIANGLE, &v);
                continue;
            }
            Shape::Sphere(_) | Shape::Polyhedron(_) | Shape::Plugin(_) => continue,
        };
        let n = p.ori[i] * w.normal.na();
        let frame = initial_frame(&n);
        let (u, v) = (frame.row(1).transpose(), frame.row(2).transpose());
        let c = centre - n * n.dot(&(centre - p.pos[i]));
        let corner = |a: f64, b: f64| {
            let x = c + (u * a + v * b) * half;
            [x.x, x.y, x.z]
        };
        let quad = [
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
            corner(1.0, 1.0),
            corner(-1.0, 1.0),
        ];
        g.cell(VTK_QUAD, &quad);
    }
    g.cell_data = vec![
        ints("id", ids.iter().map(|&i| i as i64)),
        vectors("velocity", ids.iter().map(|&i| p.vel[i])),
        vectors("force", ids.iter().map(|&i| p.force[i])),
        Array {
            name: "material".into(),
            components: 1,
            values: Values::I32(ids.iter().map(|&i| p.material[i] as i32).collect()),
        },
    ];
    g
}

/// A `.pvd` collection of `(time, file)` entries (files relative to the collection).
pub fn pvd(entries: &[(f64, String)]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" \
         byte_order=\"LittleEndian\">\n  <Collection>\n",
    );
    for (t, file) in entries {
        let _ = writeln!(
            s,
            "    <DataSet timestep=\"{t:e}\" group=\"\" part=\"0\" file=\"{file}\"/>"
        );
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    s
}
