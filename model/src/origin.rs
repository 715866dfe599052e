//! Origins, as the URL and HTML standards define them, built with the `url` crate.
//!
//! Scenario strings (document URLs, `exposedTo`, `fromOrigins`, a `RegisteredTool`'s `origin`)
//! are parsed once, when a scenario is compiled, into an [`OriginTable`]; states then carry
//! small [`OriginId`]s. Tuple origins are interned by value; every parse that yields an opaque
//! origin gets a fresh id, because opaque origins are only ever same origin with themselves.

use url::Url;

/// An index into an [`OriginTable`].
pub type OriginId = u8;

/// The result of running the URL parser on a string and taking the origin, or failure.
pub type ParsedOrigin = Option<OriginId>;

/// Runs the URL parser on `input` (no base URL) and returns the resulting URL's origin.
pub fn parse_origin(input: &str) -> Option<url::Origin> {
    Url::parse(input).ok().map(|u| u.origin())
}

/// "Is origin potentially trustworthy?" from Secure Contexts §3.1, for the origins a URL can
/// have. User-agent configured exceptions (step 6) are none.
pub fn is_potentially_trustworthy(origin: &url::Origin) -> bool {
    match origin {
        // Step 1: an opaque origin is not.
        url::Origin::Opaque(_) => false,
        url::Origin::Tuple(scheme, host, _) => {
            // Step 2: https and wss.
            if scheme == "https" || scheme == "wss" {
                return true;
            }
            match host {
                // Step 3: loopback addresses.
                url::Host::Ipv4(ip) => ip.is_loopback(),
                url::Host::Ipv6(ip) => ip.is_loopback(),
                // Step 4: "localhost" and its subdomains (let-localhost-be-localhost).
                url::Host::Domain(d) => {
                    let d = d.strip_suffix('.').unwrap_or(d);
                    d == "localhost" || d.ends_with(".localhost")
                }
            }
            // Step 5, "file", cannot be reached: the URL Standard gives file URLs an opaque
            // origin, handled by step 1.
        }
    }
}

/// The origins of one scenario.
#[derive(Clone, Debug, Default)]
pub struct OriginTable {
    origins: Vec<url::Origin>,
    /// Set when a scenario needs more than [`OriginTable::CAPACITY`] origins; compiling it
    /// then fails with an error instead of mixing ids up.
    overflowed: bool,
}

impl OriginTable {
    /// Interns `origin`: equal tuple origins share an id; an opaque origin always gets its own.
    pub fn intern(&mut self, origin: url::Origin) -> OriginId {
        if let Some(i) = self.origins.iter().position(|o| *o == origin) {
            return i as OriginId;
        }
        if self.origins.len() >= Self::CAPACITY {
            self.overflowed = true;
            return 0;
        }
        self.origins.push(origin);
        (self.origins.len() - 1) as OriginId
    }

    /// Origin sets are 64-bit masks ([`crate::limits::MAX_ORIGINS`]).
    pub const CAPACITY: usize = crate::limits::MAX_ORIGINS;

    /// Whether some origin could not be interned (see [`OriginTable::CAPACITY`]).
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Parses `input` and interns its origin; `None` when the URL parser returns failure.
    pub fn parse(&mut self, input: &str) -> ParsedOrigin {
        parse_origin(input).map(|o| self.intern(o))
    }

    pub fn get(&self, id: OriginId) -> &url::Origin {
        &self.origins[id as usize]
    }

    pub fn len(&self) -> usize {
        self.origins.len()
    }

    pub fn is_empty(&self) -> bool {
        self.origins.is_empty()
    }

    /// HTML's "same origin": ids are equal exactly when the origins are.
    pub fn same_origin(&self, a: OriginId, b: OriginId) -> bool {
        a == b
    }

    pub fn is_opaque(&self, id: OriginId) -> bool {
        !self.get(id).is_tuple()
    }

    pub fn is_potentially_trustworthy(&self, id: OriginId) -> bool {
        is_potentially_trustworthy(self.get(id))
    }

    /// The scheme of a tuple origin; an opaque origin has none.
    pub fn scheme(&self, id: OriginId) -> Option<&str> {
        match self.get(id) {
            url::Origin::Tuple(scheme, _, _) => Some(scheme),
            url::Origin::Opaque(_) => None,
        }
    }

    /// *tool is exposed to an origin* (`tool-exposed-to-origin`) as a plain predicate, for
    /// ghosts and properties, which must not record steps ([`crate::cx::Cx`] has the
    /// algorithm, step by step).
    pub fn exposes(&self, owner: OriginId, exposed: OriginSet, accessing: OriginId) -> bool {
        self.same_origin(owner, accessing) || exposed.iter().any(|o| self.same_origin(o, accessing))
    }

    /// HTML's serialization of an origin ("null" for an opaque origin).
    pub fn serialize(&self, id: OriginId) -> String {
        self.get(id).ascii_serialization()
    }
}

/// A set of origins of one table, as a bit set (tool-map values stay small and cheap to hash).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct OriginSet(pub u64);

impl OriginSet {
    pub fn insert(&mut self, id: OriginId) {
        self.0 |= 1 << id;
    }
    pub fn iter(self) -> impl Iterator<Item = OriginId> {
        (0..64u8).filter(move |i| self.0 & (1 << i) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuple_origins_are_interned_and_opaque_ones_are_not() {
        let mut t = OriginTable::default();
        let a = t.parse("https://a.example/path?q").unwrap();
        let a2 = t.parse("https://a.example:443/other").unwrap();
        assert_eq!(a, a2);
        let o1 = t.parse("data:text/plain,x").unwrap();
        let o2 = t.parse("data:text/plain,x").unwrap();
        assert_ne!(o1, o2);
        assert!(t.is_opaque(o1));
        assert_eq!(t.serialize(o1), "null");
        assert_eq!(t.serialize(a), "https://a.example");
        assert_eq!(t.parse("not a url"), None);
    }

    #[test]
    fn trustworthiness_follows_secure_contexts() {
        let trust = |s: &str| is_potentially_trustworthy(&parse_origin(s).unwrap());
        assert!(trust("https://b.example"));
        assert!(trust("wss://b.example"));
        assert!(trust("http://localhost:8000"));
        assert!(trust("http://sub.localhost"));
        assert!(trust("http://127.0.0.1:9"));
        assert!(trust("http://127.8.9.1"));
        assert!(trust("http://[::1]:80"));
        assert!(!trust("http://evil.example"));
        assert!(!trust("http://localhost.evil.example"));
        assert!(trust("http://localhost./"));
        assert!(!trust("http://localhost../"));
        assert!(!trust("http://sub.localhost../"));
        assert!(!trust("file:///etc/passwd"));
        assert!(!trust("data:text/html,hi"));
        assert!(!trust("ftp://a.example"));
    }
}
