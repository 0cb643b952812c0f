//! The scans: sweeps along axis 0 of sets sorted along axis 0 by (`lo[0]`, position).
//! Used alone (one set, or two sets) and as the base case of the streamed segment tree,
//! whose subsets stay sorted.

use super::item::{Item, Out};

/// One set: each pair of boxes overlapping on all axes, once. The box that comes first along
/// axis 0 tests the boxes starting before it ends.
pub(super) fn sweep_complete(items: &[Item], out: &mut Out) {
    debug_assert!(sorted(items));
    for (n, a) in items.iter().enumerate() {
        for b in &items[n + 1..] {
            if b.lo[0] > a.hi[0] {
                break;
            }
            if a.overlaps(b, 1) && a.overlaps(b, 2) {
                out.report(b, a, true);
            }
        }
    }
}

/// Every pair (p, i) with `i.holds(p, 0)` (p starts inside i along axis 0) that overlaps on
/// axes `1..=last_dim`.
pub(super) fn one_way(
    points: &[Item],
    intervals: &[Item],
    last_dim: usize,
    in_order: bool,
    out: &mut Out,
) {
    debug_assert!(sorted(points) && sorted(intervals));
    let mut first = 0;
    for i in intervals.iter() {
        // Points not after i can never be held by i nor by any later interval.
        while first < points.len() && !i.before(&points[first], 0) {
            first += 1;
        }
        for p in &points[first..] {
            if p.lo[0] > i.hi[0] {
                break;
            }
            if (1..=last_dim).all(|d| p.overlaps(i, d)) {
                out.report(p, i, in_order);
            }
        }
    }
}

/// Every pair (p, i) with `i.holds(p, dim)` that overlaps on axes `0..dim` (`dim` 1 or 2):
/// the leaf of the segment tree on axis `dim`. Sweeps axis 0 both ways: whichever of p and i
/// starts first along axis 0 tests the other set's boxes starting before it ends.
pub(super) fn two_way(
    points: &[Item],
    intervals: &[Item],
    dim: usize,
    in_order: bool,
    out: &mut Out,
) {
    match dim {
        1 => two_way_on::<1>(points, intervals, in_order, out),
        2 => two_way_on::<2>(points, intervals, in_order, out),
        _ => unreachable!("three axes"),
    }
}

/// [`two_way`] with the axis fixed at compile time: the tests per candidate are straight code.
fn two_way_on<const DIM: usize>(
    points: &[Item],
    intervals: &[Item],
    in_order: bool,
    out: &mut Out,
) {
    let dim = DIM;
    debug_assert!(sorted(points) && sorted(intervals));
    let (mut pn, mut iv) = (0, 0);
    while pn < points.len() && iv < intervals.len() {
        if intervals[iv].before(&points[pn], 0) {
            let i = &intervals[iv];
            for p in &points[pn..] {
                if p.lo[0] > i.hi[0] {
                    break;
                }
                if (1..dim).all(|d| p.overlaps(i, d)) && i.holds(p, dim) {
                    out.report(p, i, in_order);
                }
            }
            iv += 1;
        } else {
            let p = &points[pn];
            for i in &intervals[iv..] {
                if i.lo[0] > p.hi[0] {
                    break;
                }
                if (1..dim).all(|d| p.overlaps(i, d)) && i.holds(p, dim) {
                    out.report(p, i, in_order);
                }
            }
            pn += 1;
        }
    }
}

/// Sorted along axis 0 (strictly: keys are distinct).
fn sorted(v: &[Item]) -> bool {
    v.windows(2).all(|w| w[0].before(&w[1], 0))
}
