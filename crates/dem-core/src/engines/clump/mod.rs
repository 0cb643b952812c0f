//! Clumps: rigid bodies made of overlapping spheres (Yade's clumps, LIGGGHTS' multisphere).
//!
//! A [`ClumpTemplate`] is the shape: its member spheres (centre and radius in the
//! template frame, read from a scene literal or a CSV file, times an optional scale).
//! Its mass properties are those of the union of the members, every overlap counted once
//! ([`union_mass`]); the template is stored in its principal frame (origin at the
//! centroid, axes the principal axes of inertia), as polyhedra are, so that a clump's
//! `inertia` is diagonal in the body frame and the rotation integrator of
//! [`crate::engines::rotation`] applies as it is.

pub mod body;
pub mod disc_union;
pub mod quadrature;
pub mod template_csv;
pub mod union_mass;

pub use body::ClumpBody;
pub use union_mass::{union_mass_properties, Member};

use nalgebra::{Isometry3, Translation3, Vector3};

/// Relative slack on "touching" when members are checked to form one connected body.
const TOUCH: f64 = 1e-9;

/// A clump shape in its principal frame.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClumpTemplate {
    /// Members in the body frame (centroid at the origin, principal axes), m.
    pub members: Vec<Member>,
    /// Volume of the union of the members, m^3.
    pub volume: f64,
    /// Principal moments of inertia for unit density, m^5 (times the density: kg m^2),
    /// in increasing order.
    pub moments: Vector3<f64>,
    /// Pose of the body frame in the template frame: a member at `c` in the body frame
    /// is at `frame * c` in the template frame the user wrote.
    pub frame: Isometry3<f64>,
    /// Radius of the sphere about the centroid enclosing every member, m.
    pub bounding_radius: f64,
}

impl ClumpTemplate {
    /// The template of the given members (template frame, m) scaled by `scale` about the
    /// template origin. Errors say what is wrong, naming the member by its index, for
    /// the caller to prefix with the file and field.
    pub fn new(members: &[Member], scale: f64) -> Result<ClumpTemplate, String> {
        if !(scale > 0.0 && scale.is_finite()) {
            return Err(format!("scale must be positive and finite, got {scale}"));
        }
        if members.is_empty() {
            return Err("a clump template needs at least one member sphere".into());
        }
        for (k, m) in members.iter().enumerate() {
            if !m.center.iter().all(|x| x.is_finite()) {
                return Err(format!("member {k}: centre {:?} is not finite", m.center));
            }
            if !(m.radius > 0.0 && m.radius.is_finite()) {
                return Err(format!(
                    "member {k}: radius must be positive and finite, got {}",
                    m.radius
                ));
            }
        }
        let scaled: Vec<Member> = members
            .iter()
            .map(|m| Member {
                center: m.center * scale,
                radius: m.radius * scale,
            })
            .collect();
        check_connected(&scaled)?;
        let mp = union_mass_properties(&scaled);
        let principal = mp.principal();
        let frame =
            Isometry3::from_parts(Translation3::from(mp.centroid.coords), principal.rotation);
        let body: Vec<Member> = scaled
            .iter()
            .map(|m| Member {
                center: frame.inverse_transform_vector(&(m.center - mp.centroid.coords)),
                radius: m.radius,
            })
            .collect();
        let bounding_radius = body
            .iter()
            .map(|m| m.center.norm() + m.radius)
            .fold(0.0, f64::max);
        Ok(ClumpTemplate {
            members: body,
            volume: mp.volume,
            moments: principal.moments,
            frame,
            bounding_radius,
        })
    }
}

impl ClumpTemplate {
    /// The same shape `s` times larger (a positive, finite factor) about its centroid:
    /// members' centres and radii times `s`, volume times `s^3`, moments times `s^5`.
    /// Scaling needs no new quadrature, so a shape scaled twice by the same factor has
    /// the same bits (an inlet's clumps are remade on resume).
    pub fn scaled(&self, s: f64) -> ClumpTemplate {
        let mut frame = self.frame;
        frame.translation.vector *= s;
        ClumpTemplate {
            members: self
                .members
                .iter()
                .map(|m| Member {
                    center: m.center * s,
                    radius: m.radius * s,
                })
                .collect(),
            volume: self.volume * s.powi(3),
            moments: self.moments * s.powi(5),
            frame,
            bounding_radius: self.bounding_radius * s,
        }
    }
}

/// Refuses members that do not form one body: every member must overlap or touch
/// another one, and all must be linked through such contacts.
fn check_connected(members: &[Member]) -> Result<(), String> {
    let n = members.len();
    let touches = |i: usize, j: usize| {
        let (a, b) = (&members[i], &members[j]);
        (a.center - b.center).norm() <= (a.radius + b.radius) * (1.0 + TOUCH)
    };
    let mut reached = vec![false; n];
    let mut stack = vec![0];
    reached[0] = true;
    while let Some(i) = stack.pop() {
        for (j, seen) in reached.iter_mut().enumerate() {
            if !*seen && touches(i, j) {
                *seen = true;
                stack.push(j);
            }
        }
    }
    match reached.iter().position(|r| !r) {
        None => Ok(()),
        Some(k) => {
            let gap = (0..n)
                .filter(|&j| reached[j])
                .map(|j| {
                    let (a, b) = (&members[k], &members[j]);
                    (a.center - b.center).norm() - a.radius - b.radius
                })
                .fold(f64::INFINITY, f64::min);
            Err(format!(
                "member {k} does not touch member 0 or the members linked to it (gap {gap:e} m): \
                 the members of a clump must overlap or touch to form one body"
            ))
        }
    }
}
