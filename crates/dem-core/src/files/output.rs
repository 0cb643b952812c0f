//! Run outputs, shared by the `dem` command and the Python module: each written atomically
//! (temporary file, then rename), so a killed process never leaves a half-written result,
//! and an old file stays whole until its replacement is complete. Checkpoints are also made durable (fsync of the file before the rename and of
//! the directory after it), so that they survive a machine crash too.

use crate::engines::stress::Stress;
use crate::files::{vti, vtk};
use crate::model::energy::Ledger;
use crate::step::simulation::Simulation;
use crate::support::error::DemError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// [`write_atomic`], its error naming the file.
fn atomic(path: &Path, content: &[u8]) -> Result<(), DemError> {
    write_atomic(path, content).map_err(|source| DemError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `content` to `path` atomically.
pub fn write_atomic(path: &Path, content: &[u8]) -> std::io::Result<()> {
    write(path, content, false)
}

/// Writes `content` to `path` atomically and durably.
pub fn write_durable(path: &Path, content: &[u8]) -> std::io::Result<()> {
    write(path, content, true)
}

fn write(path: &Path, content: &[u8], durable: bool) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy());
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(content)?;
    if durable {
        f.sync_all()?;
    }
    drop(f);
    std::fs::rename(&tmp, path)?;
    // The rename itself is durable once the directory is synced (a Unix notion: other
    // systems cannot open a directory as a file).
    #[cfg(unix)]
    if durable {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        std::fs::File::open(dir.unwrap_or(Path::new(".")))?.sync_all()?;
    }
    Ok(())
}

/// One row of `energy.csv`: the step the ledger describes, its time, the ledger.
pub type EnergyRow = (u64, f64, Ledger);

/// The `energy.csv` text of `rows`.
pub fn energy_csv(rows: &[EnergyRow]) -> String {
    let mut text = format!("step,time,{}\n", Ledger::COLUMNS.join(","));
    for (step, time, l) in rows {
        let row: Vec<String> = l.row().iter().map(|x| format!("{x:.12e}")).collect();
        text.push_str(&format!("{step},{time:.9e},{}\n", row.join(",")));
    }
    text
}

/// One row of `stress.csv`: step, time, the values of [`Stress::row`].
pub type StressRow = (u64, f64, [f64; 13]);

/// The row of `stress.csv` for `sim` now (step and time as given), if the run measures
/// stress (a periodic cell, or `output.stress`).
pub fn stress_row(step: u64, time: f64, sim: &Simulation) -> Option<StressRow> {
    Stress::of(sim, sim.scene.output.stress.as_ref()).map(|s| (step, time, s.row()))
}

/// The `stress.csv` text of `rows`.
pub fn stress_csv(rows: &[StressRow]) -> String {
    let mut text = format!("step,time,{}\n", Stress::COLUMNS.join(","));
    for (step, time, row) in rows {
        let row: Vec<String> = row.iter().map(|x| format!("{x:.12e}")).collect();
        text.push_str(&format!("{step},{time:.9e},{}\n", row.join(",")));
    }
    text
}

/// One row of `flow.csv`: step, time, inlet or outlet name, its kind (`inlet` or
/// `outlet`), particles inserted or removed since the start, their mass (kg).
pub type FlowRow = (u64, f64, String, String, u64, f64);

/// The rows of the current step, one per inlet then one per outlet.
pub fn flow_rows(step: u64, time: f64, sim: &Simulation) -> Vec<FlowRow> {
    let inlets = sim.flow.inlets.iter().map(|i| {
        let s = &i.state;
        (
            step,
            time,
            i.spec.name.clone(),
            "inlet".into(),
            s.count,
            s.mass,
        )
    });
    let outlets = sim.flow.outlets.iter().map(|o| {
        let s = &o.state;
        (
            step,
            time,
            o.spec.name.clone(),
            "outlet".into(),
            s.count,
            s.mass,
        )
    });
    inlets.chain(outlets).collect()
}

/// The `flow.csv` text of `rows`: the cumulative counts and masses, and the mass flow
/// rate over the interval since the previous row of the same name (kg/s; 0 on the
/// first).
pub fn flow_csv(rows: &[FlowRow]) -> String {
    let mut text = String::from("step,time,name,kind,count,mass,mass_rate\n");
    let mut last: std::collections::HashMap<&str, (f64, f64)> = Default::default();
    for (step, time, name, kind, count, mass) in rows {
        let rate = match last.insert(name, (*time, *mass)) {
            Some((t0, m0)) if *time > t0 => (mass - m0) / (time - t0),
            _ => 0.0,
        };
        text.push_str(&format!(
            "{step},{time:.9e},{name},{kind},{count},{mass:.9e},{rate:.9e}\n"
        ));
    }
    text
}

/// One row of `meshes.csv`: step, time, mesh name, force (N), torque about the mesh's
/// reference point (N m), that point (m).
pub type MeshRow = (u64, f64, String, [f64; 3], [f64; 3], [f64; 3]);

/// The rows of the current step, one per mesh.
pub fn mesh_rows(step: u64, time: f64, sim: &Simulation) -> Vec<MeshRow> {
    sim.meshes
        .iter()
        .zip(sim.mesh_loads())
        .map(|(m, l)| {
            let a = |v: nalgebra::Vector3<f64>| [v.x, v.y, v.z];
            (
                step,
                time,
                m.name.clone(),
                a(l.force),
                a(l.torque),
                a(l.point),
            )
        })
        .collect()
}

/// The `meshes.csv` text of `rows`.
pub fn meshes_csv(rows: &[MeshRow]) -> String {
    let mut text = String::from("step,time,mesh,fx,fy,fz,tx,ty,tz,px,py,pz\n");
    for (step, time, name, f, t, p) in rows {
        text.push_str(&format!(
            "{step},{time:.9e},{name},{:.9e},{:.9e},{:.9e},{:.9e},{:.9e},{:.9e},{:e},{:e},{:e}\n",
            f[0], f[1], f[2], t[0], t[1], t[2], p[0], p[1], p[2]
        ));
    }
    text
}

/// Final particle state: id, kind, position, velocity, angular velocity, radius, force;
/// one row per particle by scene id (`id`: the place in the scene's bodies, then the
/// order of insertion by inlets), whatever the storage order; particles removed by an
/// outlet have no row. A clump is one row, of kind `Clump`, in place of its members: `id`
/// the scene id of its first member, position and velocity those of its centroid, the
/// angular velocity its own, `radius` its bounding radius about the centroid, force the
/// total force on it (weight and contacts) at the last step.
pub fn write_particles(dir: &Path, sim: &Simulation) -> Result<PathBuf, DemError> {
    let p = &sim.particles;
    let g = sim.integrator.gravity;
    let mut s = String::from("id,kind,x,y,z,vx,vy,vz,wx,wy,wz,radius,fx,fy,fz");
    // The particle fields' values, a column each, named as the fields.
    for f in &sim.exchanges.fields {
        s.push(',');
        s.push_str(&f.name);
    }
    s.push('\n');
    for (id, i) in sim.order.by_id(p.len()) {
        let mut r = p.shape[i].bounding_radius().unwrap_or(f64::INFINITY);
        let (mut x, mut v, mut w, mut f) = (p.pos[i], p.vel[i], p.angvel[i], p.force[i]);
        let mut kind = p.shape[i].name();
        if let Some(k) = sim.clump_of(i) {
            let c = &sim.clumps[k];
            if i != c.members.start {
                continue;
            }
            (x, v, w, r) = (c.pos, c.vel, c.angvel, c.template.bounding_radius);
            f = g * c.mass + c.contact_load(p, &g)[0];
            kind = "Clump";
        }
        s.push_str(&format!(
            "{id},{},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e}",
            kind, x.x, x.y, x.z, v.x, v.y, v.z, w.x, w.y, w.z, r, f.x, f.y, f.z
        ));
        for values in &p.fields {
            s.push_str(&format!(",{:e}", values[i]));
        }
        s.push('\n');
    }
    let path = dir.join("particles.csv");
    atomic(&path, s.as_bytes())?;
    Ok(path)
}

/// The three VTK streams of every run.
pub const STREAMS: [&str; 3] = ["particles", "contacts", "walls"];

/// The VTK stream of the polyhedra's faces, written when the scene has polyhedra.
pub const POLYHEDRA_STREAM: &str = "polyhedra";

/// Does `sim` have polyhedra (and so a [`POLYHEDRA_STREAM`])?
pub fn has_polyhedra(sim: &Simulation) -> bool {
    sim.particles
        .shape
        .iter()
        .any(|s| matches!(s, crate::model::particles::Shape::Polyhedron(_)))
}

/// The VTK stream of the surfaces of plugin shapes, written when the scene has them.
pub const SHAPES_STREAM: &str = "shapes";

/// Does `sim` have bodies of plugin shapes (and so a [`SHAPES_STREAM`])?
pub fn has_plugin_shapes(sim: &Simulation) -> bool {
    sim.particles
        .shape
        .iter()
        .any(|s| matches!(s, crate::model::particles::Shape::Plugin(_)))
}

/// Writes `<stream>_<step>.vtu` for every stream at the state of `sim`, and rewrites each
/// `<stream>.pvd` to list `frames` (the output steps so far, this one included).
pub fn write_vtk(dir: &Path, sim: &Simulation, frames: &[(u64, f64)]) -> Result<(), DemError> {
    let mut grids = vec![
        (STREAMS[0], vtk::particles(sim)),
        (STREAMS[1], vtk::contacts(sim)),
        (STREAMS[2], vtk::walls(sim)),
    ];
    if has_polyhedra(sim) {
        grids.push((POLYHEDRA_STREAM, vtk::polyhedra(sim)));
    }
    if has_plugin_shapes(sim) {
        grids.push((SHAPES_STREAM, vtk::plugin_shapes(sim)));
    }
    if !sim.bonds.is_empty() {
        grids.push((BONDS_STREAM, vtk::bonds(sim)));
    }
    let mut files: Vec<(&str, Vec<u8>, &str)> = grids
        .iter()
        .map(|(stream, grid)| (*stream, grid.to_vtu(), "vtu"))
        .collect();
    if let Some(f) = &sim.scene.output.fields {
        let fields = sim
            .coarse_grain(f.grid, f.kernel)
            .map_err(DemError::Scene)?;
        files.push((FIELDS_STREAM, vti::image(&fields), "vti"));
    }
    for (stream, bytes, ext) in &files {
        atomic(&dir.join(frame_name(stream, sim.step, ext)), bytes)?;
        let entries: Vec<(f64, String)> = frames
            .iter()
            .map(|&(step, time)| (time, frame_name(stream, step, ext)))
            .collect();
        atomic(
            &dir.join(format!("{stream}.pvd")),
            vtk::pvd(&entries).as_bytes(),
        )?;
    }
    Ok(())
}

/// The stream of the intact bonds, written in a scene with bonds.
pub const BONDS_STREAM: &str = "bonds";

/// One row of `bonds.csv`: step, time, bonds intact, broken since t = 0, removed with
/// their spheres since t = 0, and the energy the intact ones store (J).
pub type BondRow = (u64, f64, u64, u64, u64, f64);

/// The row of the current step.
pub fn bond_row(step: u64, time: f64, sim: &Simulation) -> BondRow {
    let set = &sim.bonds.set;
    let elastic = set.list.iter().map(|b| b.elastic).sum();
    (
        step,
        time,
        set.list.len() as u64,
        set.broken,
        set.removed,
        elastic,
    )
}

/// The `bonds.csv` text of `rows`, with the bonds broken since the previous row.
pub fn bonds_csv(rows: &[BondRow]) -> String {
    let mut text = String::from("step,time,intact,broken,broken_since_last,removed,elastic\n");
    let mut last = 0;
    for (step, time, intact, broken, removed, elastic) in rows {
        let since = broken - last.min(*broken);
        last = *broken;
        text.push_str(&format!(
            "{step},{time:.9e},{intact},{broken},{since},{removed},{elastic:.9e}\n"
        ));
    }
    text
}

/// The stream of the coarse-grained fields (`.vti`), written when the scene asks
/// (`output.fields`).
pub const FIELDS_STREAM: &str = "fields";

/// File name of a stream's frame, with its extension (`vtu`, or `vti` for the fields).
pub fn frame_name(stream: &str, step: u64, ext: &str) -> String {
    format!("{stream}_{step:09}.{ext}")
}
