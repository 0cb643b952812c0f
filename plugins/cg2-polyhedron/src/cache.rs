//! The pair cache of the polyhedron-polyhedron functor (temporal coherence): the unit
//! direction, world frame, along which GJK last found the pair apart. Bodies move little
//! per step, so while a pair stays apart their shadows on that direction mostly stay
//! apart too, and the pair is rejected by two vertex scans instead of GJK. The test is
//! exact (the shadow gap on any unit direction is a lower bound of the distance, taken
//! with the margin of the centre-line test), so the cache changes no result, only the
//! time: a zero or stale direction merely falls through to the full computation.

use dem_api::nalgebra::Vector3;

/// Slots per pair: the direction's x, y, z (dimensionless; all zero: none).
pub const LEN: usize = 3;

/// The cached direction, if any (a unit vector).
pub fn direction(cache: &[f64]) -> Option<Vector3<f64>> {
    let n = Vector3::new(cache[0], cache[1], cache[2]);
    (n != Vector3::zeros() && n.iter().all(|x| x.is_finite())).then_some(n)
}

/// Keeps `apart` (a direction from body 1 to body 2, any length) as the pair's cached
/// direction, normalised; `None` clears it.
pub fn store(cache: &mut [f64], apart: Option<Vector3<f64>>) {
    let n = apart
        .map(|n| n / n.norm())
        .filter(|n| n.iter().all(|x| x.is_finite()))
        .unwrap_or_else(Vector3::zeros);
    cache[..LEN].copy_from_slice(n.as_slice());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_direction_comes_back_unit_and_none_clears_it() {
        let mut c = [0.0; LEN];
        assert!(direction(&c).is_none());
        store(&mut c, Some(Vector3::new(0.0, 3.0, 4.0)));
        let n = direction(&c).unwrap();
        assert!((n - Vector3::new(0.0, 0.6, 0.8)).norm() < 1e-15);
        store(&mut c, Some(Vector3::zeros()));
        assert!(direction(&c).is_none());
        store(&mut c, Some(Vector3::x()));
        store(&mut c, None);
        assert_eq!(c, [0.0; LEN]);
    }
}
