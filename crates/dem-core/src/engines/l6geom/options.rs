//! The L6Geom's options: Woo's approximation flags and the branch-vector choice (the
//! scene's `contacts.l6geom` block).

use serde::{Deserialize, Serialize};

/// Accuracy switches (Woo's approximation flags) and the branch-vector choice.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct L6Options {
    /// Use branch vectors `r_i n` instead of `c - x_i` (Yade's avoidGranularRatcheting).
    pub no_ratch: bool,
    /// Use the previous normal instead of the mid-step normal.
    pub no_mid_normal: bool,
    /// Skip renormalisation of the mid-step normal and of the frame.
    pub no_renorm: bool,
    /// Use the previous frame instead of the slerped mid-step frame.
    pub no_mid_frame: bool,
    /// Normal rate `u_dot.x` from the relative velocity of the contact point (`n_mid .
    /// v_r`, with the point and the positions at mid-step, `t - dt/2`, where the
    /// velocities are, and true branch vectors) instead of the gap difference. For
    /// functors whose gap is an energy-equivalent quantity rather than a distance
    /// (polyhedra): a normal dashpot then does, and books, the work of a force at the
    /// contact point.
    pub point_rate: bool,
}

impl Default for L6Options {
    fn default() -> Self {
        L6Options {
            no_ratch: true,
            no_mid_normal: false,
            no_renorm: false,
            no_mid_frame: false,
            point_rate: false,
        }
    }
}
