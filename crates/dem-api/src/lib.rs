//! # dem-api: the stable ABI between the dem solver and its plugins
//!
//! Everything a geometry-functor or contact-law plugin links against. Types that cross the
//! boundary are `#[repr(C)]` and checked by abi_stable when a plugin is loaded: a plugin
//! built against an incompatible version of this crate is refused, not run.
//!
//! - [`math`]: `Vec3`, `Quat`, `Mat3` with zero-copy nalgebra views;
//! - [`shape`]: the shape views a geometry functor reads; [`facet`]: the mesh facet record;
//!   [`polyhedron`]: the convex polyhedron record; [`convex`]: the geometry library;
//! - [`geom`]: `RawGeom` (what a geometry functor returns) and `L6Geom` (what a law reads),
//!   with the sign conventions every plugin follows;
//! - [`law`]: law input and output records (per contact, as the SDK hands them over);
//! - [`batch`]: the column batches a batched call reads and writes; [`law_view`]: a law
//!   batch checked once, as plain slices;
//! - [`lane`]: the number types code written once for one and for four contacts uses;
//! - [`exchange`]: particle fields and their exchange through contacts (a temperature);
//! - [`bond`]: bonds, pair interactions that outlive contact (cemented grains);
//! - [`functor`]: the batched ABI traits; [`reads`]: what a functor declares it reads;
//!   [`root`]: the root module; [`log`]: log bridge;
//! - [`sdk`]: what a plugin author uses: per-contact traits and [`export_plugin!`];
//! - [`c_abi`]: the function table of plugins written in C or C++.
//!
//! Units are SI throughout (m, s, kg, N, J, rad).
//!
//! Floors, bottom first (a module names only modules of lower floors; checked by the
//! workspace's `tests/module_floors.rs`): `math`, `lane`, `reads`, `log`; `geom`,
//! `facet`, `polyhedron`; `law`, `shape`; `batch`, `c_abi`; `functor`, `law_view`;
//! `root`; `sdk` on top (its adapters turn the per-contact traits into `functor`'s).

// `#[sabi_trait]` expands to impls that newer rustc flags as non-local definitions.
#![allow(non_local_definitions)]
#![warn(missing_docs)]

pub mod batch;
pub mod bond;
pub mod c_abi;
pub mod exchange;
pub mod facet;
pub mod functor;
pub mod geom;
pub mod lane;
pub mod law;
pub mod law_view;
pub mod log;
pub mod math;
pub mod plugin_shape;
pub mod polyhedron;
pub mod reads;
pub mod root;
pub mod sdk;
pub mod shape;

pub use batch::{
    BodyColumns, Columns3, Columns3Mut, GeomBatch, L6Columns, LawBatch, LawOutColumns,
    StateColumns, FLAG_LAST, FLAG_NEW, FLAG_REFRESH,
};
pub use bond::{
    BondBox, BondInfo, BondInput, BondLaw, BondListFn, BondOutput, BondStiffness, NewBondFn,
    BOND_LIST_SYMBOL, NEW_BOND_SYMBOL,
};
pub use exchange::{
    ExchangeBox, ExchangeInfo, ExchangeInput, ExchangeLaw, ExchangeListFn, ExchangeOutput,
    FieldInfo, NewExchangeFn, EXCHANGE_LIST_SYMBOL, NEW_EXCHANGE_SYMBOL,
};
pub use facet::FacetShape;
pub use functor::{CallError, Cg2Box, Cg2Functor, ContactLaw, LawBox};
pub use geom::{L6Geom, RawGeom};
pub use law::{LawInput, LawOutput, LawPair, Material, Onset};
pub use law_view::LawView;
pub use log::{HostLogger, LogLevel};
pub use math::{Mat3, Quat, Vec3};
pub use plugin_shape::{
    NewShapeFn, ScaleShapeFn, ShapeBox, ShapeInfo, ShapeListFn, ShapeModel, ShapeProperties,
    Surface, NEW_SHAPE_SYMBOL, SCALE_SHAPE_SYMBOL, SHAPE_LIST_SYMBOL,
};
pub use polyhedron::{FacePlane, PolyhedronData, PolyhedronShape};
pub use reads::{GeomReads, LawReads};
pub use root::{FunctorInfo, FunctorRole, ParamDoc, PluginRoot, PluginRootRef, API_VERSION};
pub use shape::{BodyView, ShapeKind, ShapeView, SphereShape, WallShape};

/// The convex-polyhedron library (hull, mass properties, GJK, intersection, contact
/// geometry), re-exported for polyhedron functors. It has no ABI types: it is linked
/// statically into each plugin that uses it.
pub use dem_convex as convex;

/// Re-exported so plugins and the solver use the same versions.
pub use abi_stable;
pub use nalgebra;
pub use tracing;
