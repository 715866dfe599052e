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

macro_rules! fixes {
    ($($konst:ident = $bit:literal, $name:literal, $summary:literal;)*) => {
        $(pub const $konst: Fix = Fix { name: $name, bit: $bit, summary: $summary };)*
        /// Every fix the model knows; `proposed` turns all of them on.
        pub const FIXES: &[Fix] = &[$($konst),*];
    };
}

fixes! {
    OBJECT_CHECK = 0, "object-check",
        "imperative-execute-steps#3: \"If inputObject is not an Object\", without the double negative.";
    COMPLETION_IN_PARALLEL = 1, "completion-in-parallel",
        "callers on an event loop run completionSteps in parallel, as their Assert (execute-tool#15.10.1) requires.";
    CAPTURE_TRAVERSABLE = 2, "capture-traversable",
        "each algorithm captures the traversable navigable in its synchronous steps and uses it in parallel, instead of dereferencing a node navigable that may be null by then.";
    PENDING_MAP_QUEUE = 3, "pending-map-queue",
        "every block that reads or writes a pending tool executions map runs on the traversable's WebMCP parallel queue, so each block is atomic.";
    SINGLE_TOOL_LOOKUP = 4, "single-tool-lookup",
        "execute-tool#15.7 and #15.8 read the tool map once: \"If targetToolMap[toolName] exists, let tool definition be it; otherwise reject\".";
    STORE_ONLY_LIVE_DOCUMENTS = 5, "store-only-live-documents",
        "execute-tool#15.12 rejects with UnknownError instead of storing an execution whose caller or target is not fully active.";
    SETTLE_ONCE = 6, "settle-once",
        "the settlement tasks queued by execute-tool#15 and completionSteps do nothing when the promise was already rejected by the abort steps.";
    REMOVE_ABORT_STEPS = 7, "remove-abort-steps",
        "once an executeTool promise settles, its abort steps are removed from the signal, so a later abort() neither rejects it again nor starts a cancellation.";
    REJECT_ON_CALLER_UNLOAD = 8, "reject-on-caller-unload",
        "unload-cleanup#2.3.3 also queues a task on the caller to reject its promise with UnknownError: a caller unloaded into the back/forward cache comes back to a settled promise instead of one pending forever.";
    SKIP_CANCELLED_EXECUTION = 10, "skip-cancelled-execution",
        "tool-execute-steps return without invoking the tool when its pending tool execution is gone (cancelled or completed) by the time the task runs.";
    ABORT_LOCAL_ON_UNLOAD = 11, "abort-local-on-unload",
        "the unloading document cleanup steps signal abort on, and clear, the document's local pending tool executions, so tools of an unloaded document see their signal aborted.";
    CHECK_SIGNAL_BEFORE_INVOKING = 12, "check-signal-before-invoking",
        "tool-execute-steps return without invoking the tool when the caller's executeTool signal is already aborted (the abort may not have reached the parallel cancellation yet).";
    AMEND_CANCEL_NOTE = 9, "amend-cancel-note",
        "the note at cancel-pending-execution#5 says the target may be gone, in which case the queued task never runs (harmless with abort-local-on-unload).";
}

impl Variant {
    /// The draft exactly as written.
    pub const SEED: Variant = Variant { fixes: 0 };

    pub fn has(self, fix: &Fix) -> bool {
        self.fixes & (1 << fix.bit) != 0
    }

    /// Every fix.
    pub fn proposed() -> Variant {
        Variant {
            fixes: FIXES.iter().fold(0, |m, f| m | (1 << f.bit)),
        }
    }

    /// This variant with `fix` switched on or off.
    pub fn with(self, fix: &Fix, on: bool) -> Variant {
        let bit = 1 << fix.bit;
        Variant {
            fixes: if on {
                self.fixes | bit
            } else {
                self.fixes & !bit
            },
        }
    }

    /// Parses `seed`, `proposed`, `seed+FIX+FIX`, or `proposed-FIX-FIX`.
    pub fn parse(text: &str) -> Result<Variant, String> {
        let (mut v, rest, on) = if let Some(rest) = text.strip_prefix("seed") {
            (Variant::SEED, rest, true)
        } else if let Some(rest) = text.strip_prefix("proposed") {
            (Variant::proposed(), rest, false)
        } else {
            return Err(format!(
                "unknown variant \"{text}\": it must start with \"seed\" or \"proposed\""
            ));
        };
        if rest.is_empty() {
            return Ok(v);
        }
        let sep = if on { '+' } else { '-' };
        let Some(rest) = rest.strip_prefix(sep) else {
            return Err(format!(
                "unknown variant \"{text}\": add fixes to seed with +, take them out of proposed with -"
            ));
        };
        // Fix names contain '-', so match whole names rather than splitting.
        let mut rest = rest;
        while !rest.is_empty() {
            let fix = FIXES.iter().find(|f| {
                rest.strip_prefix(f.name)
                    .is_some_and(|after| after.is_empty() || after.starts_with(sep))
            });
            let Some(f) = fix else {
                let name = rest.split(sep).next().unwrap_or(rest);
                return Err(format!("unknown fix \"{name}\" in variant \"{text}\""));
            };
            v = v.with(f, on);
            rest = rest[f.name.len()..].strip_prefix(sep).unwrap_or("");
        }
        Ok(v)
    }

    /// The shortest name that parses back to this variant: `seed+FIX...` or `proposed-FIX...`.
    pub fn name(self) -> String {
        let on: Vec<&str> = FIXES
            .iter()
            .filter(|f| self.has(f))
            .map(|f| f.name)
            .collect();
        let off: Vec<&str> = FIXES
            .iter()
            .filter(|f| !self.has(f))
            .map(|f| f.name)
            .collect();
        if off.len() < on.len() {
            std::iter::once("proposed")
                .chain(off)
                .collect::<Vec<_>>()
                .join("-")
        } else {
            std::iter::once("seed")
                .chain(on)
                .collect::<Vec<_>>()
                .join("+")
        }
    }
}
