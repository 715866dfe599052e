//! Spec variants: the text as written (`seed`) plus named, opt-in fixes.

/// A set of fixes applied on top of the draft as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    fixes: u32,
}

/// A proposed fix to the draft, switched on by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fix {
    pub name: &'static str,
    pub bit: u32,
    pub summary: &'static str,
}

/// Every fix the model knows. Empty until fixes are proposed; `proposed` turns all on.
pub const FIXES: &[Fix] = &[];

impl Variant {
    /// The draft exactly as written.
    pub const SEED: Variant = Variant { fixes: 0 };

    pub fn has(self, fix: &Fix) -> bool {
        self.fixes & (1 << fix.bit) != 0
    }

    /// Parses `seed`, `proposed`, or `seed+FIX+FIX`.
    pub fn parse(text: &str) -> Result<Variant, String> {
        let mut parts = text.split('+');
        let mut v = match parts.next() {
            Some("seed") => Variant::SEED,
            Some("proposed") => Variant {
                fixes: FIXES.iter().fold(0, |m, f| m | (1 << f.bit)),
            },
            _ => {
                return Err(format!(
                    "unknown variant \"{text}\": it must start with \"seed\" or \"proposed\""
                ))
            }
        };
        for name in parts {
            match FIXES.iter().find(|f| f.name == name) {
                Some(f) => v.fixes |= 1 << f.bit,
                None => return Err(format!("unknown fix \"{name}\" in variant \"{text}\"")),
            }
        }
        Ok(v)
    }

    pub fn name(self) -> String {
        let mut s = String::from("seed");
        for f in FIXES {
            if self.has(f) {
                s.push('+');
                s.push_str(f.name);
            }
        }
        s
    }
}
