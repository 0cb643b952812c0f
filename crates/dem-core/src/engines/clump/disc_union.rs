//! Area moments of a union of discs in a plane, exact up to round-off: Green's theorem
//! turns each moment into an integral along the boundary of the union, which is made of
//! the arcs of the circles that no other disc covers, each run counter-clockwise about
//! its own centre (holes of the union then come out clockwise, as they must).

use super::quadrature::gauss_legendre;
use std::f64::consts::{PI, TAU};
use std::sync::OnceLock;

/// A disc: centre (x, y) and radius, m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disc {
    /// Centre, m.
    pub x: f64,
    /// Centre, m.
    pub y: f64,
    /// Radius, m.
    pub r: f64,
}

/// Area moments of a plane region: `area` = ∫dA, `x` = ∫x dA, `y` = ∫y dA, `xx` =
/// ∫x² dA, `yy` = ∫y² dA, `xy` = ∫xy dA (m^2 to m^4).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AreaMoments {
    /// ∫ dA, m^2.
    pub area: f64,
    /// ∫ x dA, m^3.
    pub x: f64,
    /// ∫ y dA, m^3.
    pub y: f64,
    /// ∫ x^2 dA, m^4.
    pub xx: f64,
    /// ∫ y^2 dA, m^4.
    pub yy: f64,
    /// ∫ x y dA, m^4.
    pub xy: f64,
}

/// Longest piece of arc one quadrature rule covers, rad. The integrands are
/// trigonometric polynomials of degree at most 4 in the angle; on a quarter of pi the
/// 12-point rule is exact to round-off (the Taylor remainder of cos 4t on the piece,
/// (pi/2)^24 / 24!, is below 1e-19).
const PIECE: f64 = PI / 4.0;

fn rule() -> &'static [(f64, f64)] {
    static RULE: OnceLock<Vec<(f64, f64)>> = OnceLock::new();
    RULE.get_or_init(|| gauss_legendre(12))
}

/// The area moments of the union of `discs` (discs of zero radius are ignored).
pub fn union_moments(discs: &[Disc]) -> AreaMoments {
    let mut m = AreaMoments::default();
    let mut covered: Vec<(f64, f64)> = Vec::new();
    'disc: for (k, a) in discs.iter().enumerate() {
        if a.r <= 0.0 {
            continue;
        }
        covered.clear();
        for (j, b) in discs.iter().enumerate() {
            if j == k || b.r <= 0.0 {
                continue;
            }
            let (dx, dy) = (b.x - a.x, b.y - a.y);
            let d = dx.hypot(dy);
            if d + a.r <= b.r {
                // Inside b (of two equal discs, the later one is the covered one).
                if !(d == 0.0 && a.r == b.r && j > k) {
                    continue 'disc;
                }
                continue;
            }
            if d >= a.r + b.r || d + b.r <= a.r {
                continue;
            }
            let c = ((a.r * a.r + d * d - b.r * b.r) / (2.0 * a.r * d)).clamp(-1.0, 1.0);
            let half = c.acos();
            let start = (dy.atan2(dx) - half).rem_euclid(TAU);
            let end = start + 2.0 * half;
            if end > TAU {
                covered.push((start, TAU));
                covered.push((0.0, end - TAU));
            } else {
                covered.push((start, end));
            }
        }
        covered.sort_by(|p, q| p.0.total_cmp(&q.0).then(p.1.total_cmp(&q.1)));
        // The exposed arcs are the gaps between the merged covered intervals.
        let mut from = 0.0;
        for &(s, e) in &covered {
            if s > from {
                arc(a, from, s, &mut m);
            }
            from = f64::max(from, e);
        }
        if from < TAU {
            arc(a, from, TAU, &mut m);
        }
    }
    m
}

/// Adds the boundary integrals of the arc of `d` from angle `t0` to `t1` (t1 > t0).
fn arc(d: &Disc, t0: f64, t1: f64, m: &mut AreaMoments) {
    let pieces = ((t1 - t0) / PIECE).ceil().max(1.0) as usize;
    let h = (t1 - t0) / pieces as f64;
    for p in 0..pieces {
        let mid = t0 + (p as f64 + 0.5) * h;
        for &(u, w) in rule() {
            let t = mid + 0.5 * h * u;
            let (s, c) = t.sin_cos();
            let (x, y) = (d.x + d.r * c, d.y + d.r * s);
            // dx = -r sin t dt, dy = r cos t dt.
            let (dx, dy) = (-d.r * s * (0.5 * h * w), d.r * c * (0.5 * h * w));
            m.area += 0.5 * (x * dy - y * dx);
            m.x += 0.5 * x * x * dy;
            m.y -= 0.5 * y * y * dx;
            m.xx += x * x * x * dy / 3.0;
            m.yy -= y * y * y * dx / 3.0;
            m.xy += 0.5 * x * x * y * dy;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    #[test]
    fn one_disc_has_the_textbook_moments() {
        let d = Disc {
            x: 0.3,
            y: -1.2,
            r: 0.7,
        };
        let m = union_moments(&[d]);
        let area = PI * 0.49;
        let polar = area * 0.49 / 4.0;
        assert!(close(m.area, area, 1e-14));
        assert!(close(m.x, area * 0.3, 1e-14));
        assert!(close(m.y, -area * 1.2, 1e-14));
        assert!(close(m.xx, polar + area * 0.09, 1e-14));
        assert!(close(m.yy, polar + area * 1.44, 1e-14));
        assert!(close(m.xy, -area * 0.36, 1e-14));
    }

    #[test]
    fn two_overlapping_discs_count_the_lens_once() {
        // Lens of two unit discs at distance d: 2 acos(d/2) - (d/2) sqrt(4 - d^2).
        let d = 1.1;
        let lens = 2.0 * (d / 2.0_f64).acos() - 0.5 * d * (4.0 - d * d).sqrt();
        let discs = [
            Disc {
                x: 0.0,
                y: 0.0,
                r: 1.0,
            },
            Disc {
                x: d,
                y: 0.0,
                r: 1.0,
            },
            // Inside the first, and a copy of the second: both change nothing.
            Disc {
                x: 0.2,
                y: 0.1,
                r: 0.5,
            },
            Disc {
                x: d,
                y: 0.0,
                r: 1.0,
            },
        ];
        let m = union_moments(&discs);
        assert!(close(m.area, 2.0 * PI - lens, 1e-14), "{}", m.area);
        // Symmetric about x = d/2 and y = 0.
        assert!(close(m.x, m.area * d / 2.0, 1e-14));
        assert!(m.y.abs() < 1e-14 && m.xy.abs() < 1e-14 * m.xx);
    }

    #[test]
    fn a_ring_of_discs_leaves_its_hole_out() {
        // Six unit discs on a circle of radius 1.9: neighbours (1.9 apart) overlap, the
        // others do not, and the centre is a hole. The area is the sum less one lens per
        // neighbour pair (the hole's boundary arcs must not add area), and the moments
        // about the centre are six-fold symmetric.
        let discs: Vec<Disc> = (0..6)
            .map(|k| {
                let t = k as f64 * TAU / 6.0;
                Disc {
                    x: 1.9 * t.cos(),
                    y: 1.9 * t.sin(),
                    r: 1.0,
                }
            })
            .collect();
        let m = union_moments(&discs);
        let d = 1.9;
        let lens = 2.0 * (d / 2.0_f64).acos() - 0.5 * d * (4.0 - d * d).sqrt();
        assert!(close(m.area, 6.0 * (PI - lens), 1e-13), "{}", m.area);
        assert!(m.x.abs() < 1e-13 && m.y.abs() < 1e-13 && m.xy.abs() < 1e-13);
        assert!(close(m.xx, m.yy, 1e-13));
    }
}
