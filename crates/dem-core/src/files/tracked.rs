//! Tracked particles (`output.track`): a time series of chosen particles and of their
//! contacts as CSV rows, so that a force or trajectory history needs no VTK frames. Rows
//! are taken as a frame is (at step 0, every `output.every` steps and at the last step):
//! positions of the step, velocities at mid-step `v(t - dt/2)`, forces and contacts of the
//! step that ended there (none at step 0). `tracked.csv` has one row per tracked particle
//! present at the step; `tracked_contacts.csv` one row per live contact that involves a
//! tracked particle, in the order the contacts are written everywhere (fixed by the
//! particles' storage order).

use crate::step::simulation::Simulation;

/// One row of `tracked.csv`: step, time, scene id, then position (m), velocity (m/s),
/// angular velocity (rad/s), force (N) and torque (N m), three components each.
pub type TrackedRow = (u64, f64, u64, [f64; 15]);

/// One row of `tracked_contacts.csv`: step, time, the scene ids of body 1 and body 2, then
/// the contact point (m), the normal from body 1 to body 2, the force on body 2 (N, global;
/// on body 1 its opposite), three components each, and the overlap (m, 0 when apart).
pub type TrackedContactRow = (u64, f64, u64, u64, [f64; 10]);

/// Columns of `tracked.csv`.
pub const PARTICLE_COLUMNS: &str = "step,time,id,x,y,z,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz";

/// Columns of `tracked_contacts.csv`.
pub const CONTACT_COLUMNS: &str = "step,time,id1,id2,px,py,pz,nx,ny,nz,fx,fy,fz,overlap";

/// The rows of `sim` now (step and time as given) for the scene ids `track`: the tracked
/// particles by scene id (a particle an outlet removed has none), then their contacts.
/// A clump member is tracked as the particle it is (its own position, velocity and force).
pub fn rows(
    step: u64,
    time: f64,
    sim: &Simulation,
    track: &[u64],
) -> (Vec<TrackedRow>, Vec<TrackedContactRow>) {
    let p = &sim.particles;
    let tracked = |id: usize| track.contains(&(id as u64));
    let mut particles = Vec::new();
    for (id, i) in sim.order.by_id(p.len()) {
        if !tracked(id) {
            continue;
        }
        let v = [p.pos[i], p.vel[i], p.angvel[i], p.force[i], p.torque[i]];
        let values = std::array::from_fn(|k| v[k / 3][k % 3]);
        particles.push((step, time, id as u64, values));
    }
    // Periodic images stand for the particle they image.
    let id = |i: usize| match &sim.periodic {
        Some(per) => sim.order.id(per.owner(i as u32) as usize),
        None => sim.order.id(i),
    };
    let mut contacts = Vec::new();
    for (c, l6, forces) in sim.contacts.live_with_geometry() {
        let (b1, b2) = c.bodies();
        let (id1, id2) = (id(b1), id(b2));
        if !tracked(id1) && !tracked(id2) {
            continue;
        }
        let n = l6.frame.row(0).transpose();
        let (x, f) = (l6.point, forces.force);
        let values = [
            x.x,
            x.y,
            x.z,
            n.x,
            n.y,
            n.z,
            f.x,
            f.y,
            f.z,
            (-l6.u.x).max(0.0),
        ];
        contacts.push((step, time, id1 as u64, id2 as u64, values));
    }
    (particles, contacts)
}

/// The `tracked.csv` text of `rows`.
pub fn particles_csv(rows: &[TrackedRow]) -> String {
    let mut text = format!("{PARTICLE_COLUMNS}\n");
    for (step, time, id, v) in rows {
        let v: Vec<String> = v.iter().map(|x| format!("{x:.12e}")).collect();
        text.push_str(&format!("{step},{time:.9e},{id},{}\n", v.join(",")));
    }
    text
}

/// The `tracked_contacts.csv` text of `rows`.
pub fn contacts_csv(rows: &[TrackedContactRow]) -> String {
    let mut text = format!("{CONTACT_COLUMNS}\n");
    for (step, time, id1, id2, v) in rows {
        let v: Vec<String> = v.iter().map(|x| format!("{x:.12e}")).collect();
        text.push_str(&format!("{step},{time:.9e},{id1},{id2},{}\n", v.join(",")));
    }
    text
}
