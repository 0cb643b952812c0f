//! Contact sparsification (reference 000, Solfec's `dom.c`): drop newly detected
//! contacts that are too small or redundant next to a neighbouring contact.
//!
//! For each new contact `cᵢ`, in ascending id order: delete it if its area is below
//! `minarea`; otherwise, for each surviving contact `cⱼ` sharing a body with it,
//! delete `cᵢ` if `area(cᵢ) < threshold · area(cⱼ)` and the two are topologically
//! adjacent (a predicate supplied by the caller, e.g. elements sharing a face), or
//! else if their points are closer than `mindist` (Euclidean, as the reference
//! states; Solfec's code uses a max-norm below `2 mindist`). Processing in id order
//! makes the result deterministic: of two close new contacts the lower id is
//! examined first and goes, the other then survives.

use nalgebra::Point3;
use std::collections::HashMap;

/// Sparsification parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SparsifyParams {
    /// Relative area threshold (dimensionless).
    pub threshold: f64,
    /// Minimum contact area (length²).
    pub minarea: f64,
    /// Minimum distance between contact points (length).
    pub mindist: f64,
}

/// One contact as seen by the sparsifier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SparsifyCandidate {
    /// Unique, stable contact id (the processing order of new contacts).
    pub id: u64,
    /// The two bodies in contact.
    pub bodies: (usize, usize),
    /// Contact point (length).
    pub point: Point3<f64>,
    /// Contact area (length²).
    pub area: f64,
    /// Whether the contact was detected in this step (only new ones can be deleted).
    pub is_new: bool,
}

/// Which candidates survive (`true` = keep), in input order. `adjacent(i, j)` says
/// whether candidates `i` and `j` (input indices) are topologically adjacent.
pub fn sparsify(
    candidates: &[SparsifyCandidate],
    params: &SparsifyParams,
    adjacent: impl Fn(usize, usize) -> bool,
) -> Vec<bool> {
    let mut keep = vec![true; candidates.len()];
    let mut by_body: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, c) in candidates.iter().enumerate() {
        by_body.entry(c.bodies.0).or_default().push(i);
        if c.bodies.1 != c.bodies.0 {
            by_body.entry(c.bodies.1).or_default().push(i);
        }
    }
    let mut order: Vec<usize> = (0..candidates.len())
        .filter(|&i| candidates[i].is_new)
        .collect();
    order.sort_by_key(|&i| candidates[i].id);
    for i in order {
        let ci = &candidates[i];
        if ci.area < params.minarea {
            keep[i] = false;
            continue;
        }
        let neighbours = [ci.bodies.0, ci.bodies.1]
            .into_iter()
            .flat_map(|b| by_body.get(&b).into_iter().flatten().copied());
        for j in neighbours {
            if j == i || !keep[j] {
                continue;
            }
            let cj = &candidates[j];
            let dominated = ci.area < params.threshold * cj.area && adjacent(i, j);
            let crowded = (ci.point - cj.point).norm() < params.mindist;
            if dominated || crowded {
                keep[i] = false;
                break;
            }
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: u64, bodies: (usize, usize), x: f64, area: f64, is_new: bool) -> SparsifyCandidate {
        SparsifyCandidate {
            id,
            bodies,
            point: Point3::new(x, 0.0, 0.0),
            area,
            is_new,
        }
    }

    const P: SparsifyParams = SparsifyParams {
        threshold: 0.01,
        minarea: 1e-6,
        mindist: 1e-3,
    };

    #[test]
    fn small_area_goes() {
        let c = [
            cand(1, (0, 1), 0.0, 1e-7, true),
            cand(2, (0, 2), 1.0, 1e-7, false),
        ];
        assert_eq!(
            sparsify(&c, &P, |_, _| false),
            vec![false, true],
            "only new contacts are deleted"
        );
    }

    #[test]
    fn dominated_adjacent_goes_only_if_adjacent() {
        let c = [
            cand(1, (0, 1), 0.0, 1.0, false),
            cand(2, (0, 1), 0.5, 0.001, true),
        ];
        assert_eq!(sparsify(&c, &P, |_, _| true), vec![true, false]);
        assert_eq!(sparsify(&c, &P, |_, _| false), vec![true, true]);
        // No shared body: never compared.
        let c = [
            cand(1, (0, 1), 0.0, 1.0, false),
            cand(2, (2, 3), 0.0, 0.001, true),
        ];
        assert_eq!(sparsify(&c, &P, |_, _| true), vec![true, true]);
    }

    #[test]
    fn close_points_keep_one_deterministically() {
        let c = [
            cand(7, (0, 1), 0.0, 1.0, true),
            cand(3, (1, 2), 0.0005, 1.0, true),
        ];
        // id 3 is examined first and goes; id 7 then has no surviving close neighbour.
        assert_eq!(sparsify(&c, &P, |_, _| false), vec![true, false]);
        let far = [
            cand(7, (0, 1), 0.0, 1.0, true),
            cand(3, (1, 2), 0.01, 1.0, true),
        ];
        assert_eq!(sparsify(&far, &P, |_, _| false), vec![true, true]);
    }
}
