//! The macro that declares a plugin's root module ([`export_plugin!`](crate::export_plugin)),
//! turning its geometry functors and laws into the ABI's constructors through the
//! adapters.

/// Exports a plugin's root module: `export_plugin! { geometry: [A, B], laws: [C] }`, or
/// with laws written over lanes, `export_plugin! { geometry: [], laws: [], lane_laws: [D]
/// }` (see [`LaneLaw`](crate::sdk::LaneLaw)), and with shapes (see
/// [`Shape`](crate::sdk::Shape)) `shapes: [E]` after them, and with exchanges (see
/// [`Exchange`](crate::sdk::Exchange)) `exchanges: [F]` after those (or right after
/// `laws:`), and with bond laws (see [`Bond`](crate::sdk::Bond)) `bonds: [G]` last (or
/// right after `laws:`). Any list may be empty. The plugin crate must list `abi_stable`
/// among its dependencies (abi_stable's export attribute refers to it by absolute path).
#[macro_export]
macro_rules! export_plugin {
    (geometry: [$($g:ty),* $(,)?], laws: [$($l:ty),* $(,)?] $(,)?) => {
        $crate::export_plugin! {
            geometry: [$($g),*], laws: [$($l),*], lane_laws: [], shapes: []
        }
    };
    (
        geometry: [$($g:ty),* $(,)?],
        laws: [$($l:ty),* $(,)?],
        lane_laws: [$($ll:ty),* $(,)?] $(,)?
    ) => {
        $crate::export_plugin! {
            geometry: [$($g),*], laws: [$($l),*], lane_laws: [$($ll),*], shapes: []
        }
    };
    (
        geometry: [$($g:ty),* $(,)?],
        laws: [$($l:ty),* $(,)?],
        shapes: [$($s:ty),* $(,)?] $(,)?
    ) => {
        $crate::export_plugin! {
            geometry: [$($g),*], laws: [$($l),*], lane_laws: [], shapes: [$($s),*]
        }
    };
    (
        geometry: [$($g:ty),* $(,)?],
        laws: [$($l:ty),* $(,)?],
        exchanges: [$($e:ty),* $(,)?] $(,)?
    ) => {
        $crate::export_plugin! {
            geometry: [$($g),*], laws: [$($l),*], lane_laws: [], shapes: [],
            exchanges: [$($e),*]
        }
    };
    (
        geometry: [$($g:ty),* $(,)?],
        laws: [$($l:ty),* $(,)?],
        bonds: [$($b:ty),* $(,)?] $(,)?
    ) => {
        $crate::export_plugin! {
            geometry: [$($g),*], laws: [$($l),*], lane_laws: [], shapes: [],
            exchanges: [], bonds: [$($b),*]
        }
    };
    (
        geometry: [$($g:ty),* $(,)?],
        laws: [$($l:ty),* $(,)?],
        lane_laws: [$($ll:ty),* $(,)?],
        shapes: [$($s:ty),* $(,)?] $(,)?
    ) => {
        $crate::export_plugin! {
            geometry: [$($g),*], laws: [$($l),*], lane_laws: [$($ll),*], shapes: [$($s),*],
            exchanges: []
        }
    };
    (
        geometry: [$($g:ty),* $(,)?],
        laws: [$($l:ty),* $(,)?],
        lane_laws: [$($ll:ty),* $(,)?],
        shapes: [$($s:ty),* $(,)?],
        exchanges: [$($e:ty),* $(,)?]
        $(, bonds: [$($b:ty),* $(,)?])? $(,)?
    ) => {
        #[::abi_stable::export_root_module]
        pub fn dem_plugin_root() -> $crate::PluginRootRef {
            use ::abi_stable::prefix_type::PrefixTypeTrait;
            $crate::PluginRoot {
                api_version: __dem_plugin_api_version,
                name: __dem_plugin_name,
                version: __dem_plugin_version,
                functors: __dem_plugin_functors,
                set_logger: __dem_plugin_set_logger,
                new_geometry: __dem_plugin_new_geometry,
                new_law: __dem_plugin_new_law,
            }
            .leak_into_prefix()
        }

        extern "C" fn __dem_plugin_api_version() -> ::abi_stable::std_types::RStr<'static> {
            $crate::API_VERSION.into()
        }

        extern "C" fn __dem_plugin_name() -> ::abi_stable::std_types::RStr<'static> {
            env!("CARGO_PKG_NAME").into()
        }

        extern "C" fn __dem_plugin_version() -> ::abi_stable::std_types::RStr<'static> {
            env!("CARGO_PKG_VERSION").into()
        }

        extern "C" fn __dem_plugin_functors(
        ) -> ::abi_stable::std_types::RVec<$crate::FunctorInfo> {
            #[allow(unused_mut)]
            let mut all = ::abi_stable::std_types::RVec::new();
            $( all.push($crate::sdk::geometry_info::<$g>()); )*
            $( all.push($crate::sdk::law_info::<$l>()); )*
            $( all.push($crate::sdk::law_info::<$ll>()); )*
            all
        }

        extern "C" fn __dem_plugin_set_logger(logger: $crate::HostLogger) {
            $crate::sdk::install_forwarder(logger);
        }

        extern "C" fn __dem_plugin_new_geometry(
            name: ::abi_stable::std_types::RStr<'_>,
            params: ::abi_stable::std_types::RStr<'_>,
        ) -> ::abi_stable::std_types::RResult<$crate::Cg2Box, ::abi_stable::std_types::RString> {
            $(
                if name.as_str() == <$g as $crate::sdk::Geometry>::NAME {
                    return $crate::sdk::new_geometry::<$g>(params.as_str());
                }
            )*
            ::abi_stable::std_types::RErr(
                format!("this plugin has no geometry functor named `{}`", name).into(),
            )
        }

        /// The names of law `name`'s state slots, in the solver's order (its constants,
        /// then its own; see [`slot_names`]($crate::sdk::slot_names)), empty for a law the
        /// plugin does not have. A symbol of its own, outside the root module, so that the
        /// root module's layout stays that of dem-api 0.5.0 (the solver asks for it when it
        /// is there: dem-api 0.5.1 on).
        #[unsafe(no_mangle)]
        pub extern "C" fn dem_plugin_law_slot_names_v1(
            name: ::abi_stable::std_types::RStr<'_>,
        ) -> ::abi_stable::std_types::RVec<::abi_stable::std_types::RString> {
            let names: ::std::vec::Vec<::std::string::String> = 'found: {
                $(
                    if name.as_str() == <$l as $crate::sdk::Law>::NAME {
                        break 'found $crate::sdk::slot_names::<$l>();
                    }
                )*
                $(
                    if name.as_str() == <$ll as $crate::sdk::Law>::NAME {
                        break 'found $crate::sdk::slot_names::<$ll>();
                    }
                )*
                ::std::vec::Vec::new()
            };
            names.into_iter().map(::std::convert::Into::into).collect()
        }

        extern "C" fn __dem_plugin_new_law(
            name: ::abi_stable::std_types::RStr<'_>,
            params: ::abi_stable::std_types::RStr<'_>,
        ) -> ::abi_stable::std_types::RResult<$crate::LawBox, ::abi_stable::std_types::RString> {
            $(
                if name.as_str() == <$l as $crate::sdk::Law>::NAME {
                    return $crate::sdk::new_law::<$l>(params.as_str());
                }
            )*
            $(
                if name.as_str() == <$ll as $crate::sdk::Law>::NAME {
                    return $crate::sdk::new_lane_law::<$ll>(params.as_str());
                }
            )*
            ::abi_stable::std_types::RErr(
                format!("this plugin has no contact law named `{}`", name).into(),
            )
        }

        /// The shapes this plugin offers ([`ShapeListFn`]($crate::ShapeListFn), dem-api
        /// 0.5.2 on): a symbol of its own, like the slot names.
        #[unsafe(no_mangle)]
        pub extern "C" fn dem_plugin_shapes_v1(
        ) -> ::abi_stable::std_types::RVec<$crate::ShapeInfo> {
            #[allow(unused_mut)]
            let mut all = ::abi_stable::std_types::RVec::new();
            $( all.push($crate::sdk::shape_info::<$s>()); )*
            all
        }

        /// Builds a body of one of this plugin's shapes ([`NewShapeFn`]($crate::NewShapeFn)).
        #[unsafe(no_mangle)]
        pub extern "C" fn dem_plugin_new_shape_v1(
            name: ::abi_stable::std_types::RStr<'_>,
            params: ::abi_stable::std_types::RStr<'_>,
        ) -> ::abi_stable::std_types::RResult<$crate::ShapeBox, ::abi_stable::std_types::RString> {
            let _ = params;
            $(
                if name.as_str() == <$s as $crate::sdk::Shape>::NAME {
                    return $crate::sdk::new_shape::<$s>(params.as_str());
                }
            )*
            ::abi_stable::std_types::RErr(
                format!("this plugin has no shape named `{}`", name).into(),
            )
        }

        /// Scales a body's parameters ([`ScaleShapeFn`]($crate::ScaleShapeFn), dem-api
        /// 0.5.3 on).
        #[unsafe(no_mangle)]
        pub extern "C" fn dem_plugin_scale_shape_v1(
            name: ::abi_stable::std_types::RStr<'_>,
            params: ::abi_stable::std_types::RStr<'_>,
            factor: f64,
        ) -> ::abi_stable::std_types::RResult<::abi_stable::std_types::RString, ::abi_stable::std_types::RString> {
            let _ = (params, factor);
            $(
                if name.as_str() == <$s as $crate::sdk::Shape>::NAME {
                    return $crate::sdk::scale_shape::<$s>(params.as_str(), factor);
                }
            )*
            ::abi_stable::std_types::RErr(
                format!("this plugin has no shape named `{}`", name).into(),
            )
        }

        /// The exchanges this plugin offers ([`ExchangeListFn`]($crate::ExchangeListFn),
        /// dem-api 0.5.4 on).
        #[unsafe(no_mangle)]
        pub extern "C" fn dem_plugin_exchanges_v1(
        ) -> ::abi_stable::std_types::RVec<$crate::ExchangeInfo> {
            #[allow(unused_mut)]
            let mut all = ::abi_stable::std_types::RVec::new();
            $( all.push($crate::sdk::exchange_info::<$e>()); )*
            all
        }

        /// Builds one of this plugin's exchanges ([`NewExchangeFn`]($crate::NewExchangeFn)).
        #[unsafe(no_mangle)]
        pub extern "C" fn dem_plugin_new_exchange_v1(
            name: ::abi_stable::std_types::RStr<'_>,
            params: ::abi_stable::std_types::RStr<'_>,
        ) -> ::abi_stable::std_types::RResult<$crate::ExchangeBox, ::abi_stable::std_types::RString> {
            let _ = params;
            $(
                if name.as_str() == <$e as $crate::sdk::Exchange>::NAME {
                    return $crate::sdk::new_exchange::<$e>(params.as_str());
                }
            )*
            ::abi_stable::std_types::RErr(
                format!("this plugin has no exchange named `{}`", name).into(),
            )
        }

        /// The bond laws this plugin offers ([`BondListFn`]($crate::BondListFn), dem-api
        /// 0.5.5 on).
        #[unsafe(no_mangle)]
        pub extern "C" fn dem_plugin_bonds_v1(
        ) -> ::abi_stable::std_types::RVec<$crate::BondInfo> {
            #[allow(unused_mut)]
            let mut all = ::abi_stable::std_types::RVec::new();
            $($( all.push($crate::sdk::bond_info::<$b>()); )*)?
            all
        }

        /// Builds one of this plugin's bond laws ([`NewBondFn`]($crate::NewBondFn)).
        #[unsafe(no_mangle)]
        pub extern "C" fn dem_plugin_new_bond_v1(
            name: ::abi_stable::std_types::RStr<'_>,
            params: ::abi_stable::std_types::RStr<'_>,
        ) -> ::abi_stable::std_types::RResult<$crate::BondBox, ::abi_stable::std_types::RString> {
            let _ = params;
            $($(
                if name.as_str() == <$b as $crate::sdk::Bond>::NAME {
                    return $crate::sdk::new_bond::<$b>(params.as_str());
                }
            )*)?
            ::abi_stable::std_types::RErr(
                format!("this plugin has no bond law named `{}`", name).into(),
            )
        }
    };
}
