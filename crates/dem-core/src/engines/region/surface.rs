//! A region given by a triangulated surface (an `.stl` or `.obj` file): the points in
//! front of the surface, within `depth` of it along the normals, over its triangles.
//!
//! A point belongs to the region when, for one triangle, its projection along the
//! triangle's unit normal `n` (from the right-hand rule of the vertex order, as the file
//! gives it) falls inside the triangle and its height `h = (x - a) . n` above the
//! triangle's plane is in `[0, depth]`. Its depth in the region is `min(h, depth - h)`, the
//! larger over the triangles that hold it: the distance to the two sheets, not to the rim
//! of the surface (a particle inserted over a triangle near the rim may reach past it).
//! Samples are uniform over the union of the triangles' prisms when they do not overlap
//! (flat or gently curved surfaces): a triangle drawn by area, a point on it, a height.

use nalgebra::Vector3;
use rand::Rng;

/// One triangle with what sampling and tests need.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    a: Vector3<f64>,
    e1: Vector3<f64>,
    e2: Vector3<f64>,
    /// Unit normal.
    n: Vector3<f64>,
    /// Area, m^2.
    area: f64,
}

/// The triangles of a surface region, ready for tests and sampling.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Surface {
    faces: Vec<Face>,
    /// Running sum of the areas (for drawing a triangle by area), m^2.
    cumulative: Vec<f64>,
}

impl Surface {
    /// The surface of `triangles` (m), or why not (a triangle without area).
    pub fn new(triangles: &[[Vector3<f64>; 3]]) -> Result<Surface, String> {
        let mut faces = Vec::with_capacity(triangles.len());
        let mut cumulative = Vec::with_capacity(triangles.len());
        let mut total = 0.0;
        for (i, [a, b, c]) in triangles.iter().enumerate() {
            let (e1, e2) = (b - a, c - a);
            let cross = e1.cross(&e2);
            let area = 0.5 * cross.norm();
            if !(area > 0.0 && area.is_finite()) {
                return Err(format!("triangle {i} (0-based) has no area"));
            }
            faces.push(Face {
                a: *a,
                e1,
                e2,
                n: cross / (2.0 * area),
                area,
            });
            total += area;
            cumulative.push(total);
        }
        if faces.is_empty() {
            return Err("the surface has no triangles".into());
        }
        Ok(Surface { faces, cumulative })
    }

    /// Area, m^2.
    pub fn area(&self) -> f64 {
        self.cumulative.last().copied().unwrap_or(0.0)
    }

    /// How far inside the region of thickness `depth` (m) the point `x` is: the distance to
    /// the nearer sheet, over the triangle that holds it deepest; negative outside.
    pub fn depth(&self, x: &Vector3<f64>, depth: f64) -> f64 {
        let mut best = f64::NEG_INFINITY;
        for f in &self.faces {
            let d = x - f.a;
            let h = d.dot(&f.n);
            // Barycentric coordinates of the projection.
            let (d11, d12, d22) = (f.e1.dot(&f.e1), f.e1.dot(&f.e2), f.e2.dot(&f.e2));
            let (p1, p2) = (d.dot(&f.e1), d.dot(&f.e2));
            let det = d11 * d22 - d12 * d12;
            let u = (d22 * p1 - d12 * p2) / det;
            let v = (d11 * p2 - d12 * p1) / det;
            if u >= 0.0 && v >= 0.0 && u + v <= 1.0 {
                best = best.max(h.min(depth - h));
            }
        }
        best
    }

    /// The corners of a box holding the region of thickness `depth`, m.
    pub fn bounds(&self, depth: f64) -> (Vector3<f64>, Vector3<f64>) {
        let mut lo = Vector3::repeat(f64::INFINITY);
        let mut hi = Vector3::repeat(f64::NEG_INFINITY);
        for f in &self.faces {
            for p in [f.a, f.a + f.e1, f.a + f.e2] {
                for q in [p, p + f.n * depth] {
                    lo = lo.inf(&q);
                    hi = hi.sup(&q);
                }
            }
        }
        (lo, hi)
    }

    /// A point at a height in `[margin, depth - margin]` over a point drawn uniformly on
    /// the surface, or `None` when `depth < 2 margin`.
    pub fn sample(&self, depth: f64, margin: f64, rng: &mut impl Rng) -> Option<Vector3<f64>> {
        if depth < 2.0 * margin {
            return None;
        }
        let pick = rng.random::<f64>() * self.area();
        let k = self
            .cumulative
            .partition_point(|&c| c <= pick)
            .min(self.faces.len() - 1);
        let f = &self.faces[k];
        let (mut u, mut v): (f64, f64) = (rng.random(), rng.random());
        if u + v > 1.0 {
            (u, v) = (1.0 - u, 1.0 - v);
        }
        let h = margin + (depth - 2.0 * margin) * rng.random::<f64>();
        Some(f.a + f.e1 * u + f.e2 * v + f.n * h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_layer_is_in_front_of_the_triangles_and_samples_fill_it_evenly() {
        // A unit right triangle tilted about x, normal (0, -sin t, cos t).
        let t = 0.3f64;
        let (c, s) = (t.cos(), t.sin());
        let tri = [
            Vector3::zeros(),
            Vector3::new(1.0, 0.0, 0.0),
            Vector3::new(0.0, c, s),
        ];
        let surf = Surface::new(&[tri]).unwrap();
        assert!((surf.area() - 0.5).abs() < 1e-15);
        let n = Vector3::new(0.0, -s, c);
        let over = Vector3::new(0.2, 0.2 * c, 0.2 * s);
        assert!((surf.depth(&(over + n * 0.03), 0.1) - 0.03).abs() < 1e-15);
        assert!((surf.depth(&(over + n * 0.09), 0.1) - 0.01).abs() < 1e-15);
        assert!(surf.depth(&(over - n * 0.01), 0.1) < 0.0, "behind");
        assert!(
            surf.depth(&(over + n * 0.11), 0.1) < 0.0,
            "beyond the depth"
        );
        let rim = Vector3::new(0.7, 0.7 * c, 0.7 * s); // u + v > 1
        assert!(
            surf.depth(&(rim + n * 0.05), 0.1) < 0.0,
            "not over the triangle"
        );
        // Samples keep their margin, and a quarter of them lie over the corner triangle
        // of half the side (a quarter of the area): uniform, not only within bounds.
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        let m = 20_000;
        let mut inner = 0;
        for _ in 0..m {
            let x = surf.sample(0.1, 0.02, &mut rng).unwrap();
            assert!(surf.depth(&x, 0.1) >= 0.02 - 1e-12, "{x}");
            let h = x.dot(&n);
            let p = x - n * h;
            inner += (p.x + p.dot(&Vector3::new(0.0, c, s)) < 0.5) as usize;
        }
        let got = inner as f64 / m as f64;
        let sigma = (0.25 * 0.75 / m as f64).sqrt();
        assert!((got - 0.25).abs() < 5.0 * sigma, "{got}");
        assert!(surf.sample(0.1, 0.06, &mut rng).is_none());
    }
}
