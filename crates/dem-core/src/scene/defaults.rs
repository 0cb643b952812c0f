//! Defaults of scene fields that are not their type's default.

/// A scale factor of 1.
pub(super) fn one() -> f64 {
    1.0
}

/// Equal relative semi-axes.
pub(super) fn unit_axes() -> [f64; 3] {
    [1.0; 3]
}

/// Points per rock.
pub(super) fn twenty() -> u32 {
    20
}
