//! Maps of names in a scene (materials, clump templates) refuse a name given twice: the
//! parser would keep the last one silently.

use serde::Deserialize;
use std::collections::BTreeMap;

/// Deserializes a map whose keys are names, refusing a name given twice (the parser would
/// keep the last silently); the error carries the line and column.
pub(crate) fn unique_names<'de, D, V>(d: D) -> Result<BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct Names<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Names<V> {
        type Value = BTreeMap<String, V>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of distinct names")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut m: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(name) = m.next_key::<String>()? {
                if out.contains_key(&name) {
                    return Err(serde::de::Error::custom(format!(
                        "`{name}` is given twice: each name may be defined once"
                    )));
                }
                let value = m.next_value()?;
                out.insert(name, value);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Names(std::marker::PhantomData))
}
