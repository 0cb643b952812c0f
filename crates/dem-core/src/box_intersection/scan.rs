//! The scans: sort along axis 0 and sweep. Used alone (one set, or two sets) and as the base
//! case of the streamed segment tree.

use super::{sort_along_0, Item, Out};

/// One set: each pair of boxes overlapping on all axes, once. The box that comes first along
/// axis 0 tests the boxes starting before it ends.
pub(super) fn sweep_complete(items: &mut [Item], out: &mut Out) {
    sort_along_0(items);
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
/// axes `1..=last_dim`. Both slices are sorted along axis 0.
pub(super) fn one_way(
    points: &mut [Item],
    intervals: &mut [Item],
    last_dim: usize,
    in_order: bool,
    out: &mut Out,
) {
    sort_along_0(points);
    sort_along_0(intervals);
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

/// Every pair (p, i) with `i.holds(p, dim)` that overlaps on axes `0..dim` (`dim >= 1`):
/// the leaf of the segment tree on axis `dim`. Sweeps axis 0 both ways: whichever of p and i
/// starts first along axis 0 tests the other set's boxes starting before it ends.
pub(super) fn two_way(
    points: &mut [Item],
    intervals: &mut [Item],
    dim: usize,
    in_order: bool,
    out: &mut Out,
) {
    debug_assert!(dim >= 1);
    sort_along_0(points);
    sort_along_0(intervals);
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
