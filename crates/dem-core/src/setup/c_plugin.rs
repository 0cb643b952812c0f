//! Plugins written in C or C++: the `dem_c_plugin_v1` function table (see
//! [`dem_api::c_abi`]), checked at load and wrapped as a [`LawBox`] like any Rust law, so
//! that dispatch, batching and error reporting are the same for both.

use abi_stable::library::RawLibrary;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RBox, RErr, ROk, RResult, RString, RVec};
use dem_api::c_abi::{DemCEntry, DemCLaw, DemCParam, DemCPlugin, DEM_C_ABI_VERSION, DEM_C_ENTRY};
use dem_api::{
    functor::ContactLaw_TO, CallError, ContactLaw, FunctorInfo, FunctorRole, LawBatch, LawBox,
    LawInput, LawOutColumns, LawOutput, LawPair, StateColumns,
};
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::Path;

/// A loaded C plugin: its table (static in the library, which is never unloaded).
#[derive(Clone, Copy)]
pub struct CPlugin {
    table: &'static DemCPlugin,
}

// SAFETY: the table is immutable static data of a library that is never unloaded; its
// function pointers are documented as callable from any thread.
unsafe impl Send for CPlugin {}
// SAFETY: as above.
unsafe impl Sync for CPlugin {}

/// A NUL-terminated string of the plugin, or `what` is missing.
fn text(p: *const c_char, what: &str) -> Result<String, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    // SAFETY: the plugin promises NUL-terminated static strings; checked non-null.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

impl CPlugin {
    /// Opens `path` as a C plugin: `Ok(None)` when the library has no C entry point,
    /// `Err` (a short reason) when it has one that this solver cannot use.
    pub fn open(path: &Path) -> Result<Option<CPlugin>, String> {
        let lib = RawLibrary::load_at(path).map_err(|e| format!("cannot open the library: {e}"))?;
        // Libraries are never unloaded: the table and its strings stay valid.
        let lib: &'static RawLibrary = Box::leak(Box::new(lib));
        let symbol = format!("{DEM_C_ENTRY}\0");
        // SAFETY: the symbol's type is fixed by the C interface (dem_plugin.h).
        let Ok(entry) = (unsafe { lib.get::<DemCEntry>(symbol.as_bytes()) }) else {
            return Ok(None);
        };
        // SAFETY: calling the plugin's entry point, which takes no arguments.
        let table = unsafe { (*entry)() };
        if table.is_null() {
            return Err(format!("{DEM_C_ENTRY}() returned NULL"));
        }
        // SAFETY: non-null, and static in the (leaked) library.
        let table: &'static DemCPlugin = unsafe { &*table };
        let plugin = CPlugin { table };
        plugin.check()?;
        Ok(Some(plugin))
    }

    fn check(&self) -> Result<(), String> {
        let t = self.table;
        if t.abi_version != DEM_C_ABI_VERSION {
            return Err(format!(
                "C plugin interface version {} (this solver speaks version {DEM_C_ABI_VERSION}); \
                 rebuild it with this solver's include/dem_plugin.h",
                t.abi_version
            ));
        }
        let sizes = [
            (
                "LawInput",
                t.size_law_input,
                std::mem::size_of::<LawInput>(),
            ),
            (
                "LawOutput",
                t.size_law_output,
                std::mem::size_of::<LawOutput>(),
            ),
            ("LawPair", t.size_law_pair, std::mem::size_of::<LawPair>()),
        ];
        for (name, plugin, solver) in sizes {
            if plugin as usize != solver {
                return Err(format!(
                    "built with {name} of {plugin} bytes, this solver's is {solver} bytes; \
                     rebuild it with this solver's include/dem_plugin.h"
                ));
            }
        }
        text(t.name, "the plugin name")?;
        text(t.version, "the plugin version")?;
        for law in self.laws() {
            let name = text(law.name, "a law name")?;
            if law.create.is_none()
                || law.destroy.is_none()
                || law.stiffness.is_none()
                || law.compute.is_none()
            {
                return Err(format!(
                    "law {name}: a function pointer of its table is NULL"
                ));
            }
            if !(law.interaction_distance.is_finite() && law.interaction_distance >= 0.0) {
                return Err(format!(
                    "law {name}: interaction distance {} is not finite and >= 0",
                    law.interaction_distance
                ));
            }
        }
        Ok(())
    }

    fn laws(&self) -> &'static [DemCLaw] {
        let t = self.table;
        if t.laws.is_null() || t.n_laws == 0 {
            return &[];
        }
        // SAFETY: the table promises `n_laws` entries at `laws`, static in the library.
        unsafe { std::slice::from_raw_parts(t.laws, t.n_laws as usize) }
    }

    /// The plugin's name.
    pub fn name(&self) -> String {
        text(self.table.name, "").unwrap_or_default()
    }

    /// The plugin's version.
    pub fn version(&self) -> String {
        text(self.table.version, "").unwrap_or_default()
    }

    /// Catalogue entries of its laws.
    pub fn functors(&self) -> Vec<FunctorInfo> {
        self.laws()
            .iter()
            .map(|l| {
                let doc = text(l.params_doc, "").unwrap_or_default();
                let mut description = text(l.description, "").unwrap_or_default();
                if !doc.is_empty() {
                    description.push_str(&format!(" Parameters: {doc}"));
                }
                FunctorInfo {
                    name: text(l.name, "").unwrap_or_default().into(),
                    role: FunctorRole::Law,
                    shapes: [RString::new(), RString::new()],
                    description: description.into(),
                    params: RVec::new(),
                    default_params: "()".into(),
                }
            })
            .collect()
    }

    /// Builds the law `name` from the scene's RON parameter text.
    pub fn new_law(&self, name: &str, params: &str) -> Result<LawBox, String> {
        let law = self
            .laws()
            .iter()
            .find(|l| text(l.name, "").is_ok_and(|n| n == name))
            .ok_or_else(|| format!("this plugin has no contact law named `{name}`"))?;
        let values = numbers(params)?;
        let names: Vec<CString> = values
            .iter()
            .map(|(k, _)| CString::new(k.as_str()).map_err(|_| format!("bad parameter name {k:?}")))
            .collect::<Result<_, _>>()?;
        let c_params: Vec<DemCParam> = names
            .iter()
            .zip(&values)
            .map(|(n, (_, v))| DemCParam {
                name: n.as_ptr(),
                value: *v,
            })
            .collect();
        let mut err = vec![0 as c_char; 512];
        let create = law.create.expect("checked at load");
        // SAFETY: the parameter array and the error buffer outlive the call.
        let handle = unsafe {
            create(
                c_params.as_ptr(),
                c_params.len(),
                err.as_mut_ptr(),
                err.len(),
            )
        };
        if handle.is_null() {
            err[511] = 0;
            // SAFETY: NUL-terminated above.
            let msg = unsafe { CStr::from_ptr(err.as_ptr()) }
                .to_string_lossy()
                .into_owned();
            return Err(if msg.is_empty() {
                "the plugin refused the parameters".into()
            } else {
                msg
            });
        }
        Ok(ContactLaw_TO::from_ptr(
            RBox::new(CLaw { table: law, handle }),
            TD_Opaque,
        ))
    }
}

/// The scene's parameters as (name, number) pairs: `(kn: 1e5, attraction: true)`.
fn numbers(params: &str) -> Result<Vec<(String, f64)>, String> {
    let text = params.trim();
    if text.is_empty() || text == "()" {
        return Ok(Vec::new());
    }
    let value: ron::Value = ron::from_str(text).map_err(|e| format!("params: {e}"))?;
    let ron::Value::Map(map) = value else {
        return Err("params: expected `(name: number, ...)`".into());
    };
    let mut out = Vec::new();
    for (k, v) in map.iter() {
        let ron::Value::String(name) = k else {
            return Err(format!("params: a field name is not a name: {k:?}"));
        };
        let x = match v {
            ron::Value::Number(n) => n.into_f64(),
            ron::Value::Bool(b) => f64::from(u8::from(*b)),
            other => {
                return Err(format!(
                    "params: `{name}` must be a number or a boolean for a C plugin, got {other:?}"
                ))
            }
        };
        out.push((name.clone(), x));
    }
    Ok(out)
}

/// One instance of a C law.
struct CLaw {
    table: &'static DemCLaw,
    handle: *mut c_void,
}

// SAFETY: the C interface requires laws to be immutable after `create` and `compute` to be
// callable from several threads at once for different contacts (dem_plugin.h says so).
unsafe impl Send for CLaw {}
// SAFETY: as above.
unsafe impl Sync for CLaw {}

impl Drop for CLaw {
    fn drop(&mut self) {
        if let Some(destroy) = self.table.destroy {
            // SAFETY: made by this table's `create`, freed once.
            unsafe { destroy(self.handle) };
        }
    }
}

impl ContactLaw for CLaw {
    fn state_len(&self) -> u32 {
        self.table.state_len
    }

    fn interaction_distance(&self) -> f64 {
        self.table.interaction_distance
    }

    fn stiffness(&self, pair: &LawPair) -> f64 {
        let f = self.table.stiffness.expect("checked at load");
        // SAFETY: valid law handle and pair.
        unsafe { f(self.handle, pair) }
    }

    fn law_batch(
        &self,
        batch: &LawBatch<'_>,
        mut state: StateColumns<'_>,
        mut out: LawOutColumns<'_>,
    ) -> RResult<(), CallError> {
        let n = self.table.state_len as usize;
        let Some(view) = batch.view_with(&state, &out, n) else {
            return RErr(CallError {
                index: u64::MAX,
                message: "malformed batch: the lengths of its columns differ".into(),
            });
        };
        let compute = self.table.compute.expect("checked at load");
        // The C interface takes one contact's slots contiguous: in the row layout where
        // they are stored, else gathered and written back.
        let mut gathered = vec![0.0; n];
        for i in 0..view.len() {
            let input = view.input(i);
            let mut o = LawOutput::default();
            let row = state.slot_stride == 1;
            let slots = if row {
                let start = state.index(i, 0);
                state.values[start..start + n].as_mut_ptr()
            } else {
                for (j, s) in gathered.iter_mut().enumerate() {
                    *s = state.values[state.index(i, j)];
                }
                gathered.as_mut_ptr()
            };
            // SAFETY: valid handle; `input`, `slots` (n values) and `o` are live for the
            // call.
            let code = unsafe { compute(self.handle, &input, slots, &mut o) };
            if code != 0 {
                return RErr(CallError {
                    index: i as u64,
                    message: format!("returned error code {code}").into(),
                });
            }
            if !row {
                for (j, &s) in gathered.iter().enumerate() {
                    let at = state.index(i, j);
                    state.values[at] = s;
                }
            }
            out.set(i, &o);
        }
        ROk(())
    }
}
