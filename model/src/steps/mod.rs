//! Step IDs of the draft (`spec/webmcp-algorithms.md`), as one table.
//!
//! Transitions cite steps with [`s!`](crate::s), which resolves the ID at compile time: a typo in a
//! step ID is a build error, not a silent gap in coverage.

mod table;

pub use table::STEPS;

/// What a row of the step table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StepKind {
    /// An algorithm step that does something.
    Step,
    /// An `Assert:` step: checked where it runs.
    Assert,
    /// A struct or dictionary item built inside a step (`register-tool#18[name]`).
    Item,
    /// A note attached to a step; some claim guarantees and become properties.
    Note,
    /// An issue paragraph: future work named by the draft.
    Issue,
    /// A worked example.
    Example,
    /// A `TODO` step with no content to model.
    Todo,
}

impl StepKind {
    /// Whether a transition can execute this row (steps and asserts), as opposed to prose.
    pub const fn is_executable(self) -> bool {
        matches!(self, StepKind::Step | StepKind::Assert)
    }
}

/// One row of the step table.
#[derive(Clone, Copy, Debug)]
pub struct StepInfo {
    pub id: &'static str,
    pub kind: StepKind,
    pub summary: &'static str,
}

/// An index into [`STEPS`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct StepId(pub u16);

impl StepId {
    pub fn info(self) -> &'static StepInfo {
        &STEPS[self.0 as usize]
    }
    pub fn id(self) -> &'static str {
        self.info().id
    }
    /// The algorithm slug: `execute-tool` for `execute-tool#16.10.1` (and for
    /// `2026-08:execute-tool#3`).
    pub fn algorithm(self) -> &'static str {
        let id = self.id();
        let id = id.split_once(':').map_or(id, |(_, rest)| rest);
        id.split('#').next().unwrap_or(id)
    }
    /// The earlier text a step belongs to, for a step the current text removed
    /// (`2026-08` for `2026-08:register-tool#4`); `None` for a step of the current text.
    pub fn removed_since(self) -> Option<&'static str> {
        self.id().split_once(':').map(|(revision, _)| revision)
    }
    /// Looks a step up by its ID at run time (for traces read from files).
    pub fn parse(id: &str) -> Option<StepId> {
        STEPS
            .iter()
            .position(|s| s.id == id)
            .map(|i| StepId(i as u16))
    }
    /// Completion steps carry two IDs in the draft; this gives the alias, if any.
    pub fn alias(self) -> Option<String> {
        self.id()
            .strip_prefix("execute-tool#16.10.")
            .map(|rest| format!("execute-tool.completion-steps#{rest}"))
            .or_else(|| {
                self.id()
                    .strip_prefix("2026-08:execute-tool#15.10.")
                    .map(|rest| format!("2026-08:execute-tool.completion-steps#{rest}"))
            })
    }
}

impl std::fmt::Display for StepId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Finds a step by ID; in a const context an unknown ID fails the build.
pub const fn step(id: &str) -> StepId {
    let mut i = 0;
    while i < STEPS.len() {
        if str_eq(STEPS[i].id, id) {
            return StepId(i as u16);
        }
        i += 1;
    }
    panic!("unknown step ID");
}

/// `s!("execute-tool#16.10.1")`: a [`StepId`] checked at compile time.
#[macro_export]
macro_rules! s {
    ($id:literal) => {{
        const STEP: $crate::steps::StepId = $crate::steps::step($id);
        STEP
    }};
}
