//! The broad phase's index of mesh facets that do not move: each such facet is listed in
//! every cell of the broad-phase grid that its box, grown by the reach of any particle,
//! covers. It is built once and reused while the same facets stay still and the cell size
//! is unchanged, so a rebuild of the Verlet list costs one look-up per particle for the
//! fixed meshes (a hopper) instead of a scan of every facet's cells.

use crate::model::particles::{Facet, Particles};
use crate::support::cell_bins::{cell_count, cell_of};
use nalgebra::Vector3;
use std::collections::HashMap;

/// The range of cells covered by facet `i` grown by `grow`, m.
pub fn cell_range(f: &Facet, p: &Particles, i: usize, grow: f64, cell: f64) -> [[i64; 3]; 2] {
    let v = f.vertices(&p.pos[i], &p.ori[i]);
    let lo = v.iter().fold(v[0], |m, x| m.inf(x)).add_scalar(-grow);
    let hi = v.iter().fold(v[0], |m, x| m.sup(x)).add_scalar(grow);
    [cell_of(&lo, cell), cell_of(&hi, cell)]
}

/// Facets by cell, for a set of facets that stand still. A facet whose box covers more
/// cells than `max_cells` (a thick or a huge facet) is not listed by cell but in
/// [`FacetGrid::wide`]: the broad phase tests it against the particles directly, so the
/// grid's memory stays bounded whatever the facets' size.
#[derive(Clone, Debug, Default)]
pub struct FacetGrid {
    cell: f64,
    grow: f64,
    max_cells: usize,
    members: Vec<usize>,
    map: HashMap<[i64; 3], Vec<u32>>,
    wide: Vec<usize>,
}

/// A cache: any two are equal (it never changes which pairs a rebuild finds).
impl PartialEq for FacetGrid {
    fn eq(&self, _: &FacetGrid) -> bool {
        true
    }
}

impl FacetGrid {
    /// Makes the grid index exactly `members` (facet particle ids) for cells of size
    /// `cell` and reach `grow`, listing a facet by cell only if it covers at most
    /// `max_cells`; rebuilt only when one of them differs from the last call.
    pub fn update(
        &mut self,
        p: &Particles,
        members: Vec<usize>,
        cell: f64,
        grow: f64,
        max_cells: usize,
    ) {
        if members == self.members
            && cell == self.cell
            && grow == self.grow
            && max_cells == self.max_cells
        {
            return;
        }
        let mut map: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
        let mut wide = Vec::new();
        for &i in &members {
            let crate::model::particles::Shape::Facet(f) = &p.shape[i] else {
                continue;
            };
            let [lo, hi] = cell_range(f, p, i, grow + f.shape.halfthick, cell);
            if cell_count(lo, hi) > max_cells as f64 {
                wide.push(i);
                continue;
            }
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        map.entry([x, y, z]).or_default().push(i as u32);
                    }
                }
            }
        }
        *self = FacetGrid {
            cell,
            grow,
            max_cells,
            members,
            map,
            wide,
        };
    }

    /// The facets too large to list by cell, ascending.
    pub fn wide(&self) -> &[usize] {
        &self.wide
    }

    /// Facets listed in the cell of point `x`.
    pub fn near(&self, x: &Vector3<f64>) -> &[u32] {
        if self.map.is_empty() {
            return &[];
        }
        self.map
            .get(&cell_of(x, self.cell))
            .map_or(&[], |v| v.as_slice())
    }
}
