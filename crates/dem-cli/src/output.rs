//! Run outputs, each written atomically (temporary file, fsync, rename): a crash never
//! leaves a half-written result.

use dem_core::energy::Ledger;
use dem_core::Simulation;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `content` to `path` atomically.
pub fn write_atomic(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(content)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// The energy ledger, one row per output step.
pub struct EnergyCsv {
    path: PathBuf,
    text: String,
}

impl EnergyCsv {
    /// A new table written to `dir/energy.csv`.
    pub fn new(dir: &Path) -> Self {
        let text = format!("step,time,{}\n", Ledger::COLUMNS.join(","));
        EnergyCsv {
            path: dir.join("energy.csv"),
            text,
        }
    }

    /// Appends a row and rewrites the file.
    pub fn record(&mut self, step: u64, time: f64, l: &Ledger) -> std::io::Result<()> {
        let row: Vec<String> = l.row().iter().map(|x| format!("{x:.12e}")).collect();
        self.text
            .push_str(&format!("{step},{time:.9e},{}\n", row.join(",")));
        write_atomic(&self.path, self.text.as_bytes())
    }
}

/// Final particle state: id, kind, position, velocity, angular velocity, radius.
pub fn write_particles(dir: &Path, sim: &Simulation) -> std::io::Result<()> {
    let p = &sim.particles;
    let mut s = String::from("id,kind,x,y,z,vx,vy,vz,wx,wy,wz,radius,fx,fy,fz\n");
    for i in 0..p.len() {
        let r = p.shape[i].bounding_radius().unwrap_or(f64::INFINITY);
        let (x, v, w, f) = (p.pos[i], p.vel[i], p.angvel[i], p.force[i]);
        s.push_str(&format!(
            "{i},{},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e}\n",
            p.shape[i].kind().name(),
            x.x,
            x.y,
            x.z,
            v.x,
            v.y,
            v.z,
            w.x,
            w.y,
            w.z,
            r,
            f.x,
            f.y,
            f.z
        ));
    }
    write_atomic(&dir.join("particles.csv"), s.as_bytes())
}
