//! The bond laws plugins offer (dem-api 0.5.5), and the scene's `bonds` resolved to
//! [`Bonds`]: each rule's law built from its parameters, and the pairs of spheres it
//! bonds at t = 0 (those within its distance, or those its file lists). A pair two rules
//! would bond takes the first rule's law.

use crate::engines::bond::{Bond, BondLawEntry, BondSet, Bonds, Reform};
use crate::model::particles::{Particles, Shape};
use crate::scene::{BondRule, Scene};
use crate::setup::plugins::{build_named, find_named, Plugin, PluginSet};
use crate::support::cell_bins::CellBins;
use crate::support::error::DemError;
use dem_api::{BondBox, BondInfo};
use nalgebra::Vector3;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

impl PluginSet {
    /// Every (plugin, bond law) loaded.
    pub fn bond_laws(&self) -> impl Iterator<Item = (&Plugin, &BondInfo)> {
        self.plugins
            .iter()
            .flat_map(|p| p.bonds.iter().map(move |b| (p, b)))
    }

    /// The plugin offering bond law `name` (the first loaded) and its entry.
    fn bond_law(&self, name: &str) -> Result<(&Plugin, &BondInfo), String> {
        find_named(self.bond_laws(), |b| b.name.as_str(), name, "bond law")
    }

    /// Builds bond law `name` from RON parameter text.
    fn new_bond(&self, name: &str, params: &str) -> Result<(String, BondBox), String> {
        let (plugin, _) = self.bond_law(name)?;
        build_named(plugin, plugin.new_bond_fn(), name, params, "bond law")
    }
}

fn sphere_radius(p: &Particles, i: usize) -> Option<f64> {
    match &p.shape[i] {
        Shape::Sphere(s) => Some(s.radius),
        _ => None,
    }
}

/// The scene's bond laws and the bonds they make at t = 0 between the spheres of
/// `particles` (whose indices are their scene ids). `materials` maps the scene's material
/// names to indices; `clump_of` gives each particle's clump (`u32::MAX` for none).
pub fn build(
    scene: &Scene,
    plugins: &PluginSet,
    materials: &BTreeMap<String, u32>,
    particles: &Particles,
    clump_of: &[u32],
) -> Result<Bonds, DemError> {
    let mut out = Bonds::default();
    let mut bonded: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    for (k, spec) in scene.bonds.iter().enumerate() {
        let at = |msg: String| scene.error(format!("bonds[{k}]: {msg}"));
        let (_, info) = plugins.bond_law(&spec.bond).map_err(at)?;
        let slots: Vec<String> = info.state.iter().map(|s| s.to_string()).collect();
        let params = spec.params.as_ref().map_or("", |r| r.get_ron());
        let (plugin, functor) = plugins.new_bond(&spec.bond, params).map_err(|e| {
            match spec.params.as_ref().and_then(|r| scene.locate(r.get_ron())) {
                Some((line, col)) => DemError::Scene(format!(
                    "{}:{line}:{col}: params of bonds[{k}]: {e}",
                    scene.origin.display()
                )),
                None => at(e),
            }
        })?;
        let ids = |name: &str| {
            crate::setup::dispatch::material_ids(materials, name)
                .map(|v| v.into_iter().collect::<BTreeSet<u32>>())
                .ok_or_else(|| at(format!("materials: unknown material `{name}`")))
        };
        let (ma, mb) = (ids(&spec.materials.0)?, ids(&spec.materials.1)?);
        let matches = |i: usize, j: usize| {
            let (a, b) = (particles.material[i], particles.material[j]);
            (ma.contains(&a) && mb.contains(&b)) || (ma.contains(&b) && mb.contains(&a))
        };
        let reform = match (&spec.between, spec.reform) {
            (_, 0) => None,
            (BondRule::Within(d), every) => Some(Reform {
                every,
                within: *d,
                materials: (ma.iter().copied().collect(), mb.iter().copied().collect()),
            }),
            (BondRule::File(_), _) => return Err(at(
                "reform: bonds are made anew by a Within rule (a File lists the pairs of t = 0)"
                    .into(),
            )),
        };
        let pairs = match &spec.between {
            BondRule::Within(d) => {
                if !(d.is_finite() && *d >= 0.0) {
                    return Err(at(format!(
                        "between: Within({d}) must be finite and >= 0, m"
                    )));
                }
                within(particles, clump_of, *d, &matches)
            }
            BondRule::File(name) => {
                let base = scene.origin.parent().unwrap_or(Path::new("."));
                listed(&base.join(name), particles, clump_of, &matches).map_err(at)?
            }
        };
        let law = out.laws.len() as u32;
        for pair in pairs {
            bonded.entry(pair).or_insert(law);
        }
        out.laws.push(BondLawEntry {
            name: spec.bond.clone(),
            plugin,
            materials: spec.materials.clone(),
            slots,
            reform,
            functor,
        });
    }
    let list: Vec<Bond> = bonded
        .into_iter()
        .map(|((a, b), law)| Bond {
            ids: [a as u64, b as u64],
            law,
            l6: None,
            state: vec![0.0; out.laws[law as usize].slots.len()],
            force: Vector3::zeros(),
            elastic: 0.0,
        })
        .collect();
    out.set = BondSet {
        made: list.len() as u64,
        list,
        broken: 0,
        removed: 0,
    };
    Ok(out)
}

/// Can particle `i` be bonded: a sphere, not a clump's member?
fn bondable(p: &Particles, clump_of: &[u32], i: usize) -> bool {
    sphere_radius(p, i).is_some() && clump_of.get(i).is_none_or(|&c| c == u32::MAX)
}

/// The pairs (scene ids, the smaller first) that `rule` bonds now among `particles`
/// (storage indices mapped to scene ids by `id`), `clump_of` by storage index.
pub fn reformed(
    rule: &Reform,
    particles: &Particles,
    clump_of: &[u32],
    id: impl Fn(usize) -> u64,
) -> Vec<[u64; 2]> {
    let (ma, mb) = &rule.materials;
    let matches = |i: usize, j: usize| {
        let (a, b) = (particles.material[i], particles.material[j]);
        (ma.contains(&a) && mb.contains(&b)) || (ma.contains(&b) && mb.contains(&a))
    };
    within(particles, clump_of, rule.within, &matches)
        .into_iter()
        .map(|(i, j)| {
            let (a, b) = (id(i), id(j));
            [a.min(b), a.max(b)]
        })
        .collect()
}

/// Every pair `(i, j)`, `i < j`, of bondable spheres that `matches` whose surfaces are at
/// most `d` apart, sorted.
fn within(
    p: &Particles,
    clump_of: &[u32],
    d: f64,
    matches: &dyn Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    let ids: Vec<usize> = (0..p.len()).filter(|&i| bondable(p, clump_of, i)).collect();
    let rmax = ids
        .iter()
        .filter_map(|&i| sphere_radius(p, i))
        .fold(0.0, f64::max);
    if ids.is_empty() {
        return Vec::new();
    }
    let mut bins = CellBins::default();
    bins.build(&ids, &p.pos, 2.0 * rmax + d);
    let mut pairs = Vec::new();
    let mut buckets = Vec::new();
    for &i in &ids {
        let ri = sphere_radius(p, i).unwrap_or(0.0);
        bins.buckets_around(&p.pos[i], &mut buckets);
        for &b in &buckets {
            for &j in bins.bucket(b) {
                let j = j as usize;
                if j <= i || !matches(i, j) {
                    continue;
                }
                let rj = sphere_radius(p, j).unwrap_or(0.0);
                if (p.pos[j] - p.pos[i]).norm() - ri - rj <= d {
                    pairs.push((i, j));
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// The pairs a CSV file lists (header `a,b`, one row per bond of two scene ids), each
/// checked: two distinct bondable spheres of the rule's materials, listed once.
fn listed(
    path: &Path,
    p: &Particles,
    clump_of: &[u32],
    matches: &dyn Fn(usize, usize) -> bool,
) -> Result<Vec<(usize, usize)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("between: cannot read {}: {e}", path.display()))?;
    let mut lines = text.lines().enumerate();
    let header = lines.next().map(|(_, l)| l.trim());
    if header.map(|h| h.replace(' ', "")) != Some("a,b".into()) {
        return Err(format!(
            "{}:1: the header must be `a,b` (two scene ids per row), got {:?}",
            path.display(),
            header.unwrap_or("")
        ));
    }
    let mut pairs = BTreeSet::new();
    for (k, line) in lines {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let at = |msg: String| format!("{}:{}: {msg}", path.display(), k + 1);
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let [a, b] = cells[..] else {
            return Err(at(format!("two scene ids `a,b`, got `{line}`")));
        };
        let id = |s: &str, col: &str| -> Result<usize, String> {
            let i: usize = s
                .parse()
                .map_err(|_| at(format!("{col}: `{s}` is not a scene id (an integer >= 0)")))?;
            if i >= p.len() {
                return Err(at(format!(
                    "{col}: no particle {i} (the scene has {})",
                    p.len()
                )));
            }
            if !bondable(p, clump_of, i) {
                return Err(at(format!(
                    "{col}: particle {i} is not a sphere of its own (bonds join spheres that \
                     are not clump members)"
                )));
            }
            Ok(i)
        };
        let (a, b) = (id(a, "a")?, id(b, "b")?);
        if a == b {
            return Err(at(format!("a and b are the same particle, {a}")));
        }
        if !matches(a, b) {
            return Err(at(format!(
                "particles {a} and {b} are not of the rule's materials"
            )));
        }
        if !pairs.insert((a.min(b), a.max(b))) {
            return Err(at(format!("the pair {a}, {b} is listed twice")));
        }
    }
    Ok(pairs.into_iter().collect())
}
