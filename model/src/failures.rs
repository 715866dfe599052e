//! Why an `executeTool()` promise can reject, as the draft writes it: each cause, the step
//! that detects it, the step that settles the promise, and the error a page sees.
//!
//! Several causes settle through the completion steps (`execute-tool#16.10.4`), so the step
//! that settled a promise does not name its cause; this table does. `docs/properties.md`
//! groups it by error, which shows the causes a page cannot tell apart.
//! `profiles/tests/vacuity.rs` checks it against the model: every rejection the standard
//! suite reaches is a row's (settling step, error), and every row's cause is detected.

/// One cause of rejection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The step whose check fails.
    pub detected_at: &'static str,
    /// The step that rejects the promise.
    pub settled_at: &'static str,
    /// The error's name, as `Reason::name` gives it.
    pub error: &'static str,
    /// The cause, for a page author.
    pub cause: &'static str,
}

const fn f(
    detected_at: &'static str,
    settled_at: &'static str,
    error: &'static str,
    cause: &'static str,
) -> Failure {
    Failure {
        detected_at,
        settled_at,
        error,
        cause,
    }
}

/// Every way the draft as written (`seed`) rejects an `executeTool()` promise.
pub const EXECUTE_FAILURES: &[Failure] = &[
    f(
        "execute-tool#1",
        "execute-tool#1",
        "TypeError",
        "inputObject is not an object (WebIDL conversion)",
    ),
    f(
        "execute-tool#2",
        "execute-tool#2",
        "InvalidStateError",
        "the caller is not fully active",
    ),
    f(
        "2026-08:execute-tool#3",
        "2026-08:execute-tool#3",
        "SecurityError",
        "the caller's agent cluster is not origin-keyed",
    ),
    f(
        "execute-tool#3",
        "execute-tool#3",
        "NotAllowedError",
        "the caller may not use the \"tools\" feature",
    ),
    f(
        "execute-tool#5",
        "execute-tool#5",
        "NotSupportedError",
        "the tool's origin does not parse, or is opaque",
    ),
    f(
        "execute-tool#10",
        "execute-tool#10",
        "TypeError",
        "serializing inputObject throws a TypeError (a cycle, a BigInt)",
    ),
    f(
        "execute-tool#10",
        "execute-tool#10",
        "Error",
        "serializing inputObject rethrows what a toJSON threw",
    ),
    f(
        "execute-tool#15.2",
        "execute-tool#15.2",
        "AbortError",
        "the signal was already aborted",
    ),
    f(
        "execute-tool#15.4.1",
        "execute-tool#15.4.1",
        "AbortError",
        "the signal is aborted while the call is under way",
    ),
    f(
        "execute-tool#16.1",
        "execute-tool#16.1",
        "UnknownError",
        "the tool's window is in another tab than the caller",
    ),
    f(
        "execute-tool#16.4",
        "execute-tool#16.4",
        "UnknownError",
        "the tool's origin is not its window's origin",
    ),
    f(
        "execute-tool#16.7",
        "execute-tool#16.7",
        "UnknownError",
        "no tool of that name is registered (now)",
    ),
    f(
        "execute-tool#16.9",
        "execute-tool#16.9",
        "UnknownError",
        "the tool is not exposed to the caller's origin",
    ),
    f(
        "tool-execute-steps#3",
        "execute-tool#16.10.4",
        "UnknownError",
        "the tool was unregistered before its task ran",
    ),
    f(
        "imperative-execute-steps#3",
        "execute-tool#16.10.4",
        "UnknownError",
        "the input is not an object (under the 2026-08 text, whose double negative refused objects instead)",
    ),
    f(
        "imperative-execute-steps#10.fulfilled.4",
        "execute-tool#16.10.4",
        "UnknownError",
        "the tool's result does not serialize",
    ),
    f(
        "imperative-execute-steps#10.rejected.5",
        "execute-tool#16.10.4",
        "UnknownError",
        "the tool's execute callback rejected or threw",
    ),
    f(
        "unload-cleanup#2.3.2",
        "execute-tool#16.10.4",
        "UnknownError",
        "the tool's document was unloaded before the result was delivered",
    ),
];
