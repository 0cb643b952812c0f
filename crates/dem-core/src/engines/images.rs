//! Periodic images: how the particles of a periodic [`Cell`] meet across its faces.
//!
//! The contacts, the L6Geom and the laws know nothing of periodicity. At each broad-phase
//! rebuild the core wraps the particles into the cell and makes an *image row* for each
//! particle close enough to a periodic face to touch a particle across it (within the
//! cutoff `2 r_max + reach + skin`; images of images along edges and corners too): a copy
//! of the particle shifted by the lattice vector `H s`. The functors, the L6Geom update
//! and the laws read an *extended* particle table: the particles, then the image rows,
//! whose position is the particle's plus `H s` and whose velocity is the particle's plus
//! the affine velocity `Hdot s`, refreshed every step. A contact across a face is a
//! contact between a particle and an image row: it is keyed by the pair and the image
//! shift (the row stands for both), carries its L6Geom and law state like any other, and
//! its force on the image row goes to the imaged particle in the gather. Only particles
//! near the faces get rows (a surface layer), so nothing is duplicated wholesale; the
//! grid of the broad phase runs over the extended table, and of the pairs it finds only
//! particle-particle ones and particle-image ones with the particle's id below the imaged
//! one's are kept (each pair across a face is found twice, once from each side).
//!
//! The geometry functors' ABI is unchanged: they see rows of [`dem_api::BodyColumns`].
//!
//! A particle wrapped by the lattice shift `w` in a deforming cell also has `Hdot w` taken
//! off its velocity (Lees-Edwards): it then moves relative to its new neighbours as it did
//! relative to their images, and the kinetic energy this changes is the boundary's work.
//!
//! Between rebuilds particles may leave the cell by less than the skin; the list goes
//! stale when the two largest displacements of the extended rows (the image rows move
//! with the cell too) sum to more than the skin. At a rebuild the contacts are re-keyed:
//! each contact's pair and image shift is read from the old rows, re-expressed after a
//! flip of the cell and the wrapping of its particles, and pointed at the new rows.
//!
//! Supported: spheres, and walls parallel to the periodic edges (a wall meets the
//! particles, never their images: an infinite plane along a periodic edge is its own
//! image). Mesh facets and polyhedra are refused in a periodic cell. Each periodic width
//! of the cell must be at least twice the cutoff (so that two particles meet through one
//! image at most); the storage reordering of particles is off in a periodic cell.

use crate::engines::broadphase::VerletList;
use crate::engines::contacts::Contacts;
use crate::engines::dispatch::Dispatch;
use crate::model::cell::{shift_vector, Cell, Shift};
use crate::model::energy::Wrapped;
use crate::model::particles::{Particles, Shape};
use crate::support::error::DemError;
use crate::support::team::Team;
use nalgebra::{Matrix3, Vector3};
use serde::{Deserialize, Serialize};

/// Id given to a contact body whose image is no longer kept (the contact then finds no
/// slot at the rebuild, and ends).
const LOST: u32 = u32::MAX;

/// The periodic cell with its image rows.
#[derive(Clone, Debug)]
pub struct Periodic {
    /// The cell.
    pub cell: Cell,
    /// Imaged particle and shift of each image row (row `n + k` for the `k`-th), sorted.
    pub images: Vec<(u32, Shift)>,
    /// The particles then the image rows: what the contacts read.
    pub ext: Particles,
    /// Largest centre distance at which two particles may become candidates before the
    /// next rebuild, m.
    pub cutoff: f64,
    /// The servo control of the cell and its stages, if the scene gives stages.
    pub servo: Option<crate::engines::servo::Servo>,
}

/// What a checkpoint keeps of a periodic cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedPeriodic {
    /// The cell.
    pub cell: Cell,
    /// The image rows.
    pub images: Vec<(u32, Shift)>,
    /// The servo's stages.
    pub servo: Option<crate::engines::servo::Servo>,
}

impl Periodic {
    /// A cell without image rows yet (the first rebuild makes them).
    pub fn new(cell: Cell, cutoff: f64) -> Periodic {
        Periodic {
            cell,
            images: Vec::new(),
            ext: Particles::default(),
            cutoff,
            servo: None,
        }
    }

    /// The state a checkpoint keeps.
    pub fn save(&self) -> SavedPeriodic {
        SavedPeriodic {
            cell: self.cell.clone(),
            images: self.images.clone(),
            servo: self.servo.clone(),
        }
    }

    /// Restores a saved state over the particles `p` (as saved with it).
    pub fn restore(&mut self, saved: SavedPeriodic, p: &Particles) -> Result<(), String> {
        if let Some(&(o, _)) = saved.images.iter().find(|(o, _)| *o as usize >= p.len()) {
            return Err(format!("holds an image of unknown particle {o}"));
        }
        self.cell = saved.cell;
        self.images = saved.images;
        self.servo = saved.servo;
        self.make_rows(p);
        Ok(())
    }

    /// Number of particles (the first rows of [`Self::ext`]).
    pub fn particles(&self) -> usize {
        self.ext.len() - self.images.len()
    }

    /// The particle row `i` stands for (itself, or the particle it images).
    pub fn owner(&self, i: u32) -> u32 {
        let n = self.particles() as u32;
        if i < n {
            i
        } else {
            self.images[(i - n) as usize].0
        }
    }

    /// The row of the image of particle `i` by `s` (`i` itself for no shift), if kept.
    fn row(&self, i: u32, s: Shift) -> u32 {
        if s == [0; 3] {
            return i;
        }
        match self.images.binary_search(&(i, s)) {
            Ok(k) => (self.particles() + k) as u32,
            Err(_) => LOST,
        }
    }

    /// Particle and shift of row `i` (`LOST` for an unknown row).
    fn key(&self, i: u32) -> (u32, Shift) {
        let n = self.particles() as u32;
        if i < n {
            (i, [0; 3])
        } else {
            self.images
                .get((i - n) as usize)
                .copied()
                .unwrap_or((LOST, [0; 3]))
        }
    }

    /// Makes the rows of [`Self::ext`] anew from `p` and [`Self::images`].
    fn make_rows(&mut self, p: &Particles) {
        let mut ext = p.clone();
        for &(o, _) in &self.images {
            let o = o as usize;
            ext.push(
                p.shape[o].clone(),
                p.pos[o],
                p.vel[o],
                p.angvel[o],
                p.mass[o],
                p.inertia[o],
                p.blocked[o],
                p.material[o],
            );
        }
        self.ext = ext;
        self.sync(p);
    }

    /// Refreshes the moving quantities of the rows from `p`: the particles' as they are,
    /// the images' shifted by `H s` and moving with the affine velocity `Hdot s`.
    pub fn sync(&mut self, p: &Particles) {
        let n = p.len();
        if self.ext.len() != n + self.images.len() {
            // Before the first rebuild.
            self.make_rows(p);
            return;
        }
        let e = &mut self.ext;
        e.pos[..n].copy_from_slice(&p.pos);
        e.vel[..n].copy_from_slice(&p.vel);
        e.ori[..n].copy_from_slice(&p.ori);
        e.angvel[..n].copy_from_slice(&p.angvel);
        for (k, &(o, s)) in self.images.iter().enumerate() {
            let (o, i) = (o as usize, n + k);
            e.pos[i] = p.pos[o] + self.cell.offset(s);
            e.vel[i] = p.vel[o] + self.cell.offset_velocity(s);
            e.ori[i] = p.ori[o];
            e.angvel[i] = p.angvel[o];
        }
    }

    /// After particles were appended to storage (an inlet): the image rows move up by
    /// their number, in the contacts and in [`Self::ext`]. A rebuild must follow (the
    /// broad phase sees the new count).
    pub fn grow(&mut self, p: &Particles, contacts: &mut Contacts) {
        let old = self.particles() as u32;
        let added = p.len() as u32 - old;
        contacts.rename(|a, b| {
            let up = |i: u32| if i >= old && i != LOST { i + added } else { i };
            (up(a), up(b))
        });
        self.make_rows(p);
    }

    /// The rows of the particles marked `dead` and of their images: what
    /// [`Contacts::remove_bodies`] reads in a periodic cell.
    pub fn dead_rows(&self, dead: &[bool]) -> Vec<bool> {
        let mut rows = dead.to_vec();
        rows.extend(self.images.iter().map(|&(o, _)| dead[o as usize]));
        rows
    }

    /// After storage was compacted (`old_to_new[i]`: the new index of particle `i`,
    /// `u32::MAX` for a removed one) into `p`: the image rows of removed particles go, the
    /// others follow their particles, in the contacts and in [`Self::ext`]. A rebuild must
    /// follow.
    pub fn compact(&mut self, old_to_new: &[u32], p: &Particles, contacts: &mut Contacts) {
        let mut rows = old_to_new.to_vec();
        let mut images = Vec::with_capacity(self.images.len());
        for &(o, s) in &self.images {
            match old_to_new[o as usize] {
                u32::MAX => rows.push(u32::MAX),
                new => {
                    rows.push((p.len() + images.len()) as u32);
                    // Sorted still: the kept particles keep their order.
                    images.push((new, s));
                }
            }
        }
        contacts.renumber(&rows);
        self.images = images;
        self.make_rows(p);
    }

    /// Is a rebuild due: a flip of the cell, or the rows moved beyond the skin?
    pub fn stale(&self, verlet: &VerletList, team: &Team) -> bool {
        self.cell.flip_due().is_some() || verlet.stale_in(&self.ext, team)
    }

    /// Fails unless every periodic width is at least twice the cutoff.
    pub fn check_widths(&self) -> Result<(), String> {
        for k in 0..3 {
            let w = self.cell.width(k);
            if self.cell.periodic[k] && (w.is_nan() || w < 2.0 * self.cutoff) {
                return Err(format!(
                    "the periodic cell is {w:e} m wide across edge {}, less than twice the \
                     cutoff {:e} m (2 x largest radius + interaction distance + skin): \
                     enlarge the cell",
                    ["x", "y", "z"][k],
                    self.cutoff
                ));
            }
        }
        Ok(())
    }

    /// The broad-phase rebuild of a periodic cell: flips the cell if due, wraps the
    /// particles `p` into it, makes the image rows, finds the candidate pairs and re-keys
    /// the contacts (see the module documentation). Returns what the wrap changed of the
    /// particles' energy ([`Wrapped`]), which the caller books
    /// ([`crate::model::energy::Ledger::wrap`]).
    pub fn rebuild(
        &mut self,
        p: &mut Particles,
        contacts: &mut Contacts,
        verlet: &mut VerletList,
        (reach, skin): (f64, f64),
        dispatch: &Dispatch,
    ) -> Result<Wrapped, DemError> {
        let mut flips: Vec<Box<dyn Fn(Shift) -> Shift>> = Vec::new();
        while let Some(due) = self.cell.flip_due() {
            flips.push(Box::new(self.cell.flip(due)));
        }
        self.check_widths().map_err(DemError::Scene)?;
        // Wrap the free particles (walls stay where they are).
        let inverse = self.cell.inverse();
        let wrapped: Vec<Shift> = (0..p.len())
            .map(|i| match p.shape[i].bounding_radius() {
                Some(_) => self.cell.wrap_shift(&inverse, &p.pos[i]),
                None => [0; 3],
            })
            .collect();
        // Lees-Edwards: a particle wrapped by `w` keeps its velocity relative to the
        // cell's affine field, so that the relative velocity of each of its contacts (with
        // an image whose shift changes by `-w`, moving `Hdot w` slower) goes on unchanged.
        // The kinetic energy this adds is the boundary's work: with it booked, the ledger
        // is the one of the unwrapped particle (whose contact across the face books
        // `-f . Hdot w dt` each step) as soon as that contact's force is gone.
        let mut out = Wrapped::default();
        for (i, &w) in wrapped.iter().enumerate() {
            if w == [0; 3] {
                continue;
            }
            let offset = self.cell.offset(w);
            p.pos[i] -= offset;
            let m = p.mass[i];
            if m.is_finite() {
                out.moved += m * offset;
            }
            let dv = self.cell.offset_velocity(w);
            if dv != Vector3::zeros() {
                let v = p.vel[i] - dv;
                if m.is_finite() {
                    out.work -= 0.5 * m * dv.dot(&(v + v + dv));
                }
                p.vel[i] = v;
            }
        }
        // Old keys of the contacts' rows, before the rows are made anew.
        let old = std::mem::take(&mut self.images);
        let old_n = p.len() as u32;
        let old_key = |i: u32| -> (u32, Shift) {
            if i < old_n {
                (i, [0; 3])
            } else {
                old.get((i - old_n) as usize)
                    .copied()
                    .unwrap_or((LOST, [0; 3]))
            }
        };
        self.images = self.image_list(p, &inverse);
        self.make_rows(p);
        let bounded = |i: u32| p.shape[i as usize].bounding_radius().is_some();
        let me = &*self;
        contacts.rename(|a, b| {
            let ((oa, sa), (ob, sb)) = (old_key(a), old_key(b));
            if oa == LOST || ob == LOST {
                return (a.min(LOST - 1), LOST);
            }
            if !(bounded(oa) && bounded(ob)) {
                // A wall meets the particle itself wherever it is wrapped to.
                return (oa, ob);
            }
            // Shift of b's image relative to a, in the new cell and after the wrapping.
            let mut s: Shift = std::array::from_fn(|k| sb[k] - sa[k]);
            for flip in &flips {
                s = flip(s);
            }
            let (wa, wb) = (wrapped[oa as usize], wrapped[ob as usize]);
            let s: Shift = std::array::from_fn(|k| s[k] + wb[k] - wa[k]);
            if oa < ob {
                (oa, me.row(ob, s))
            } else {
                (me.row(oa, s.map(|x| -x)), ob)
            }
        });
        verlet.rebuild(&self.ext, reach, skin);
        let n = p.len() as u32;
        let images = &self.images;
        verlet.pairs.retain(|&(i, j)| {
            if j < n {
                return true;
            }
            i < n && bounded(i) && i < images[(j - n) as usize].0
        });
        contacts.rebuild(&verlet.pairs, &self.ext, dispatch)?;
        Ok(out)
    }

    /// The image rows the particles `p` (wrapped into the cell) need: for each free
    /// particle, each shift whose image comes within the cutoff of the cell. Sorted.
    fn image_list(&self, p: &Particles, inverse: &Matrix3<f64>) -> Vec<(u32, Shift)> {
        let reach: [f64; 3] = std::array::from_fn(|k| {
            let r = self.cutoff / self.cell.width(k);
            // A rounding margin: an image too many costs a row, one too few a contact.
            r * (1.0 + 1e-9) + 1e-12
        });
        let per = self.cell.periodic;
        let mut out = Vec::new();
        for i in 0..p.len() {
            if p.shape[i].bounding_radius().is_none() {
                continue;
            }
            let f = inverse * p.pos[i];
            // The shifts worth having along each edge: 0, +1 near the face f = 0 (the
            // image lands just beyond f = 1), -1 near the face f = 1.
            let along = |k: usize| -> [Option<i32>; 3] {
                if !per[k] {
                    return [Some(0), None, None];
                }
                [
                    Some(0),
                    (f[k] < reach[k]).then_some(1),
                    (f[k] > 1.0 - reach[k]).then_some(-1),
                ]
            };
            let (ax, ay, az) = (along(0), along(1), along(2));
            for sx in ax.iter().flatten() {
                for sy in ay.iter().flatten() {
                    for sz in az.iter().flatten() {
                        let s = [*sx, *sy, *sz];
                        if s != [0; 3] {
                            out.push((i as u32, s));
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// After the law pass: the forces of contacts on image rows go to the particles they
    /// image. Returns `T = sum f s^T` over those contacts (`f` the force on the image
    /// row, `s` its shift), N, from which [`Periodic::boundary_work`] follows.
    pub fn fold(&self, contacts: &mut Contacts) -> Matrix3<f64> {
        let n = self.particles();
        let mut t = Matrix3::zeros();
        for (c, pushed) in contacts.live_forces() {
            let (b1, b2) = c.bodies();
            if b2 >= n {
                t += pushed.force * shift_vector(self.images[b2 - n].1).transpose();
            }
            if b1 >= n {
                t -= pushed.force * shift_vector(self.images[b1 - n].1).transpose();
            }
        }
        contacts.redirect_forces(|i| self.owner(i));
        t
    }

    /// Work done on the particles by the cell's deformation over the step, J: the force
    /// `f(t)` on each image row times the row's affine displacement over the step about t,
    /// `(Hdot(t-dt/2) + Hdot(t+dt/2)) s dt / 2`, with the sign of the work the contact
    /// receives (`-f . Hdot s dt`: the image row moves, the particle it images does not
    /// feel it).
    pub fn boundary_work(
        t: &Matrix3<f64>,
        before: &Matrix3<f64>,
        after: &Matrix3<f64>,
        dt: f64,
    ) -> f64 {
        -0.5 * dt * (before + after).component_mul(t).sum()
    }

    /// The particle and shift of every row of the extended table (for outputs and tests).
    pub fn row_key(&self, i: u32) -> (u32, Shift) {
        self.key(i)
    }
}

/// Checks a scene's particles for a periodic cell: no mesh facets or polyhedra, walls
/// parallel to the periodic edges. The error names the particle.
pub fn check_scene(cell: &Cell, p: &Particles) -> Result<(), String> {
    for k in 0..3 {
        if !cell.periodic[k] {
            continue;
        }
        let edge = cell.h.column(k).normalize();
        for i in 0..p.len() {
            match &p.shape[i] {
                Shape::Facet(_) | Shape::Polyhedron(_) | Shape::Plugin(_) => {
                    let kind = p.shape[i].name();
                    return Err(format!(
                        "body {i} is a {kind}: only spheres and walls are supported in a \
                         periodic cell"
                    ));
                }
                Shape::Wall(w) => {
                    let n = p.ori[i] * w.normal.na();
                    if n.dot(&edge).abs() > 1e-12 {
                        return Err(format!(
                            "body {i} is a wall not parallel to the periodic edge {}",
                            ["x", "y", "z"][k]
                        ));
                    }
                }
                Shape::Sphere(_) => {}
            }
        }
    }
    Ok(())
}
