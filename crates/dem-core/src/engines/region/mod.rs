//! Regions of space for inlets and outlets: an axis-aligned box, a finite cylinder, or the
//! layer in front of a triangulated surface ([`surface`]).

pub mod surface;

use nalgebra::Vector3;
use rand::Rng;
use serde::Deserialize;
use std::path::Path;
use std::sync::Arc;
use surface::Surface;

fn one() -> f64 {
    1.0
}

/// A region of space, as a scene writes it.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum Region {
    /// The axis-aligned box `[min, max]`, m.
    Box {
        /// Lower corner, m.
        min: [f64; 3],
        /// Upper corner, m.
        max: [f64; 3],
    },
    /// A finite circular cylinder: the points within `radius` of the segment from `base`
    /// along `axis` (normalised on load) over `height`.
    Cylinder {
        /// Centre of the base disc, m.
        base: [f64; 3],
        /// Direction of the axis, from the base.
        axis: [f64; 3],
        /// Radius, m.
        radius: f64,
        /// Length along the axis, m.
        height: f64,
    },
    /// The points in front of a triangulated surface: within `depth` of it along the
    /// triangles' normals, over the triangles (see [`surface`]).
    Surface {
        /// `.stl` or `.obj` file, relative to the scene file.
        file: String,
        /// Thickness of the layer, m.
        depth: f64,
        /// Uniform scale applied to the file's coordinates first.
        #[serde(default = "one")]
        scale: f64,
        /// Translation applied after scaling, m.
        #[serde(default)]
        translate: [f64; 3],
        /// The triangles, once [`Region::load`] has read them.
        #[serde(skip)]
        loaded: Option<Arc<Surface>>,
    },
}

fn v(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

impl Region {
    /// Reads the file of a `Surface` region (relative to `base`); nothing for the others.
    /// The error names the file and the field.
    pub fn load(&mut self, base: &Path) -> Result<(), String> {
        let Region::Surface {
            file,
            scale,
            translate,
            loaded,
            ..
        } = self
        else {
            return Ok(());
        };
        if !(*scale > 0.0 && scale.is_finite() && translate.iter().all(|x| x.is_finite())) {
            return Err(format!(
                "Surface: scale must be positive and finite, translate finite, got {scale} and \
                 {translate:?}"
            ));
        }
        let triangles = crate::model::mesh::read::read_triangles(&base.join(&*file))
            .map_err(|e| format!("Surface.file: {e}"))?;
        let t = v(*translate);
        let placed: Vec<[Vector3<f64>; 3]> = triangles
            .iter()
            .map(|tri| tri.map(|p| v(p) * *scale + t))
            .collect();
        let surface = Surface::new(&placed).map_err(|e| format!("Surface.file: {file}: {e}"))?;
        *loaded = Some(Arc::new(surface));
        Ok(())
    }

    /// The triangles of a loaded `Surface` region.
    fn surface(&self) -> (&Surface, f64) {
        match self {
            Region::Surface {
                loaded: Some(s),
                depth,
                ..
            } => (s, *depth),
            _ => panic!("a Surface region is used only once loaded"),
        }
    }

    /// Refuses a region that holds no point or is not finite (the message names the
    /// parameter).
    pub fn check(&self) -> Result<(), String> {
        use crate::model::particles::MAX_COORDINATE as MAX;
        // Finite and of a size a scene can hold (see [`crate::model::particles::MAX_COORDINATE`]).
        let finite = |a: &[f64; 3]| a.iter().all(|x| x.abs() <= MAX);
        match self {
            Region::Surface { depth, loaded, .. } => {
                if !(*depth > 0.0 && depth.is_finite()) {
                    return Err(format!(
                        "Surface: depth must be positive and finite, m, got {depth}"
                    ));
                }
                if loaded.is_none() {
                    return Err("Surface: the file was not read".into());
                }
            }
            Region::Box { min, max } => {
                if !(finite(min) && finite(max) && (0..3).all(|i| min[i] < max[i])) {
                    return Err(format!(
                        "Box: min {min:?} must be below max {max:?} on every axis, both finite \
                         and at most {MAX:e} m in size"
                    ));
                }
            }
            Region::Cylinder {
                base,
                axis,
                radius,
                height,
            } => {
                if !(finite(base) && finite(axis) && v(*axis).norm() > 0.0) {
                    return Err(format!(
                        "Cylinder: base {base:?} and axis {axis:?} must be finite and at most \
                         {MAX:e} in size, the axis not zero"
                    ));
                }
                for (name, x) in [("radius", radius), ("height", height)] {
                    if !(*x > 0.0 && *x <= MAX) {
                        return Err(format!(
                            "Cylinder: {name} must be positive and at most {MAX:e} m, got {x:e}"
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Is `x` inside (boundary included)?
    pub fn contains(&self, x: &Vector3<f64>) -> bool {
        self.depth(x) >= 0.0
    }

    /// How far inside `x` is: the distance to the nearest face (negative outside, though
    /// not the distance then), m.
    pub fn depth(&self, x: &Vector3<f64>) -> f64 {
        match self {
            Region::Box { min, max } => (0..3)
                .map(|i| (x[i] - min[i]).min(max[i] - x[i]))
                .fold(f64::INFINITY, f64::min),
            Region::Cylinder {
                base,
                axis,
                radius,
                height,
            } => {
                let a = v(*axis).normalize();
                let d = x - v(*base);
                let h = d.dot(&a);
                let r = (d - a * h).norm();
                h.min(height - h).min(radius - r)
            }
            Region::Surface { .. } => {
                let (s, depth) = self.surface();
                s.depth(x, depth)
            }
        }
    }

    /// The corners of a box holding the region, m.
    pub fn bounds(&self) -> (Vector3<f64>, Vector3<f64>) {
        match self {
            Region::Box { min, max } => (v(*min), v(*max)),
            Region::Cylinder {
                base,
                axis,
                radius,
                height,
            } => {
                let a = v(*axis).normalize();
                let (b, t) = (v(*base), v(*base) + a * *height);
                // A disc of normal a reaches sqrt(1 - a_i^2) r along axis i.
                let reach = Vector3::from_fn(|i, _| radius * (1.0 - a[i] * a[i]).max(0.0).sqrt());
                (b.inf(&t) - reach, b.sup(&t) + reach)
            }
            Region::Surface { .. } => {
                let (s, depth) = self.surface();
                s.bounds(depth)
            }
        }
    }

    /// Volume, m^3.
    pub fn volume(&self) -> f64 {
        match self {
            Region::Box { min, max } => (0..3).map(|i| max[i] - min[i]).product(),
            Region::Cylinder { radius, height, .. } => {
                std::f64::consts::PI * radius * radius * height
            }
            Region::Surface { .. } => {
                let (s, depth) = self.surface();
                s.area() * depth
            }
        }
    }

    /// A point drawn uniformly from the points at least `margin` inside (m), or `None`
    /// when there is none.
    pub fn sample(&self, margin: f64, rng: &mut impl Rng) -> Option<Vector3<f64>> {
        match self {
            Region::Box { min, max } => {
                let (lo, hi) = (v(*min).add_scalar(margin), v(*max).add_scalar(-margin));
                if (0..3).any(|i| lo[i] > hi[i]) {
                    return None;
                }
                Some(Vector3::from_fn(|i, _| {
                    if lo[i] < hi[i] {
                        rng.random_range(lo[i]..hi[i])
                    } else {
                        lo[i]
                    }
                }))
            }
            Region::Cylinder {
                base,
                axis,
                radius,
                height,
            } => {
                let (r, h) = (radius - margin, height - 2.0 * margin);
                if r < 0.0 || h < 0.0 {
                    return None;
                }
                let a = v(*axis).normalize();
                // Two unit vectors across the axis.
                let any = if a.x.abs() < 0.9 {
                    Vector3::x()
                } else {
                    Vector3::y()
                };
                let e1 = a.cross(&any).normalize();
                let e2 = a.cross(&e1);
                // Uniform over the disc: radius by the square root of a uniform number.
                let rho = r * rng.random::<f64>().sqrt();
                let phi = std::f64::consts::TAU * rng.random::<f64>();
                let along = margin + h * rng.random::<f64>();
                Some(v(*base) + a * along + (e1 * phi.cos() + e2 * phi.sin()) * rho)
            }
            Region::Surface { .. } => {
                let (s, depth) = self.surface();
                s.sample(depth, margin, rng)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn samples_keep_their_margin_and_fill_the_region_evenly() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
        let cyl = Region::Cylinder {
            base: [1.0, 2.0, 3.0],
            axis: [1.0, 1.0, 0.0],
            radius: 0.5,
            height: 2.0,
        };
        let boxed = Region::Box {
            min: [0.0, 0.0, 0.0],
            max: [1.0, 2.0, 3.0],
        };
        for region in [cyl, boxed] {
            region.check().unwrap();
            let (lo, hi) = region.bounds();
            let n = 20_000;
            let mut inner = 0;
            for _ in 0..n {
                let x = region.sample(0.1, &mut rng).unwrap();
                assert!(region.depth(&x) >= 0.1 - 1e-12, "{x}");
                assert!((0..3).all(|i| x[i] >= lo[i] && x[i] <= hi[i]));
                // The fraction in the inner half (margin 0.1 + a quarter of the room
                // left) is its share of the volume: checks uniformity, not only bounds.
                inner += (region.depth(&x) > 0.2) as usize;
            }
            let expect = match &region {
                Region::Box { .. } => (0.6 * 1.6 * 2.6) / (0.8 * 1.8 * 2.8),
                Region::Cylinder { .. } => (0.3f64 * 0.3 * 1.6) / (0.4 * 0.4 * 1.8),
                Region::Surface { .. } => unreachable!(),
            };
            let got = inner as f64 / n as f64;
            let sigma = (expect * (1.0 - expect) / n as f64).sqrt();
            assert!((got - expect).abs() < 5.0 * sigma, "{got} vs {expect}");
        }
        let tiny = Region::Box {
            min: [0.0; 3],
            max: [0.1; 3],
        };
        assert!(tiny.sample(0.06, &mut rng).is_none());
        assert!(Region::Box {
            min: [0.0; 3],
            max: [0.0, 1.0, 1.0]
        }
        .check()
        .is_err());
    }
}
