//! Named per-contact values kept in a contact's `f64` state slots.

/// A fixed set of `f64` values stored in a contact's state slots: a law's per-contact
/// constants (see [`Law::Constants`](super::Law::Constants)). Implement it with
/// [`slots!`](crate::slots), which declares the struct and this impl together.
pub trait Slots: Copy {
    /// Number of `f64` slots.
    const LEN: usize;
    /// The slots' names, in order (the field names, for a [`slots!`](crate::slots)
    /// struct). Default: none.
    const NAMES: &'static [&'static str] = &[];
    /// Reads the value from `slots` (exactly `LEN` long).
    fn load(slots: &[f64]) -> Self;
    /// Writes the value into `slots` (exactly `LEN` long).
    fn store(&self, slots: &mut [f64]);
}

/// No per-contact constants.
impl Slots for () {
    const LEN: usize = 0;
    fn load(_: &[f64]) -> Self {}
    fn store(&self, _: &mut [f64]) {}
}

/// Declares a struct of `f64` fields that implements [`Slots`]:
///
/// ```
/// dem_api::slots! {
///     /// Constants of one contact.
///     pub struct PairConstants {
///         /// Normal stiffness, N/m.
///         pub kn: f64,
///         /// Friction coefficient.
///         pub mu: f64,
///     }
/// }
/// use dem_api::sdk::Slots;
/// let c = PairConstants { kn: 1e5, mu: 0.3 };
/// let mut s = [0.0; 2];
/// c.store(&mut s);
/// assert_eq!(PairConstants::load(&s), c);
/// ```
#[macro_export]
macro_rules! slots {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : f64 ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        ///
        /// (Generic over the number type for laws written over lanes: `V = f64` is one
        /// contact's values, see [`from_slots`](Self::from_slots).)
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        $vis struct $name<V = f64> {
            $( $(#[$fmeta])* $fvis $field: V, )*
        }

        impl<V: Copy> $name<V> {
            /// The values from `slots` in declaration order (a lane of contacts' constants in
            /// a law written over lanes, `dem_api::sdk::LaneLaw`).
            #[inline(always)]
            pub fn from_slots(slots: &[V]) -> Self {
                let mut it = slots.iter().copied();
                $name { $( $field: it.next().expect("a slot per field"), )* }
            }
        }

        impl $crate::sdk::Slots for $name {
            const LEN: usize = [$(stringify!($field)),*].len();
            const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            fn load(slots: &[f64]) -> Self {
                let mut it = slots.iter().copied();
                $name { $( $field: it.next().unwrap_or(0.0), )* }
            }

            fn store(&self, slots: &mut [f64]) {
                let mut it = slots.iter_mut();
                $( if let Some(s) = it.next() { *s = self.$field; } )*
            }
        }
    };
}
