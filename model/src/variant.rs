//! Spec variants: a published text of the draft (the current one, `spec/webmcp-algorithms.md`,
//! unless a [`Revision`] is named) plus named, opt-in fixes.

/// A set of fixes applied on top of one published text of the draft.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    fixes: u32,
    revision: Revision,
}

/// Why a variant's or a revision's name was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantError {
    /// The text after `@` names no revision.
    UnknownRevision(String),
    /// The variant starts with neither `seed` nor `proposed`.
    UnknownBase(String),
    /// Fixes follow `seed` or `proposed` without their `+` or `-`.
    NoSeparator(String),
    /// The variant ends with its separator.
    EndsWithSeparator {
        variant: String,
        separator: char,
    },
    UnknownFix {
        fix: String,
        variant: String,
    },
    /// A fix is added (or taken out) twice.
    FixTwice {
        fix: &'static str,
        variant: String,
    },
}

impl std::fmt::Display for VariantError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VariantError::UnknownRevision(text) => {
                let names: Vec<&str> = REVISIONS.iter().map(|r| r.name).collect();
                write!(
                    f,
                    "unknown revision \"{text}\": the revisions are {} (docs/revisions.md)",
                    names.join(", ")
                )
            }
            VariantError::UnknownBase(text) => write!(
                f,
                "unknown variant \"{text}\": it must start with \"seed\" or \"proposed\""
            ),
            VariantError::NoSeparator(text) => write!(
                f,
                "unknown variant \"{text}\": add fixes to seed with +, take them out of proposed with -"
            ),
            VariantError::EndsWithSeparator { variant, separator } => write!(
                f,
                "variant \"{variant}\" ends with \"{separator}\": name a fix after it (docs/variants.md lists them)"
            ),
            VariantError::UnknownFix { fix, variant } => {
                write!(f, "unknown fix \"{fix}\" in variant \"{variant}\"")
            }
            VariantError::FixTwice { fix, variant } => {
                write!(f, "variant \"{variant}\" names the fix \"{fix}\" twice")
            }
        }
    }
}

impl std::error::Error for VariantError {}

/// A published text of the draft. Fixes are our proposals; a revision is what the spec
/// repository once said, kept to show a defect an earlier text had and a later one removed.
/// Later texts first: `Current < Aug2026 < Pr247`, so `r >= Revision::Aug2026` reads "the
/// 2026-08 text or an older one".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Revision {
    /// `spec/webmcp-algorithms.md`: `index.bs` at commit 0023abd, the newest we can read.
    #[default]
    Current,
    /// `spec/revisions/2026-08.md`: the text after PR #248 (merged 2026-08-19), which the
    /// model followed until 2026-12 (docs/revisions.md).
    Aug2026,
    /// The text PR #247 left (merged 2026-08-18), before PR #248: the 2026-08 text, except
    /// that unregistering a tool runs the completion steps of its in-flight executions with
    /// null and false, then notifies documents of the change synchronously.
    Pr247,
}

/// What a revision is, for readers and for `--revision`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RevisionInfo {
    pub revision: Revision,
    pub name: &'static str,
    /// When the text was published, and by which change.
    pub published: &'static str,
    /// How it differs from the current text, in one sentence.
    pub summary: &'static str,
    /// The step IDs (of the current text) where it differs.
    pub steps: &'static [&'static str],
    /// The steps of the current text that this text does not have at all: no scenario
    /// reaches them under it (`coverage` leaves them out, as it leaves out the `2026-08:`
    /// steps under the current text).
    pub absent: &'static [&'static str],
}

/// Every revision the model knows, oldest last (`current` first).
pub const REVISIONS: &[RevisionInfo] = &[
    RevisionInfo {
        revision: Revision::Current,
        name: "current",
        published: "index.bs at commit 0023abd (read 2026-12-01)",
        summary: "spec/webmcp-algorithms.md, as modelled by default.",
        steps: &[],
        absent: &[],
    },
    RevisionInfo {
        revision: Revision::Aug2026,
        name: "2026-08",
        published: "after PR #248 (merged 2026-08-19), before 2026-09-03",
        summary: "registerTool(), getTools() and executeTool() refuse a caller whose agent cluster is not origin-keyed; imperative-execute-steps#3 tests \"inputObject is not an Object\" is false; completionSteps assert they run in parallel and run where they are called; neither toolactivated nor toolcancel fires; registerTool checks \"name or description is empty\" before the name's form (spec/revisions/2026-08.md).",
        steps: &[
            "2026-08:register-tool#4",
            "register-tool#9",
            "register-tool#10",
            "2026-08:get-tools#4",
            "2026-08:execute-tool#3",
            "imperative-execute-steps#3",
            "imperative-execute-steps#4",
            "2026-08:execute-tool#15.10.1",
            "execute-tool#16.10",
            "cancel-pending-execution#6.6",
        ],
        absent: ABSENT_SINCE_2026_08,
    },
    RevisionInfo {
        revision: Revision::Pr247,
        name: "pr247",
        published: "PR #247 (merged 2026-08-18) until PR #248 (merged 2026-08-19)",
        summary: "the 2026-08 text, except that unregister-tool also runs the completion steps of the tool's in-flight executions with null and false, and notifies documents of the change synchronously rather than in parallel.",
        steps: &["unregister-tool#5", "unregister-tool#7", "notify-tool-change#1"],
        absent: ABSENT_SINCE_2026_08,
    },
];

/// The steps the current text added that the 2026-08 text (and PR #247's before it) had
/// nothing in place of: executeTool() giving a missing `inputObject` its default and
/// asserting it is an object (spec/webmcp-algorithms.md, *What changed since 2026-08*).
const ABSENT_SINCE_2026_08: &[&str] = &["execute-tool#8", "execute-tool#9"];

impl Revision {
    pub fn info(self) -> &'static RevisionInfo {
        REVISIONS
            .iter()
            .find(|r| r.revision == self)
            .expect("every revision is listed")
    }
    pub fn name(self) -> &'static str {
        self.info().name
    }
    /// Whether this text refuses callers whose agent cluster is not origin-keyed
    /// (`2026-08:register-tool#4`, `2026-08:get-tools#4`, `2026-08:execute-tool#3`).
    pub fn checks_origin_keyed(self) -> bool {
        self >= Revision::Aug2026
    }
    /// Whether `imperative-execute-steps#3` reads "If inputObject is not an Object" (the
    /// current text) rather than the double negative of 2026-08.
    pub fn tests_object_input_directly(self) -> bool {
        self == Revision::Current
    }
    /// Whether registerTool checks the name's form (`register-tool#9`) and then the
    /// description (`#10`), rather than "name or description is empty" first (2026-08).
    pub fn checks_name_and_description_apart(self) -> bool {
        self == Revision::Current
    }
    /// Whether completionSteps "run the following steps in parallel" wherever they are
    /// called (`execute-tool#16.10`, the current text) rather than asserting that they do
    /// (`2026-08:execute-tool#15.10.1`).
    pub fn completion_steps_start_in_parallel(self) -> bool {
        self == Revision::Current
    }
    /// Whether `toolactivated` (`imperative-execute-steps#4`) and `toolcancel`
    /// (`cancel-pending-execution#6.6`) fire; earlier texts fire them only in scenarios that
    /// opt in (`toolEvents`).
    pub fn fires_tool_events(self) -> bool {
        self == Revision::Current
    }
    /// Parses a revision name (`current`, `2026-08`, `pr247`).
    pub fn parse(text: &str) -> Result<Revision, VariantError> {
        REVISIONS
            .iter()
            .find(|r| r.name == text)
            .map(|r| r.revision)
            .ok_or_else(|| VariantError::UnknownRevision(text.to_string()))
    }
}

/// A proposed fix to the draft, switched on by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fix {
    pub name: &'static str,
    pub bit: u32,
    /// What the fix changes, in one sentence.
    pub summary: &'static str,
    /// The defect it fixes, as the title of a spec issue.
    pub title: &'static str,
    /// The step IDs the defect involves (each is a row of the step table).
    pub steps: &'static [&'static str],
    /// What a page or an agent observes when the defect bites.
    pub impact: &'static str,
}

impl Fix {
    /// The published text that adopted this fix, if any: from that text on, the fix
    /// changes nothing, and it is still needed under the earlier revisions.
    pub fn adopted_by(self) -> Option<Revision> {
        (self == OBJECT_CHECK).then_some(Revision::Current)
    }
}

macro_rules! fixes {
    ($($konst:ident = $bit:literal, $name:literal, $summary:literal,
       title: $title:literal, steps: [$($step:literal),* $(,)?], impact: $impact:literal;)*) => {
        $(pub const $konst: Fix = Fix {
            name: $name,
            bit: $bit,
            summary: $summary,
            title: $title,
            steps: &[$($step),*],
            impact: $impact,
        };)*
        /// Every fix the model knows; `proposed` turns all of them on.
        pub const FIXES: &[Fix] = &[$($konst),*];
    };
}

fixes! {
    OBJECT_CHECK = 0, "object-check",
        "imperative-execute-steps#3: \"If inputObject is not an Object\", without the double negative.",
        title: "imperative-execute-steps#3 refuses every object input (double negative)",
        steps: ["imperative-execute-steps#3", "execute-tool#10"],
        impact: "Every executeTool() call with an ordinary object input fails: the tool's execute callback is never invoked and the caller's promise rejects with an \"UnknownError\" DOMException, so no imperative tool can ever be run with arguments.";
    COMPLETION_IN_PARALLEL = 1, "completion-in-parallel",
        "callers on an event loop start completionSteps in parallel and callers already in parallel (unload-cleanup#2.3.2) run them to the end, so the entry is gone when unload-cleanup#2.3.5 asserts it (in the 2026-08 text, where completionSteps assert they run in parallel, the same hand-off makes that Assert hold).",
        title: "completionSteps start in parallel even when called in parallel, so the unload cleanup's Assert runs before they remove the execution",
        steps: ["execute-tool#16.10", "unload-cleanup#2.3.2", "unload-cleanup#2.3.5", "tool-execute-steps#3", "imperative-execute-steps#2", "imperative-execute-steps#3", "imperative-execute-steps#10", "2026-08:execute-tool#15.10.1"],
        impact: "When a target document unloads while its tool runs, unload-cleanup#2.3.2 starts the completion steps in a parallel block of their own and goes on to Assert that the execution is gone from the pending tool executions map, which those steps have not yet removed (the NOTE at #2.3.2.note says running them removes it); an implementation must either wait for a block the text never joins or fail the Assert. The 2026-08 text had the opposite contradiction: its completionSteps asserted they run in parallel, and every caller but the unload cleanup ran them on the target's event loop.";
    CAPTURE_TRAVERSABLE = 2, "capture-traversable",
        "each algorithm captures the traversable navigable in its synchronous steps and uses it in parallel, instead of dereferencing a node navigable that may be null by then.",
        title: "In-parallel steps dereference a document's node navigable after it may have become null",
        steps: ["register-tool#20.1", "unregister-tool#7", "get-tools#8.2", "execute-tool#15.3", "execute-tool#16.1", "execute-tool#16.12", "execute-tool#16.10.1", "execute-tool#16.10.2", "notify-tool-change#2", "unload-cleanup#1"],
        impact: "When an iframe is removed or a document navigated away while registerTool(), getTools() or executeTool() is in flight, the parallel steps read \"document's node navigable's traversable navigable\" of a document that no longer has one: the text has no answer, so the page's or agent's promise may never settle and pending executions are never cleaned up.";
    PENDING_MAP_QUEUE = 3, "pending-map-queue",
        "every block that reads or writes a pending tool executions map runs on the traversable's WebMCP parallel queue, so each block is atomic.",
        title: "Check-then-act races on the pending tool executions map",
        steps: ["cancel-pending-execution#2", "cancel-pending-execution#3", "unload-cleanup#2.2", "unload-cleanup#2.3.1", "execute-tool#16.10.1", "execute-tool#16.10.2"],
        impact: "Cancellation, completion and unload cleanup each check that an entry exists and then read or remove it in a later step, while the others run in parallel: the entry can vanish in between, so an implementation reads a missing entry (a crash or a silently dropped cancellation) and the unload cleanup's Assert can fail.";
    SINGLE_TOOL_LOOKUP = 4, "single-tool-lookup",
        "execute-tool#16.7 and #16.8 read the tool map once: \"If targetToolMap[toolName] exists, let tool definition be it; otherwise reject\".",
        title: "executeTool reads the target's tool map twice, racing unregistration",
        steps: ["execute-tool#16.7", "execute-tool#16.8"],
        impact: "If the page unregisters the tool (aborts its registration signal) between the existence check and the read, \"tool definition\" is undefined: the agent's executeTool() promise never settles instead of rejecting.";
    STORE_ONLY_LIVE_DOCUMENTS = 5, "store-only-live-documents",
        "execute-tool#16.12 rejects with UnknownError instead of storing an execution whose caller or target is not fully active.",
        title: "executeTool stores a pending execution for a document that is already unloading",
        steps: ["execute-tool#16.12", "unload-cleanup#2.2"],
        impact: "An execution stored after the unloading document cleanup collected its list is never removed: the traversable's pending tool executions map leaks the entry, and a caller's promise can stay pending forever.";
    SETTLE_ONCE = 6, "settle-once",
        "the settlement tasks queued by execute-tool#16 and completionSteps do nothing when the promise was already rejected by the abort steps.",
        title: "An aborted executeTool promise is settled a second time by the tool's result",
        steps: ["execute-tool#15.4.1", "execute-tool#16.10.3", "execute-tool#16.10.4"],
        impact: "The caller sees an AbortError, but the tool's result (or failure) is still queued to resolve or reject the same promise: harmless in JavaScript, but the text states two outcomes for one call, and an implementation that reports results to the agent can report both.";
    REMOVE_ABORT_STEPS = 7, "remove-abort-steps",
        "once an executeTool promise settles, its abort steps are removed from the signal, so a later abort() neither rejects it again nor starts a cancellation.",
        title: "executeTool's abort steps outlive the call",
        steps: ["execute-tool#15.4", "execute-tool#15.4.1", "execute-tool#15.4.2"],
        impact: "A caller that reuses or later aborts its AbortSignal after the result arrived re-runs the abort steps: a second rejection attempt on a settled promise and a cancellation of an execution that no longer exists.";
    REJECT_ON_CALLER_UNLOAD = 8, "reject-on-caller-unload",
        "unload-cleanup#2.3.3 also queues a task on the caller to reject its promise with UnknownError: a caller unloaded into the back/forward cache comes back to a settled promise instead of one pending forever.",
        title: "A caller restored from the back/forward cache waits forever for its executeTool promise",
        steps: ["unload-cleanup#2.3.3", "cancel-pending-execution#4"],
        impact: "When the calling document is unloaded into the back/forward cache, its execution is cancelled but its promise is never settled: after the user navigates back, the page's await on executeTool() never returns.";
    REJECT_ON_SELF_UNLOAD = 13, "reject-on-self-unload",
        "unload-cleanup#2.3.4 also queues a task on the document to reject its promise with UnknownError when the unloading document executed its own tool: restored from the back/forward cache, it finds its promise settled instead of pending forever.",
        title: "A document that executes its own tool and is restored from the back/forward cache waits forever",
        steps: ["unload-cleanup#2.3.4", "unload-cleanup#2.3.2", "unload-cleanup#2.3.3"],
        impact: "When the document is both the caller and the target of an execution, the unloading cleanup only removes the pending entry: neither the completion steps (target only) nor the cancellation (caller only) runs, so nothing settles the executeTool() promise. After the user navigates back, the page's await on its own tool never returns.";
    SKIP_CANCELLED_EXECUTION = 10, "skip-cancelled-execution",
        "tool-execute-steps return without invoking the tool when its pending tool execution is gone (cancelled or completed) by the time the task runs.",
        title: "A cancelled execution still invokes the tool",
        steps: ["execute-tool#16.13", "tool-execute-steps#2", "cancel-pending-execution#4"],
        impact: "The task queued at execute-tool#16.13 runs the page's execute callback even after the caller aborted and the cancellation removed the pending execution: the tool's side effects (a purchase, a sent message) happen for a call the agent has already given up on.";
    ABORT_LOCAL_ON_UNLOAD = 11, "abort-local-on-unload",
        "the unloading document cleanup steps signal abort on, and clear, the document's local pending tool executions, so tools of an unloaded document see their signal aborted.",
        title: "Unloading a tool's document does not abort its running executions",
        steps: ["unload-cleanup#1", "cancel-pending-execution#6", "cancel-pending-execution#6.5"],
        impact: "A tool whose document is destroyed mid-run never sees its AbortSignal aborted: the cancellation task is queued on a document whose event loop will never run it, so the local pending tool executions map keeps the entry and the tool gets no chance to stop.";
    CHECK_SIGNAL_BEFORE_INVOKING = 12, "check-signal-before-invoking",
        "tool-execute-steps run the completion steps with null and false, without invoking the tool, when the caller's executeTool signal is already aborted (the abort may not have reached the parallel cancellation yet); the completion steps remove the pending execution #16.12 stored.",
        title: "Aborting right after executeTool() does not stop the tool from running",
        steps: ["execute-tool#15.4.2", "cancel-pending-execution#2", "execute-tool#16.12", "tool-execute-steps#2"],
        impact: "The cancellation that abort() starts runs in parallel: when the tool's task runs it may not have run yet, or it may have looked for the pending execution before execute-tool#16.12 stored it and found nothing. Either way the tool runs for a caller whose promise already rejected with AbortError.";
    TOOL_IDENTITY = 14, "tool-identity",
        "a RegisteredTool refers (internally) to the tool definition it lists; execute-tool#16.7 and tool-execute-steps#3 treat a tool map entry that is another definition of the same name as missing.",
        title: "executeTool runs whatever tool now has the discovered name, not the tool that was discovered",
        steps: ["execute-tool#16.6", "execute-tool#16.7", "tool-execute-steps#2", "tool-execute-steps#3", "tool-execute-steps#3.note"],
        impact: "An agent lists a page's tools, then executes one of them; if the page unregistered it and registered another tool of the same name in between (another input schema, description, annotations or exposedTo), the new tool runs with arguments built for the old one, possibly for a caller the new tool is not exposed to.";
    NOTIFY_ON_UNLOAD = 15, "notify-on-unload",
        "when a document with registered tools is unloaded or its iframe removed, a toolchange event is queued at each remaining fully active document of the tab that could discover one of those tools.",
        title: "Tools disappear from getTools() without a toolchange event when their document goes away",
        steps: ["unload-cleanup#1", "notify-tool-change#2", "notify-tool-change#3.3", "get-tools#8.3"],
        impact: "A page that keeps its list of discoverable tools up to date by listening for toolchange is never told when an iframe that registered tools is removed or navigated away: its list keeps tools that getTools() no longer returns and that executeTool() now rejects.";
    KEEP_SETTLED_RESULT = 16, "keep-settled-result",
        "a pending tool execution keeps the result its tool settled with; unload-cleanup#2.3.2 runs the completion steps with that result (and true) when there is one, instead of null and false.",
        title: "A tool that completed loses its result when its document unloads before the result is delivered",
        steps: ["unload-cleanup#2.3.2", "imperative-execute-steps#10.fulfilled.5", "2026-08:execute-tool#15.10.1", "execute-tool#16.10.1"],
        impact: "Once completionSteps run in parallel (as their Assert requires), a tool can finish its work and settle, and its document be removed before the completion steps look up the pending execution: the unload cleanup completes it first with null and false, so the agent gets an \"UnknownError\" for a tool whose side effects already happened, and cannot tell it from a tool that never ran.";
    AMEND_CANCEL_NOTE = 9, "amend-cancel-note",
        "the note at cancel-pending-execution#5 says the target may be gone, in which case the queued task never runs (harmless with abort-local-on-unload).",
        title: "The note at cancel-pending-execution#5 promises a target document that may be gone",
        steps: ["cancel-pending-execution#5.note", "cancel-pending-execution#5", "unload-cleanup#2.3.3"],
        impact: "The note says targetDocument still exists when cancellation runs; with the back/forward cache it can be unloaded (and later destroyed) first, so implementers who rely on the note may queue work on a document that never runs it.";
}

impl Variant {
    /// The draft exactly as written.
    pub const SEED: Variant = Variant {
        fixes: 0,
        revision: Revision::Current,
    };

    pub fn has(self, fix: &Fix) -> bool {
        self.fixes & (1 << fix.bit) != 0
    }

    /// The published text the fixes apply to.
    pub fn revision(self) -> Revision {
        self.revision
    }

    /// The same fixes on another published text.
    pub fn at(self, revision: Revision) -> Variant {
        Variant { revision, ..self }
    }

    /// Every fix.
    pub fn proposed() -> Variant {
        Variant {
            fixes: FIXES.iter().fold(0, |m, f| m | (1 << f.bit)),
            revision: Revision::Current,
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
            ..self
        }
    }

    /// Parses `seed`, `proposed`, `seed+FIX+FIX`, or `proposed-FIX-FIX`, each optionally
    /// followed by `@REVISION` (`seed@pr247`).
    pub fn parse(text: &str) -> Result<Variant, VariantError> {
        match text.split_once('@') {
            Some((fixes, revision)) => {
                Ok(Variant::parse_fixes(fixes)?.at(Revision::parse(revision)?))
            }
            None => Variant::parse_fixes(text),
        }
    }

    fn parse_fixes(text: &str) -> Result<Variant, VariantError> {
        let (mut v, rest, on) = if let Some(rest) = text.strip_prefix("seed") {
            (Variant::SEED, rest, true)
        } else if let Some(rest) = text.strip_prefix("proposed") {
            (Variant::proposed(), rest, false)
        } else {
            return Err(VariantError::UnknownBase(text.to_string()));
        };
        if rest.is_empty() {
            return Ok(v);
        }
        let sep = if on { '+' } else { '-' };
        let Some(mut rest) = rest.strip_prefix(sep) else {
            return Err(VariantError::NoSeparator(text.to_string()));
        };
        // Fix names contain '-', so match whole names rather than splitting.
        loop {
            if rest.is_empty() {
                return Err(VariantError::EndsWithSeparator {
                    variant: text.to_string(),
                    separator: sep,
                });
            }
            let fix = FIXES.iter().find(|f| {
                rest.strip_prefix(f.name)
                    .is_some_and(|after| after.is_empty() || after.starts_with(sep))
            });
            let Some(f) = fix else {
                let name = rest.split(sep).next().unwrap_or(rest);
                return Err(VariantError::UnknownFix {
                    fix: name.to_string(),
                    variant: text.to_string(),
                });
            };
            if v.has(f) == on {
                return Err(VariantError::FixTwice {
                    fix: f.name,
                    variant: text.to_string(),
                });
            }
            v = v.with(f, on);
            match rest[f.name.len()..].strip_prefix(sep) {
                Some(after) => rest = after,
                None => break,
            }
        }
        Ok(v)
    }

    /// The shortest name that parses back to this variant: `seed+FIX...` or `proposed-FIX...`,
    /// with `@REVISION` unless the text is the current one.
    pub fn name(self) -> String {
        match self.revision {
            Revision::Current => self.fixes_name(),
            r => format!("{}@{}", self.fixes_name(), r.name()),
        }
    }

    fn fixes_name(self) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fix_parses_alone_and_round_trips() {
        for f in FIXES {
            let on = Variant::parse(&format!("seed+{}", f.name)).unwrap();
            assert!(on.has(f));
            assert_eq!(Variant::parse(&on.name()).unwrap().name(), on.name());
            let off = Variant::parse(&format!("proposed-{}", f.name)).unwrap();
            assert!(!off.has(f));
        }
        let two = format!("seed+{}+{}", FIXES[0].name, FIXES[1].name);
        assert!(Variant::parse(&two).is_ok());
    }

    #[test]
    fn a_dangling_separator_an_empty_or_a_repeated_fix_is_an_error() {
        let f = FIXES[0].name;
        for bad in [
            "seed+".to_string(),
            "proposed-".to_string(),
            format!("seed+{f}+"),
            format!("seed++{f}"),
            format!("proposed-{f}-"),
            format!("seed+{f}+{f}"),
            format!("proposed-{f}-{f}"),
            "seedling".to_string(),
            String::new(),
        ] {
            let err = Variant::parse(&bad).expect_err(&bad).to_string();
            assert!(err.contains(&format!("\"{bad}\"")), "{bad}: {err}");
        }
    }

    #[test]
    fn each_refusal_keeps_its_cause() {
        let f = FIXES[0].name;
        let cases = [
            ("seed@nope", VariantError::UnknownRevision("nope".into())),
            ("sprout", VariantError::UnknownBase("sprout".into())),
            ("seed-x", VariantError::NoSeparator("seed-x".into())),
            (
                "proposed-",
                VariantError::EndsWithSeparator {
                    variant: "proposed-".into(),
                    separator: '-',
                },
            ),
            (
                "seed+no-such-fix",
                VariantError::UnknownFix {
                    fix: "no-such-fix".into(),
                    variant: "seed+no-such-fix".into(),
                },
            ),
        ];
        for (text, cause) in cases {
            assert_eq!(Variant::parse(text), Err(cause), "{text}");
        }
        let twice = format!("seed+{f}+{f}");
        assert_eq!(
            Variant::parse(&twice),
            Err(VariantError::FixTwice {
                fix: f,
                variant: twice.clone()
            })
        );
        assert!(VariantError::UnknownRevision("x".into())
            .to_string()
            .contains("the revisions are current"));
    }
}
