//! Small integer ids of a compiled scenario, as newtypes that cannot wrap.
//!
//! Each id indexes a table of [`crate::world::World`] and is stored in states in a `u8` or
//! `u16`, so that states stay small and hash fast. The only way to make one from a number is
//! [`TryFrom<usize>`], which fails beyond the id's bound in [`crate::limits`] (well below
//! what the stored type can hold): an id can never silently wrap onto another one.
//!
//! The ids hash, compare and order exactly as the bare integers did (`#[repr(transparent)]`,
//! `Hash` of the one field), and print as the bare integer with `{:?}` and `{}`, so state
//! fingerprints, symmetry representatives and outputs are unchanged.

use std::fmt;

use crate::limits;

/// A number too large for the id it was meant to become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdOverflow {
    /// The kind of id ("document", "call", ...).
    pub kind: &'static str,
    pub index: usize,
    /// The bound the id must stay below.
    pub limit: limits::Limit,
}

impl fmt::Display for IdOverflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} id {} is beyond the bound of {} ({})",
            self.kind,
            self.index,
            self.limit.value(),
            self.limit
        )
    }
}

impl std::error::Error for IdOverflow {}

macro_rules! small_id {
    ($(#[$doc:meta])* $name:ident($repr:ty), $kind:literal, $limit:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[repr(transparent)]
        pub struct $name($repr);

        impl $name {
            /// The bound every id of this kind stays below.
            pub const LIMIT: limits::Limit = $limit;

            /// The index into the world's table.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// The stored integer.
            #[inline(always)]
            pub const fn get(self) -> $repr {
                self.0
            }

            /// The id of index `i` of a table the compiler already bounded.
            ///
            /// # Panics
            ///
            /// When `i` is beyond the bound, which a compiled world never allows.
            #[inline]
            #[track_caller]
            pub fn nth(i: usize) -> Self {
                match Self::try_from(i) {
                    Ok(id) => id,
                    Err(e) => panic!("{e}"),
                }
            }

            /// The ids `0..n` (the ids of a table of length `n`).
            ///
            /// # Panics
            ///
            /// When `n` is beyond the bound, which a compiled world never allows.
            #[track_caller]
            pub fn all(n: usize) -> impl DoubleEndedIterator<Item = Self> + ExactSizeIterator + Clone {
                if n > Self::LIMIT.value() {
                    panic!(
                        "{}",
                        IdOverflow {
                            kind: $kind,
                            index: n - 1,
                            limit: Self::LIMIT
                        }
                    );
                }
                (0..n).map(|i| $name(i as $repr))
            }
        }

        impl TryFrom<usize> for $name {
            type Error = IdOverflow;
            #[inline]
            fn try_from(i: usize) -> Result<Self, IdOverflow> {
                if i < Self::LIMIT.value() {
                    Ok($name(i as $repr))
                } else {
                    Err(IdOverflow {
                        kind: $kind,
                        index: i,
                        limit: Self::LIMIT,
                    })
                }
            }
        }

        impl From<$name> for usize {
            #[inline(always)]
            fn from(id: $name) -> usize {
                id.index()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        const _: () = assert!($limit.value() <= <$repr>::MAX as usize + 1);
    };
}

small_id!(
    /// A navigable (a tab's top-level traversable or an iframe's child navigable): an index
    /// into [`crate::world::World::navs`].
    NavId(u8),
    "navigable",
    limits::Limit::Navigables
);
small_id!(
    /// A tab (a top-level traversable): an index into [`crate::world::World::tabs`].
    TabId(u8),
    "tab",
    limits::Limit::Tabs
);
small_id!(
    /// An agent (an event loop): an index into [`crate::world::World::agents`]. Every
    /// document has exactly one agent, so there are at most as many agents as documents.
    AgentId(u8),
    "agent",
    limits::Limit::Documents
);
small_id!(
    /// A document: an index into [`crate::world::World::docs`].
    DocId(u8),
    "document",
    limits::Limit::Documents
);
small_id!(
    /// A call of a page script that returns a promise: an index into
    /// [`crate::world::World::calls`]; also the execution's uuid for `executeTool`
    /// (`execute-tool#14`), since each call runs at most once.
    CallId(u8),
    "call",
    limits::Limit::Calls
);
small_id!(
    /// A named AbortController: an index into [`crate::world::World::controllers`].
    CtrlId(u8),
    "AbortController",
    limits::Limit::Controllers
);
small_id!(
    /// An interned string: an index into [`crate::world::World::strings`].
    StrId(u16),
    "string",
    limits::Limit::Strings
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Each id accepts the last index below its bound and refuses the bound itself, naming
    /// the bound in the error.
    fn refuses_its_limit<T>(kind: &'static str, limit: limits::Limit)
    where
        T: TryFrom<usize, Error = IdOverflow> + Into<usize> + fmt::Debug,
    {
        let n = limit.value();
        let last = T::try_from(n - 1).expect("the last index below the bound");
        assert_eq!(last.into(), n - 1);
        assert_eq!(
            T::try_from(n).unwrap_err(),
            IdOverflow {
                kind,
                index: n,
                limit,
            }
        );
        assert!(T::try_from(n + 1).is_err());
        assert!(T::try_from(usize::MAX).is_err());
    }

    #[test]
    fn navigable_tab_and_agent_ids_refuse_an_index_at_their_limit() {
        refuses_its_limit::<NavId>("navigable", limits::Limit::Navigables);
        refuses_its_limit::<TabId>("tab", limits::Limit::Tabs);
        refuses_its_limit::<AgentId>("agent", limits::Limit::Documents);
        assert_eq!(NavId::LIMIT.value(), limits::MAX_NAVIGABLES);
        assert_eq!(TabId::LIMIT.value(), limits::MAX_TABS);
        assert_eq!(AgentId::LIMIT.value(), limits::MAX_DOCUMENTS);
    }

    #[test]
    fn navigable_tab_and_agent_ids_print_hash_and_order_as_the_integer() {
        use std::hash::{BuildHasher, RandomState};
        let h = RandomState::new();
        let (n, t, a) = (NavId::nth(7), TabId::nth(3), AgentId::nth(5));
        assert_eq!((format!("{n:?}"), format!("{n}")), ("7".into(), "7".into()));
        assert_eq!((format!("{t:?}"), format!("{t}")), ("3".into(), "3".into()));
        assert_eq!((format!("{a:?}"), format!("{a}")), ("5".into(), "5".into()));
        assert_eq!(h.hash_one(n), h.hash_one(7u8));
        assert_eq!(h.hash_one(t), h.hash_one(3u8));
        assert_eq!(h.hash_one(a), h.hash_one(5u8));
        assert!(NavId::nth(1) < NavId::nth(2) && TabId::nth(0) < TabId::nth(1));
        assert_eq!(
            std::mem::size_of::<Option<NavId>>(),
            std::mem::size_of::<Option<u8>>()
        );
        assert_eq!(NavId::all(3).map(NavId::get).collect::<Vec<_>>(), [0, 1, 2]);
    }
}
