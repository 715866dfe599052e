//! Alternative readings of the legacy proposal's TODO method steps.
//!
//! The default (`chosen`) is the semantics `docs/legacy.md` pins down. Each alternative is a
//! reading the text equally leaves open; checking it shows which property the choice buys.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LegacyVariant {
    bits: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alternative {
    pub name: &'static str,
    bit: u8,
    pub summary: &'static str,
}

pub const LOOKUP_AT_REQUEST: Alternative = Alternative {
    name: "lookup-at-request",
    bit: 0,
    summary:
        "an execution resolves the tool when the request is accepted and invokes it in a later step",
};
pub const PIECEWISE_PROVIDE: Alternative = Alternative {
    name: "piecewise-provide",
    bit: 1,
    summary: "provideContext empties the set, then adds one tool per step where the agent can look",
};
pub const CLEAR_KEEPS_REGISTERED: Alternative = Alternative {
    name: "clear-keeps-registered",
    bit: 2,
    summary: "clearContext removes only the tools provideContext supplied, not registerTool's",
};
pub const UNBOUND_CLIENT: Alternative = Alternative {
    name: "unbound-client",
    bit: 3,
    summary:
        "requestUserInteraction runs its callback whenever called, also after the execution settled",
};
pub const PROVIDE_KEEPS_DUPLICATES: Alternative = Alternative {
    name: "provide-keeps-duplicates",
    bit: 4,
    summary: "provideContext stores every entry of its list, duplicate names included",
};

pub const LIVE_UNTIL_REPLY: Alternative = Alternative {
    name: "live-until-reply",
    bit: 5,
    summary: "the client stays live after the body's promise settles, until the result reaches the agent (a later step)",
};

pub const ALTERNATIVES: &[Alternative] = &[
    LOOKUP_AT_REQUEST,
    PIECEWISE_PROVIDE,
    CLEAR_KEEPS_REGISTERED,
    UNBOUND_CLIENT,
    PROVIDE_KEEPS_DUPLICATES,
    LIVE_UNTIL_REPLY,
];

/// Why a legacy variant's name was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LegacyVariantError {
    /// The name does not start with `chosen`.
    UnknownBase(String),
    UnknownAlternative(String),
    AlternativeTwice {
        alternative: &'static str,
        variant: String,
    },
}

impl std::fmt::Display for LegacyVariantError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LegacyVariantError::UnknownBase(text) => write!(
                f,
                "unknown legacy variant \"{text}\": it must start with \"chosen\""
            ),
            LegacyVariantError::UnknownAlternative(name) => {
                let names: Vec<_> = ALTERNATIVES.iter().map(|a| a.name).collect();
                write!(
                    f,
                    "unknown legacy alternative \"{name}\" (known: {})",
                    names.join(", ")
                )
            }
            LegacyVariantError::AlternativeTwice {
                alternative,
                variant,
            } => write!(
                f,
                "legacy variant \"{variant}\" names the alternative \"{alternative}\" twice"
            ),
        }
    }
}

impl std::error::Error for LegacyVariantError {}

impl LegacyVariant {
    pub const CHOSEN: LegacyVariant = LegacyVariant { bits: 0 };

    pub fn has(self, a: Alternative) -> bool {
        self.bits & (1 << a.bit) != 0
    }

    pub fn with(self, a: Alternative) -> LegacyVariant {
        LegacyVariant {
            bits: self.bits | (1 << a.bit),
        }
    }

    /// `chosen` or `chosen+ALT+ALT...`.
    pub fn parse(text: &str) -> Result<LegacyVariant, LegacyVariantError> {
        let mut parts = text.split('+');
        if parts.next() != Some("chosen") {
            return Err(LegacyVariantError::UnknownBase(text.to_string()));
        }
        let mut v = LegacyVariant::CHOSEN;
        for p in parts {
            let Some(a) = ALTERNATIVES.iter().find(|a| a.name == p) else {
                return Err(LegacyVariantError::UnknownAlternative(p.to_string()));
            };
            if v.has(*a) {
                return Err(LegacyVariantError::AlternativeTwice {
                    alternative: a.name,
                    variant: text.to_string(),
                });
            }
            v = v.with(*a);
        }
        Ok(v)
    }

    pub fn name(self) -> String {
        std::iter::once("chosen")
            .chain(
                ALTERNATIVES
                    .iter()
                    .filter(|a| self.has(**a))
                    .map(|a| a.name),
            )
            .collect::<Vec<_>>()
            .join("+")
    }
}
