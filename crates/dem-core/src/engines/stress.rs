//! The average stress of a granular sample (Love-Weber), with the volume fraction and the
//! coordination number.
//!
//! Compression is positive. Over the volume `V` (the periodic cell's, or a box region's):
//!
//! `sigma = -(1/V) sum_p sum_{c of p} f_c,p (x) (x_c - x_p) + (1/V) sum_p m_p v'_p (x) v'_p`
//!
//! The first term is the contact part: for each particle `p` in the volume, each force
//! `f_c,p` its contacts (and bonds, at the bond's point) exert on it, times its branch from the particle's centre to the
//! contact point `x_c` (walls included: a wall's push on the particles of a box is what
//! the walls carry). The second is the kinetic part, with `v'` the velocity less the
//! affine field of the periodic cell (`(dH/dt) H^-1 x`), or less the mean velocity of the
//! region's particles. A contact between two particles of the volume counts as
//! `f (x) (x_2 - x_1)` with `f` the force on particle 2: the familiar `sum f (x) l / V`.
//! In a periodic cell a contact across a face counts once, with the branch to the image.
//!
//! `pressure = trace(sigma) / 3`, `deviator = sqrt(3/2 s : s)` with `s = sigma - p I`
//! (the von Mises equivalent, `|sigma_1 - sigma_3|` under axial symmetry), volume
//! fraction = the particles' volume over `V` (whole spheres, by centre in a region), and
//! coordination number = twice the particle-particle contacts over the particles
//! (contacts with walls not counted).

use crate::model::particles::{Particles, Shape};
use dem_api::Material;
use nalgebra::{Matrix3, Vector3};

/// Where the stress is averaged when the run has no periodic cell: particles whose centre
/// lies in the box `[min, max]`, m.
#[derive(Clone, Copy, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// Lower corner, m.
    pub min: [f64; 3],
    /// Upper corner, m.
    pub max: [f64; 3],
}

/// The stress of a sample at one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stress {
    /// The stress tensor, Pa (compression positive).
    pub sigma: Matrix3<f64>,
    /// Its contact part, Pa.
    pub contact: Matrix3<f64>,
    /// The volume it is averaged over, m^3.
    pub volume: f64,
    /// Volume of the particles over the volume.
    pub fraction: f64,
    /// Particle-particle contacts per particle, times two.
    pub coordination: f64,
    /// Particles counted.
    pub particles: usize,
}

impl Stress {
    /// Column names of [`Stress::row`].
    pub const COLUMNS: [&'static str; 13] = [
        "s_xx",
        "s_xy",
        "s_xz",
        "s_yx",
        "s_yy",
        "s_yz",
        "s_zx",
        "s_zy",
        "s_zz",
        "pressure",
        "deviator",
        "volume_fraction",
        "coordination",
    ];

    /// Mean stress, Pa.
    pub fn pressure(&self) -> f64 {
        self.sigma.trace() / 3.0
    }

    /// `sqrt(3/2 s : s)` with `s` the deviatoric part, Pa.
    pub fn deviator(&self) -> f64 {
        let s = self.sigma - Matrix3::identity() * self.pressure();
        (1.5 * s.component_mul(&s).sum()).sqrt()
    }

    /// The values in the order of [`Stress::COLUMNS`].
    pub fn row(&self) -> [f64; 13] {
        let s = &self.sigma;
        [
            s[(0, 0)],
            s[(0, 1)],
            s[(0, 2)],
            s[(1, 0)],
            s[(1, 1)],
            s[(1, 2)],
            s[(2, 0)],
            s[(2, 1)],
            s[(2, 2)],
            self.pressure(),
            self.deviator(),
            self.fraction,
            self.coordination,
        ]
    }
}

/// One force between two bodies for [`measure`]: the bodies, the point it acts at, the
/// force on body 2, and whether it is a contact (counted in the coordination number; a
/// bond is not).
pub(crate) type PairForce = ((usize, usize), Vector3<f64>, Vector3<f64>, bool);

/// The stress over `volume` of the particles of `rows` that are `inside` (row ids as the
/// contacts name them), with the velocity field `drift` subtracted in the kinetic part.
/// `contacts` gives each live contact's (and bond's) bodies, point and the force on its
/// body 2; `periodic`: in a periodic cell (every row counts, the image rows too).
pub(crate) fn measure(
    contacts: impl Iterator<Item = PairForce>,
    materials: &[Material],
    periodic: bool,
    rows: &Particles,
    volume: f64,
    inside: impl Fn(usize) -> bool,
    drift: impl Fn(&Particles, usize) -> Vector3<f64>,
) -> Stress {
    let mut contact = Matrix3::zeros();
    let mut pairs = 0usize;
    let ball = |i: usize| matches!(rows.shape[i], Shape::Sphere(_)) || rows.shape[i].aspherical();
    // In a periodic cell every particle row counts, the image rows too: a contact across
    // a face gets both its ends (the image row's share is the particle's).
    let counts = |b: usize| ball(b) && (inside(b) || periodic);
    for ((b1, b2), point, force, is_contact) in contacts {
        // Force on body 2 is `force`, on body 1 its opposite.
        for (b, f) in [(b1, -force), (b2, force)] {
            if counts(b) {
                contact -= f * (point - rows.pos[b]).transpose();
            }
        }
        if is_contact && ball(b1) && ball(b2) && (inside(b1) || inside(b2)) {
            pairs += 1;
        }
    }
    let mut kinetic = Matrix3::zeros();
    let (mut solid, mut count) = (0.0, 0usize);
    for i in (0..rows.len()).filter(|&i| inside(i) && ball(i)) {
        let v = rows.vel[i] - drift(rows, i);
        kinetic += v * v.transpose() * rows.mass[i];
        solid += match &rows.shape[i] {
            Shape::Sphere(s) => 4.0 / 3.0 * std::f64::consts::PI * s.radius.powi(3),
            _ => rows.mass[i] / materials[rows.material[i] as usize].density,
        };
        count += 1;
    }
    let contact = contact / volume;
    Stress {
        sigma: contact + kinetic / volume,
        contact,
        volume,
        fraction: solid / volume,
        coordination: if count == 0 {
            0.0
        } else {
            2.0 * pairs as f64 / count as f64
        },
        particles: count,
    }
}
