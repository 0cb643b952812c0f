//! Loading plugins: by explicit path, and by scanning plugin directories (next to the
//! executable, then each directory of `DEM_PLUGIN_PATH`). A Rust plugin is opened with
//! `lib_header_from_path(..).init_root_module()`, never with abi_stable's per-type cache,
//! so that every path is really loaded; a library without a Rust root module is tried as a
//! C plugin ([`crate::setup::c_plugin`]). Libraries are never unloaded.

use crate::setup::c_plugin::CPlugin;
use crate::support::error::DemError;
use abi_stable::library::RawLibrary;
use abi_stable::library::{lib_header_from_path, LibraryError, RootModule};
use abi_stable::std_types::{RStr, RString, RVec};
use dem_api::{
    BondInfo, BondListFn, Cg2Box, ExchangeInfo, ExchangeListFn, FunctorInfo, FunctorRole,
    HostLogger, LawBox, LogLevel, NewBondFn, NewExchangeFn, NewShapeFn, PluginRootRef,
    ScaleShapeFn, ShapeInfo, ShapeKind, ShapeListFn, BOND_LIST_SYMBOL, EXCHANGE_LIST_SYMBOL,
    NEW_BOND_SYMBOL, NEW_EXCHANGE_SYMBOL, NEW_SHAPE_SYMBOL, SCALE_SHAPE_SYMBOL, SHAPE_LIST_SYMBOL,
};
use std::path::{Path, PathBuf};

/// One loaded plugin library.
#[derive(Clone)]
pub struct Plugin {
    /// Absolute path of the library file.
    pub path: PathBuf,
    /// The plugin's crate name.
    pub name: String,
    /// The plugin's own version.
    pub version: String,
    /// The dem-api version it was built against.
    pub api_version: String,
    /// Its functors.
    pub functors: Vec<FunctorInfo>,
    /// The shapes it offers (dem-api 0.5.2 on; see [`crate::setup::plugin_shapes`]).
    pub shapes: Vec<ShapeInfo>,
    /// The field exchanges it offers (dem-api 0.5.4 on; see
    /// [`crate::setup::plugin_exchanges`]).
    pub exchanges: Vec<ExchangeInfo>,
    /// The bond laws it offers (dem-api 0.5.5 on; see [`crate::setup::plugin_bonds`]).
    pub bonds: Vec<BondInfo>,
    entry: Entry,
}

impl Plugin {
    /// The plugin's shape builder, if it offers shapes.
    pub(crate) fn new_shape_fn(&self) -> Option<NewShapeFn> {
        match self.entry {
            Entry::Rust(_, Symbols { new_shape, .. }) => new_shape,
            Entry::C(_) => None,
        }
    }

    /// The plugin's exchange builder, if it offers exchanges (dem-api 0.5.4 on).
    pub(crate) fn new_exchange_fn(&self) -> Option<NewExchangeFn> {
        match self.entry {
            Entry::Rust(_, Symbols { new_exchange, .. }) => new_exchange,
            Entry::C(_) => None,
        }
    }

    /// The plugin's bond law builder, if it offers bond laws (dem-api 0.5.5 on).
    pub(crate) fn new_bond_fn(&self) -> Option<NewBondFn> {
        match self.entry {
            Entry::Rust(_, Symbols { new_bond, .. }) => new_bond,
            Entry::C(_) => None,
        }
    }

    /// The plugin's shape scaler, if it has one (dem-api 0.5.3 on).
    pub(crate) fn scale_shape_fn(&self) -> Option<ScaleShapeFn> {
        match self.entry {
            Entry::Rust(_, Symbols { scale_shape, .. }) => scale_shape,
            Entry::C(_) => None,
        }
    }
}

/// The names of the built-in kinds, which no plugin shape may take.
pub(crate) const BUILT_IN: [ShapeKind; 4] = [
    ShapeKind::SPHERE,
    ShapeKind::WALL,
    ShapeKind::FACET,
    ShapeKind::POLYHEDRON,
];

/// A Rust plugin's `dem_plugin_law_slot_names_v1` (dem-api 0.5.1 on): the names of a
/// law's state slots.
type SlotNames = extern "C" fn(RStr<'_>) -> RVec<RString>;

/// The symbol of [`SlotNames`].
const SLOT_NAMES: &[u8] = b"dem_plugin_law_slot_names_v1\0";

/// A Rust plugin's symbols beside its root module, each present from the dem-api
/// version that added it.
#[derive(Clone, Copy, Default)]
struct Symbols {
    /// Its laws' slot names (0.5.1).
    slot_names: Option<SlotNames>,
    /// Its shapes (0.5.2).
    shapes: Option<ShapeListFn>,
    /// Its shape builder (0.5.2).
    new_shape: Option<NewShapeFn>,
    /// Its shape scaler (0.5.3).
    scale_shape: Option<ScaleShapeFn>,
    /// Its field exchanges (0.5.4).
    exchanges: Option<ExchangeListFn>,
    /// Its exchange builder (0.5.4).
    new_exchange: Option<NewExchangeFn>,
    /// Its bond laws (0.5.5).
    bonds: Option<BondListFn>,
    /// Its bond law builder (0.5.5).
    new_bond: Option<NewBondFn>,
}

/// How a plugin's functors are built.
#[derive(Clone, Copy)]
enum Entry {
    /// A Rust plugin's root module, and its other symbols.
    Rust(PluginRootRef, Symbols),
    /// A C plugin's function table.
    C(CPlugin),
}

/// Every loaded plugin, and the libraries that were found but refused.
#[derive(Clone, Default)]
pub struct PluginSet {
    /// Loaded plugins, in load order.
    pub plugins: Vec<Plugin>,
    /// Libraries found by directory scanning but refused, with the reason.
    pub refused: Vec<(PathBuf, String)>,
    /// When set, every library is first opened by a child process, so that one that
    /// crashes when loaded is refused instead of killing this process (see
    /// [`crate::setup::plugin_probe`]).
    pub prober: Option<crate::setup::plugin_probe::Prober>,
}

extern "C" fn host_log(level: LogLevel, target: RStr<'_>, message: RStr<'_>) {
    let (target, message) = (target.as_str(), message.as_str());
    match level {
        LogLevel::Error => tracing::error!(target: "dem::plugin", plugin = target, "{message}"),
        LogLevel::Warn => tracing::warn!(target: "dem::plugin", plugin = target, "{message}"),
        LogLevel::Info => tracing::info!(target: "dem::plugin", plugin = target, "{message}"),
        LogLevel::Debug => tracing::debug!(target: "dem::plugin", plugin = target, "{message}"),
        LogLevel::Trace => tracing::trace!(target: "dem::plugin", plugin = target, "{message}"),
    }
}

/// A few readable lines out of abi_stable's (very long) load error.
pub fn summarize_load_error(e: &LibraryError) -> String {
    match e {
        LibraryError::IncompatibleVersionNumber { expected_version, actual_version, .. } => format!(
            "built against dem-api {actual_version}: rebuild it against dem-api {expected_version}, \
             which this solver uses (each 0.x minor version changes the ABI)"
        ),
        LibraryError::OpenError { err, .. } => format!("cannot open the library: {err}"),
        LibraryError::GetSymbolError { .. } => "not a dem plugin (no root module symbol)".to_string(),
        LibraryError::AbiInstability(details) => format!(
            "built against an incompatible dem-api (rebuild the plugin against this one):\n    {}",
            layout_differences(&details.to_string()).join("\n    ")
        ),
        other => other.to_string().lines().take(4).collect::<Vec<_>>().join("\n    "),
    }
}

/// The differences abi_stable's layout report lists (`Error:` blocks with their
/// `Expected:` and `Found:` values), each with the type it concerns; at most four.
fn layout_differences(report: &str) -> Vec<String> {
    let lines: Vec<&str> = report.lines().map(str::trim).collect();
    let mut found = Vec::new();
    let mut ty = "";
    for (i, line) in lines.iter().enumerate() {
        // The type a block is about follows its `--- Type Layout ---` header.
        if i > 0 && lines[i - 1] == "--- Type Layout ---" {
            ty = line.strip_prefix("type:").unwrap_or(ty);
        }
        let Some(kind) = line.strip_prefix("Error:") else {
            continue;
        };
        let after = |label: &str| {
            lines[i + 1..]
                .iter()
                .take(6)
                .position(|l| *l == label)
                .and_then(|k| lines.get(i + 2 + k))
                .copied()
        };
        // A version difference shows on every type: say it once, without the type.
        let mut item = if kind.contains("version") {
            kind.to_string()
        } else {
            format!("{ty}: {kind}")
        };
        if let (Some(e), Some(f)) = (after("Expected:"), after("Found:")) {
            item.push_str(&format!(" (solver has {e}, plugin has {f})"));
        }
        let item: String = item.chars().take(200).collect();
        if !found.contains(&item) {
            found.push(item);
        }
    }
    if found.is_empty() {
        found.push(
            report
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("layout mismatch")
                .trim()
                .to_string(),
        );
    }
    found.truncate(4);
    found
}

fn is_library(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e == std::env::consts::DLL_EXTENSION)
}

impl PluginSet {
    /// Loads one library. Errors name the file and what is wrong.
    pub fn load(&mut self, path: &Path) -> Result<&Plugin, DemError> {
        let path = path.canonicalize().map_err(|e| DemError::Plugin {
            path: path.to_path_buf(),
            reason: format!("cannot find the library: {e}"),
        })?;
        if let Some(i) = self.plugins.iter().position(|p| p.path == path) {
            return Ok(&self.plugins[i]);
        }
        let fail = |reason: String| DemError::Plugin {
            path: path.clone(),
            reason,
        };
        crate::setup::library_file::check(&path).map_err(fail)?;
        let header = match lib_header_from_path(&path) {
            Ok(h) => h,
            Err(LibraryError::GetSymbolError { .. }) => {
                return match CPlugin::open(&path).map_err(fail)? {
                    Some(c) => Ok(self.push(Plugin {
                        name: c.name(),
                        version: c.version(),
                        api_version: format!("C interface {}", dem_api::c_abi::DEM_C_ABI_VERSION),
                        functors: c.functors(),
                        shapes: Vec::new(),
                        exchanges: Vec::new(),
                        bonds: Vec::new(),
                        path,
                        entry: Entry::C(c),
                    })),
                    None => Err(fail(
                        "not a dem plugin (no Rust root module, no C entry point)".into(),
                    )),
                };
            }
            Err(e) => return Err(fail(summarize_load_error(&e))),
        };
        let root = header
            .init_root_module::<PluginRootRef>()
            .map_err(|e| fail(summarize_load_error(&e)))?;
        let logger = HostLogger {
            log: host_log,
            max_level: LogLevel::Trace,
        };
        (root.set_logger())(logger);
        let symbols = symbols(&path);
        let shapes: Vec<ShapeInfo> = symbols
            .shapes
            .map_or_else(Vec::new, |f| f().into_iter().collect());
        if let Some(s) = shapes
            .iter()
            .find(|s| s.name.is_empty() || BUILT_IN.iter().any(|k| k.name() == s.name.as_str()))
        {
            return Err(fail(format!(
                "it offers a shape named `{}`: a plugin shape needs a name of its own, not \
                 empty and not a built-in kind's ({})",
                s.name,
                BUILT_IN.map(|k| k.name()).join(", ")
            )));
        }
        let exchanges: Vec<ExchangeInfo> = symbols
            .exchanges
            .map_or_else(Vec::new, |f| f().into_iter().collect());
        let bonds: Vec<BondInfo> = symbols
            .bonds
            .map_or_else(Vec::new, |f| f().into_iter().collect());
        let plugin = Plugin {
            name: (root.name())().to_string(),
            version: (root.version())().to_string(),
            api_version: (root.api_version())().to_string(),
            functors: (root.functors())().into_iter().collect(),
            shapes,
            exchanges,
            bonds,
            path,
            entry: Entry::Rust(root, symbols),
        };
        Ok(self.push(plugin))
    }

    /// [`PluginSet::load`] of a library named by the user, tried first by the prober if
    /// there is one.
    fn load_named(&mut self, path: &Path) -> Result<&Plugin, DemError> {
        if let Some(p) = &self.prober {
            if let Some(Some(reason)) = p.crashes(&[path.to_path_buf()]).pop() {
                return Err(DemError::Plugin {
                    path: path.to_path_buf(),
                    reason,
                });
            }
        }
        self.load(path)
    }

    fn push(&mut self, plugin: Plugin) -> &Plugin {
        tracing::debug!(plugin = %plugin.name, path = %plugin.path.display(), "loaded plugin");
        self.plugins.push(plugin);
        self.plugins.last().expect("just pushed")
    }

    /// Loads every library in `dir`. Files that are not dem plugins are skipped; dem plugins
    /// that cannot be loaded are recorded in `refused` (an error only if a scene needs them).
    pub fn scan(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| is_library(p))
            .collect();
        files.sort();
        // Tried first in a child process, all together: one that kills it is refused.
        let crashes = match &self.prober {
            Some(p) => p.crashes(&files),
            None => vec![None; files.len()],
        };
        for (f, crash) in files.into_iter().zip(crashes) {
            if let Some(reason) = crash {
                tracing::warn!("skipping plugin {}: {reason}", f.display());
                self.refused.push((f, reason));
                continue;
            }
            if let Err(DemError::Plugin { path, reason }) = self.load(&f) {
                if !reason.starts_with("not a dem plugin") {
                    tracing::warn!("skipping plugin {}: {reason}", path.display());
                    self.refused.push((path, reason));
                }
            }
        }
    }

    /// Loads the libraries of a run, in this order: the scene's own `plugins` list (paths
    /// relative to the scene file), each of `extra` (a directory: every library in it; a
    /// file: that library, an error if it cannot be loaded), then every library in each of
    /// `dirs` (see [`PluginSet::default_dirs`]).
    ///
    /// With a `prober`, every library is first opened by a child process (see
    /// [`crate::setup::plugin_probe`]): one that crashes it is refused (an error when named by the
    /// scene or `extra`, skipped with a warning when found by a scan).
    pub fn for_run(
        scene: Option<&crate::scene::Scene>,
        extra: &[PathBuf],
        dirs: &[PathBuf],
        prober: Option<crate::setup::plugin_probe::Prober>,
    ) -> Result<PluginSet, DemError> {
        let mut set = PluginSet {
            prober,
            ..PluginSet::default()
        };
        if let Some(s) = scene {
            let base = s.origin.parent().unwrap_or(Path::new("."));
            for p in &s.plugins {
                set.load_named(&base.join(p))?;
            }
        }
        for p in extra {
            if p.is_dir() {
                set.scan(p);
            } else {
                set.load_named(p)?;
            }
        }
        for d in dirs {
            set.scan(d);
        }
        Ok(set)
    }

    /// The default plugin directories: the executable's own directory, then every entry of
    /// `DEM_PLUGIN_PATH` (separated like `PATH`).
    pub fn default_dirs() -> Vec<PathBuf> {
        let mut dirs = Vec::new();
        if let Some(d) = std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf))
        {
            dirs.push(d);
        }
        if let Some(p) = std::env::var_os("DEM_PLUGIN_PATH") {
            dirs.extend(std::env::split_paths(&p));
        }
        dirs
    }

    /// Every (plugin, functor) of the given role.
    pub fn functors(&self, role: FunctorRole) -> impl Iterator<Item = (&Plugin, &FunctorInfo)> {
        self.plugins.iter().flat_map(move |p| {
            p.functors
                .iter()
                .filter(move |f| f.role == role)
                .map(move |f| (p, f))
        })
    }

    /// The plugin offering the functor `name` with `role`; an error if none or several do.
    pub fn find(&self, role: FunctorRole, name: &str) -> Result<&Plugin, DemError> {
        let offering: Vec<&Plugin> = self
            .functors(role)
            .filter(|(_, f)| f.name == name)
            .map(|(p, _)| p)
            .collect();
        match offering.as_slice() {
            [one] => Ok(one),
            [] => {
                let known: Vec<String> = self
                    .functors(role)
                    .map(|(p, f)| format!("{} ({})", f.name, p.name))
                    .collect();
                let mut msg = format!(
                    "no loaded plugin offers `{name}`; available: {}",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                );
                for (path, why) in &self.refused {
                    msg.push_str(&format!("\n  refused {}: {why}", path.display()));
                }
                Err(DemError::Scene(msg))
            }
            many => Err(DemError::Scene(format!(
                "`{name}` is offered by several plugins: {}",
                many.iter()
                    .map(|p| p.path.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Instantiates a geometry functor with RON parameter text.
    pub fn new_geometry(&self, name: &str, params: &str) -> Result<Cg2Box, DemError> {
        let p = self.find(FunctorRole::Geometry, name)?;
        let made = match p.entry {
            Entry::Rust(root, _) => (root.new_geometry())(name.into(), params.into()).into_result(),
            Entry::C(_) => Err("C plugins offer contact laws only".into()),
        };
        made.map_err(|e| DemError::Scene(format!("{name} (plugin {}): {e}", p.name)))
    }

    /// The names of law `name`'s state slots (its constants, then its own), if its plugin
    /// gives them (a Rust plugin built against dem-api 0.5.1 or later).
    pub fn law_slot_names(&self, name: &str) -> Option<Vec<String>> {
        let p = self.find(FunctorRole::Law, name).ok()?;
        match p.entry {
            Entry::Rust(
                _,
                Symbols {
                    slot_names: Some(f),
                    ..
                },
            ) => Some(f(name.into()).into_iter().map(String::from).collect()),
            _ => None,
        }
    }

    /// Instantiates a contact law with RON parameter text.
    pub fn new_law(&self, name: &str, params: &str) -> Result<LawBox, DemError> {
        let p = self.find(FunctorRole::Law, name)?;
        let made = match p.entry {
            Entry::Rust(root, _) => (root.new_law())(name.into(), params.into())
                .into_result()
                .map_err(|e| e.to_string()),
            Entry::C(c) => c.new_law(name, params),
        };
        made.map_err(|e| DemError::Scene(format!("{name} (plugin {}): {e}", p.name)))
    }
}

/// The symbols beside the root module of the Rust plugin at `path`: those its dem-api
/// version has (a plugin built against 0.5.0 has none).
fn symbols(path: &Path) -> Symbols {
    let Ok(lib) = RawLibrary::load_at(path) else {
        return Symbols::default();
    };
    // Libraries are never unloaded: the functions stay valid.
    let lib: &'static RawLibrary = Box::leak(Box::new(lib));
    // SAFETY: each symbol's type is fixed by dem-api's `export_plugin!`, which defines it
    // under a versioned name.
    unsafe {
        Symbols {
            slot_names: lib.get::<SlotNames>(SLOT_NAMES).ok().map(|f| *f),
            shapes: lib.get::<ShapeListFn>(SHAPE_LIST_SYMBOL).ok().map(|f| *f),
            new_shape: lib.get::<NewShapeFn>(NEW_SHAPE_SYMBOL).ok().map(|f| *f),
            scale_shape: lib.get::<ScaleShapeFn>(SCALE_SHAPE_SYMBOL).ok().map(|f| *f),
            exchanges: lib
                .get::<ExchangeListFn>(EXCHANGE_LIST_SYMBOL)
                .ok()
                .map(|f| *f),
            new_exchange: lib
                .get::<NewExchangeFn>(NEW_EXCHANGE_SYMBOL)
                .ok()
                .map(|f| *f),
            bonds: lib.get::<BondListFn>(BOND_LIST_SYMBOL).ok().map(|f| *f),
            new_bond: lib.get::<NewBondFn>(NEW_BOND_SYMBOL).ok().map(|f| *f),
        }
    }
}

/// The root module's name (for messages).
pub fn root_module_name() -> &'static str {
    <PluginRootRef as RootModule>::NAME
}

/// The first `(plugin, entry)` of `entries` whose name is `name` (the first loaded wins,
/// as for functors), or an error naming the `what` (`"exchange"`, `"bond law"`) sought
/// and those loaded.
pub(crate) fn find_named<'a, T: 'a>(
    entries: impl Iterator<Item = (&'a Plugin, &'a T)>,
    name_of: impl Fn(&T) -> &str,
    name: &str,
    what: &str,
) -> Result<(&'a Plugin, &'a T), String> {
    let mut known = Vec::new();
    for (p, e) in entries {
        if name_of(e) == name {
            return Ok((p, e));
        }
        known.push(name_of(e).to_string());
    }
    Err(format!(
        "no loaded plugin offers the {what} `{name}`; {what}s loaded: {}",
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    ))
}

/// Builds `what` `name` of `plugin` from RON parameter text with the plugin's builder
/// `make` (none: the plugin lists such items but cannot build them); returns the plugin's
/// name and the object.
pub(crate) fn build_named<B>(
    plugin: &Plugin,
    make: Option<extern "C" fn(RStr<'_>, RStr<'_>) -> abi_stable::std_types::RResult<B, RString>>,
    name: &str,
    params: &str,
    what: &str,
) -> Result<(String, B), String> {
    let make =
        make.ok_or_else(|| format!("plugin {} lists {what}s but cannot build them", plugin.name))?;
    let made = make(name.into(), params.into())
        .into_result()
        .map_err(|e| format!("{name} (plugin {}): {e}", plugin.name))?;
    Ok((plugin.name.clone(), made))
}
