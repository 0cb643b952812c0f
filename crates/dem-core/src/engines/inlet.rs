//! Inlets: regions that insert particles of a template (a sphere, a polyhedron or a
//! clump: see [`crate::engines::template`]) and a size distribution at a rate, during a time window, without
//! overlap with anything present.
//!
//! An inlet acts every `every` steps (an insertion event) from `start` on, and once more
//! at the first step at or after `end`. At each event it brings the count (or mass) it
//! delivered up to the cumulative target `rate * (t - start)` (t capped at `end`, the
//! count at `total`): the rate is exact over any window of many events, with no rounding
//! per event. A particle's size and material are drawn once and kept until it is placed,
//! so a crowded region delays large particles without biasing the distribution towards
//! small ones. Each particle gets up to `attempts` uniformly random positions in the region
//! (at least its radius inside); a position is free when the particle overlaps no
//! particle (bounding spheres), wall or mesh facet, nor, in a periodic cell, an image of a
//! particle across the faces. When the tries run out, the event
//! ends, a warning gives the shortfall, and the next event tries again.
//!
//! Inserted particles are appended to storage and get the next scene ids in insertion
//! order (see [`crate::engines::reorder::ParticleOrder`]; an inserted clump's members get
//! consecutive ids, and the clump is appended to the simulation's clumps); the energy
//! they bring is booked in the ledger's `inflow` (see [`crate::step::simulation::population`]).

use crate::engines::region::Region;
use crate::engines::template::{Made, Maker, Template};
use crate::model::cell::Cell;
use crate::model::particles::{Particles, Shape};
use crate::support::sampling::material_choice::MaterialChoice;
use crate::support::sampling::size_distribution::{Radius, Sampler};
use nalgebra::{UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};

/// How fast an inlet inserts.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
pub enum Rate {
    /// Particles per second.
    Number(f64),
    /// Kilograms per second.
    Mass(f64),
}

fn hundred() -> u64 {
    100
}

fn fifty() -> u32 {
    50
}

/// An inlet as a scene writes it (`inlets: [Inlet(...)]`).
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, rename = "Inlet")]
pub struct InletSpec {
    /// Name in `flow.csv`.
    pub name: String,
    /// Where particles appear.
    pub region: Region,
    /// What it inserts (default: spheres).
    #[serde(default)]
    pub shape: Template,
    /// Radius distribution (volume-equivalent radius for a polyhedron or a clump).
    pub radius: Radius,
    /// Material name, or a mix by number fraction.
    pub material: MaterialChoice,
    /// Insertion rate.
    pub rate: Rate,
    /// Time insertion begins, s.
    #[serde(default)]
    pub start: f64,
    /// Time insertion ends, s (none: at the end of the run).
    #[serde(default)]
    pub end: Option<f64>,
    /// Largest number of particles to insert in all (none: no limit).
    #[serde(default)]
    pub total: Option<u64>,
    /// Velocity of inserted particles, m/s.
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Plus a random part, each component uniform in `[-spread, spread]`, m/s.
    #[serde(default)]
    pub velocity_spread: f64,
    /// Seed of the inlet's random generator.
    pub seed: u64,
    /// Steps between two insertion events (default 100).
    #[serde(default = "hundred")]
    pub every: u64,
    /// Random positions tried per particle before the event gives up (default 50).
    #[serde(default = "fifty")]
    pub attempts: u32,
    /// The values of the scene's particle fields the inserted particles take, by field
    /// name (default: each field's `initial`).
    #[serde(default)]
    pub fields: std::collections::BTreeMap<String, f64>,
}

/// What an inlet remembers between events (saved in checkpoints).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InletState {
    rng: Pcg64,
    /// Particles inserted so far.
    pub count: u64,
    /// Their mass, kg.
    pub mass: f64,
    /// The next particle's radius (m) and material, drawn and not yet placed.
    next: Option<(f64, u32)>,
    /// Has the event at `end` happened?
    closed: bool,
    /// Events that ended with the region full.
    pub full_events: u64,
}

/// A particle an inlet inserts.
#[derive(Clone, Debug)]
pub struct NewParticle {
    /// Centre (centroid), m.
    pub center: Vector3<f64>,
    /// Velocity, m/s.
    pub velocity: Vector3<f64>,
    /// Volume-equivalent radius, m.
    pub radius: f64,
    /// Bounding radius about the centre, m.
    pub bound: f64,
    /// Material index.
    pub material: u32,
    /// Shape, orientation, mass and inertia.
    pub made: Made,
}

/// An inlet of a running simulation.
#[derive(Clone, Debug)]
pub struct Inlet {
    /// As the scene gives it.
    pub spec: InletSpec,
    /// Makes its particles.
    pub maker: Maker,
    sizes: Sampler,
    /// `(material, number fraction)`.
    mix: Vec<(u32, f64)>,
    /// Density of each material of the scene, kg/m^3.
    densities: Vec<f64>,
    /// Its state.
    pub state: InletState,
}

impl Inlet {
    /// The inlet of `spec`; `materials` maps names to indices, `densities` gives each
    /// index's density (kg/m^3), `base` anchors a `Table` file, `clump` is the clump
    /// template a `Clump` shape names, `shapes` builds a `Shaped` template's bodies. The
    /// error names the field (the caller prefixes `inlets[k]`).
    pub fn new(
        spec: &InletSpec,
        materials: &std::collections::BTreeMap<String, u32>,
        densities: Vec<f64>,
        base: &std::path::Path,
        clump: Option<&crate::engines::clump::ClumpTemplate>,
        shapes: &dyn crate::model::plugin_body::ShapeSource,
    ) -> Result<Inlet, String> {
        let mut spec = spec.clone();
        spec.region.load(base).map_err(|e| format!("region: {e}"))?;
        spec.region.check().map_err(|e| format!("region: {e}"))?;
        let maker = Maker::new(&spec.shape, clump, shapes)?;
        let sizes = spec
            .radius
            .sampler(base)
            .map_err(|e| format!("radius: {e}"))?;
        if !(sizes.min() > 0.0 && sizes.max().is_finite()) {
            return Err(format!(
                "radius: an inlet needs a smallest radius above 0 and a finite largest one \
                 (they set the time step and the room needed), got {} and {}: clip a LogNormal",
                sizes.min(),
                sizes.max()
            ));
        }
        maker.check_sizes(sizes.min(), sizes.max())?;
        let mix = spec
            .material
            .resolve(materials)
            .map_err(|e| format!("material: {e}"))?;
        let (rate, unit) = match spec.rate {
            Rate::Number(r) => (r, "particles/s"),
            Rate::Mass(r) => (r, "kg/s"),
        };
        if !(rate > 0.0 && rate.is_finite()) {
            return Err(format!(
                "rate: must be positive and finite, {unit}, got {rate}"
            ));
        }
        if !(spec.start >= 0.0 && spec.start.is_finite()) {
            return Err(format!(
                "start: must be >= 0 and finite, s, got {}",
                spec.start
            ));
        }
        if let Some(end) = spec.end {
            if !(end > spec.start && end.is_finite()) {
                return Err(format!(
                    "end: must be after start ({}) and finite, s, got {end}",
                    spec.start
                ));
            }
        }
        if spec.every == 0 {
            return Err("every: must be at least 1 (steps between two insertion events)".into());
        }
        if spec.attempts == 0 {
            return Err("attempts: must be at least 1".into());
        }
        let finite = spec.velocity.iter().all(|x| x.is_finite());
        if !(finite && spec.velocity_spread >= 0.0 && spec.velocity_spread.is_finite()) {
            return Err("velocity, velocity_spread: must be finite, the spread >= 0, m/s".into());
        }
        if spec
            .region
            .sample(maker.bound(sizes.max()), &mut Pcg64::seed_from_u64(0))
            .is_none()
        {
            return Err(format!(
                "region: too small to hold a particle of the largest radius ({} m, bounding \
                 radius {} m)",
                sizes.max(),
                maker.bound(sizes.max())
            ));
        }
        let rng = Pcg64::seed_from_u64(spec.seed);
        Ok(Inlet {
            spec,
            maker,
            sizes,
            mix,
            densities,
            state: InletState {
                rng,
                count: 0,
                mass: 0.0,
                next: None,
                closed: false,
                full_events: 0,
            },
        })
    }

    /// Largest bounding radius of what it inserts, m.
    pub fn max_radius(&self) -> f64 {
        self.maker.bound(self.sizes.max())
    }

    /// Smallest (volume-equivalent) radius it inserts, m.
    pub fn min_radius(&self) -> f64 {
        self.sizes.min()
    }

    /// Bounding radius over volume-equivalent radius of what it inserts (1 for spheres).
    pub fn kappa(&self) -> f64 {
        self.maker.kappa()
    }

    /// The materials it inserts.
    pub fn materials(&self) -> impl Iterator<Item = u32> + '_ {
        self.mix.iter().filter(|m| m.1 > 0.0).map(|m| m.0)
    }

    fn mass_of(&self, radius: f64, material: u32) -> f64 {
        self.densities[material as usize] * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3)
    }

    /// Does it insert at `step` (at time `t`, s)? An event of an inlet that has not yet
    /// inserted its `total`.
    pub fn inserts_at(&self, step: u64, t: f64) -> bool {
        self.event(step, t) && self.state.count < self.spec.total.unwrap_or(u64::MAX)
    }

    /// Is `step` (at time `t`, s) an insertion event?
    fn event(&self, step: u64, t: f64) -> bool {
        if t < self.spec.start || self.state.closed {
            return false;
        }
        let at_end = self.spec.end.is_some_and(|end| t >= end);
        at_end || step.is_multiple_of(self.spec.every)
    }

    /// The particles inserted at `step` (time `t`, s), placed clear of `p` and of each
    /// other; `p` is not changed (the caller appends them). In a periodic cell, `cell` is
    /// the cell: they are placed clear of the images across its faces too. `Err` only if
    /// a plugin shape's plugin fails to make a body.
    pub fn insert(
        &mut self,
        step: u64,
        t: f64,
        p: &Particles,
        cell: Option<&Cell>,
    ) -> Result<Vec<NewParticle>, String> {
        if !self.event(step, t) {
            return Ok(Vec::new());
        }
        let end = self.spec.end.unwrap_or(f64::INFINITY);
        if t >= end {
            self.state.closed = true;
        }
        let elapsed = t.min(end) - self.spec.start;
        let limit = self.spec.total.unwrap_or(u64::MAX);
        let mut room = Room::new(&self.spec.region, self.max_radius(), p, cell);
        let mut out = Vec::new();
        loop {
            if self.state.count >= limit {
                break;
            }
            let (radius, material) = match self.state.next {
                Some(next) => next,
                None => {
                    let r = self.sizes.sample(&mut self.state.rng);
                    let m = crate::support::sampling::material_choice::pick(
                        &self.mix,
                        &mut self.state.rng,
                    );
                    self.state.next = Some((r, m));
                    (r, m)
                }
            };
            let mass = self.mass_of(radius, material);
            let due = match self.spec.rate {
                Rate::Number(rate) => (self.state.count as f64) < (rate * elapsed).floor(),
                Rate::Mass(rate) => self.state.mass + mass <= rate * elapsed,
            };
            if !due {
                break;
            }
            let bound = self.maker.bound(radius);
            let Some(center) = self.place(bound, &mut room, p) else {
                let (behind, unit) = match self.spec.rate {
                    Rate::Number(rate) => (rate * elapsed - self.state.count as f64, "particles"),
                    Rate::Mass(rate) => (rate * elapsed - self.state.mass, "kg"),
                };
                self.state.full_events += 1;
                // The 1st, 10th, 100th, ... time: a full region stays full for many events.
                let n = self.state.full_events;
                if n == 10u64.pow(n.ilog10()) {
                    tracing::warn!(
                        "inlet `{}` at t = {t:e} s: the region is full ({} tries found no \
                         free place for a particle of radius {radius:e} m); {behind:.4e} {unit} \
                         behind the rate, tried again at the next event ({n} events found it \
                         full so far; said again at {})",
                        self.spec.name,
                        self.spec.attempts,
                        10 * n
                    );
                }
                break;
            };
            let s = self.spec.velocity_spread;
            let jitter = Vector3::from_fn(|_, _| {
                if s > 0.0 {
                    self.state.rng.random_range(-s..=s)
                } else {
                    0.0
                }
            });
            let v = self.spec.velocity;
            let ori = match self.maker.is_sphere() {
                true => UnitQuaternion::identity(),
                false => crate::support::sampling::random_rotation(&mut self.state.rng),
            };
            let made = self
                .maker
                .make(radius, self.densities[material as usize], ori)?;
            room.add(center, bound);
            self.state.next = None;
            self.state.count += 1;
            self.state.mass += made.mass;
            out.push(NewParticle {
                center,
                velocity: Vector3::new(v[0], v[1], v[2]) + jitter,
                radius,
                bound,
                material,
                made,
            });
        }
        Ok(out)
    }

    /// A free centre for a particle of bounding radius `radius`, or `None` after
    /// `attempts` tries.
    fn place(&mut self, radius: f64, room: &mut Room, p: &Particles) -> Option<Vector3<f64>> {
        for _ in 0..self.spec.attempts {
            let c = self.spec.region.sample(radius, &mut self.state.rng)?;
            if room.free(&c, radius, p) {
                return Some(c);
            }
        }
        None
    }
}

/// What an event must keep clear of: the bounded particles near the region (binned),
/// the spheres placed in this event, the walls, and the facets near the region; in a
/// periodic cell, the images of the particles and of the new spheres too.
struct Room {
    /// Bounding spheres `(centre, radius)` near the region, then the event's new ones.
    balls: Vec<(Vector3<f64>, f64)>,
    /// The box about the region in which a ball can touch a new sphere, m.
    near: (Vector3<f64>, Vector3<f64>),
    /// Lattice offsets of the images that can land in `near` (periodic cell), m.
    offsets: Vec<Vector3<f64>>,
    bins: std::collections::HashMap<[i64; 3], Vec<u32>>,
    cell: f64,
    walls: Vec<usize>,
    facets: Vec<usize>,
}

impl Room {
    fn new(region: &Region, rmax: f64, p: &Particles, lattice: Option<&Cell>) -> Room {
        let (lo, hi) = region.bounds();
        let largest = (0..p.len())
            .filter_map(|i| p.shape[i].bounding_radius())
            .fold(rmax, f64::max);
        // A cell of `rmax + largest`: every ball that can touch a new sphere is in its
        // cell or a neighbour.
        let cell = rmax + largest;
        let reach = Vector3::repeat(2.0 * cell);
        let near = (lo - reach, hi + reach);
        let mut room = Room {
            balls: Vec::new(),
            near,
            offsets: lattice.map_or(Vec::new(), |c| c.offsets_into(&near.0, &near.1)),
            bins: Default::default(),
            cell,
            walls: Vec::new(),
            facets: Vec::new(),
        };
        for i in 0..p.len() {
            match &p.shape[i] {
                Shape::Wall(_) => room.walls.push(i),
                Shape::Facet(f) => {
                    let v = f.vertices(&p.pos[i], &p.ori[i]);
                    let (a, b) = (v[0].inf(&v[1]).inf(&v[2]), v[0].sup(&v[1]).sup(&v[2]));
                    let h = f.shape.halfthick + rmax;
                    if (0..3).all(|k| b[k] + h >= lo[k] && a[k] - h <= hi[k]) {
                        room.facets.push(i);
                    }
                }
                s => room.add(p.pos[i], s.bounding_radius().unwrap_or(0.0)),
            }
        }
        room
    }

    fn key(&self, x: &Vector3<f64>) -> [i64; 3] {
        std::array::from_fn(|i| (x[i] / self.cell).floor() as i64)
    }

    /// Keeps the ball `(c, r)` and its images, those that come near the region.
    fn add(&mut self, c: Vector3<f64>, r: f64) {
        let (lo, hi) = self.near;
        for k in 0..=self.offsets.len() {
            let x = match k {
                0 => c,
                k => c + self.offsets[k - 1],
            };
            if (0..3).all(|i| x[i] + r >= lo[i] && x[i] - r <= hi[i]) {
                let key = self.key(&x);
                self.bins
                    .entry(key)
                    .or_default()
                    .push(self.balls.len() as u32);
                self.balls.push((x, r));
            }
        }
    }

    /// Does a sphere at `c` of radius `r` overlap nothing?
    fn free(&self, c: &Vector3<f64>, r: f64, p: &Particles) -> bool {
        let k = self.key(c);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(members) = self.bins.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) else {
                        continue;
                    };
                    if members.iter().any(|&b| {
                        let (x, rb) = self.balls[b as usize];
                        (x - c).norm() < r + rb
                    }) {
                        return false;
                    }
                }
            }
        }
        let walls_clear = self.walls.iter().all(|&w| {
            let Shape::Wall(wall) = &p.shape[w] else {
                return true;
            };
            let n = p.ori[w] * wall.normal.na();
            let d = (c - p.pos[w]).dot(&n);
            match wall.sense {
                0 => d.abs() >= r,
                s => d * s as f64 >= r,
            }
        });
        walls_clear
            && self.facets.iter().all(|&f| {
                let Shape::Facet(facet) = &p.shape[f] else {
                    return true;
                };
                let v = facet.vertices(&p.pos[f], &p.ori[f]);
                crate::model::mesh::triangle_distance(c, &v) >= r + facet.shape.halfthick
            })
    }
}
