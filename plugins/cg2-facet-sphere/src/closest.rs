//! The point of a triangle closest to a given point, with the feature it lies on.

use dem_api::nalgebra::Vector3;

/// Where on the triangle the closest point lies. Edge `k` runs from vertex `k` to vertex
/// `(k + 1) % 3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Inside the triangle.
    Face,
    /// On the interior of edge `k`.
    Edge(usize),
    /// On vertex `k`.
    Vertex(usize),
}

/// Closest point of triangle `v` to `p`, and its feature. Regions are tested on the signs
/// of the projections of `p` on the edge directions (Voronoi regions of the vertices, then
/// of the edges); boundaries go to the lower-dimensional feature, so a point exactly above
/// an edge or vertex is classified the same way by every facet sharing it.
pub fn closest_point(p: &Vector3<f64>, v: &[Vector3<f64>; 3]) -> (Vector3<f64>, Feature) {
    let [a, b, c] = v;
    let (ab, ac) = (b - a, c - a);
    let ap = p - a;
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (*a, Feature::Vertex(0));
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (*b, Feature::Vertex(1));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (*c, Feature::Vertex(2));
    }
    // Signed areas (times |n|^2) of the sub-triangles opposite each vertex.
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Edge(0));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * t, Feature::Edge(1));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Edge(2));
    }
    let sum = va + vb + vc;
    (a + ab * (vb / sum) + ac * (vc / sum), Feature::Face)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_region() {
        let v = [
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1.0, 0.0, 0.0),
            Vector3::new(0.0, 1.0, 0.0),
        ];
        let f = |x: f64, y: f64| closest_point(&Vector3::new(x, y, 0.7), &v);
        let (q, face) = f(0.2, 0.2);
        assert!(face == Feature::Face && (q - Vector3::new(0.2, 0.2, 0.0)).norm() < 1e-15);
        assert_eq!(f(-1.0, -1.0).1, Feature::Vertex(0));
        assert_eq!(f(2.0, -0.5).1, Feature::Vertex(1));
        assert_eq!(f(-0.5, 2.0).1, Feature::Vertex(2));
        assert_eq!(
            f(0.5, -1.0),
            (Vector3::new(0.5, 0.0, 0.0), Feature::Edge(0))
        );
        assert_eq!(f(1.0, 1.0), (Vector3::new(0.5, 0.5, 0.0), Feature::Edge(1)));
        assert_eq!(
            f(-1.0, 0.25),
            (Vector3::new(0.0, 0.25, 0.0), Feature::Edge(2))
        );
    }
}
