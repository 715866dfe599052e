//! The exit codes of each command, as `--help` shows them.

pub const TOP: &str = "\
Exit codes: 0 success (every property held), 1 a property was violated or a trace or browser run
diverged, 2 bad usage or input (one line on stderr), 3 incomplete (a bound stopped the work; never
a pass). Each command's --help says what they mean for it. A reader that closes standard output
early stops the printing, not the run: the exit code is still what the run found.

Environment: WEBMCP_CHROMIUM, else CHROMIUM, names the Chromium binary of the browser commands
and tests (default /usr/bin/chromium); WEBMCP_REQUIRE_BROWSER=1 makes the browser tests fail, not
skip, when Chromium or the polyfills are missing.";

pub const CHECK: &str = "\
Exit codes:
  0  every property held (or was witnessed, or is not reachable) and every search was exhaustive
  1  a property was violated (with --baseline: one the baseline does not list)
  2  bad usage or input: an unknown name, a malformed scenario or baseline file, a bad value;
     or a trace that could not be written (every scenario is still checked and reported, and a
     violation keeps its 1)
  3  incomplete: a bound (--max-states, --max-depth, --timeout, --memory-limit) stopped a search,
     --mode sim took random walks, or (--engine timely) a process or worker of the run failed;
     undecided properties are never reported as held
A --shard that holds no scenario decides nothing: it says so on stderr and exits 3, never a pass
(`merge` judges the whole run).";

pub const LIST: &str = "\
Exit codes: 0 listed, 2 bad usage.";

pub const WRITE: &str = "\
Exit codes: 0 written, 2 bad usage or input (including an output that cannot be written),
3 a bound stopped the work.";

pub const BENCH: &str = "\
Exit codes: 0 written (with --targets: every target met), 1 (--targets) a target was missed,
2 bad usage or input (including an output that cannot be written), 3 a bound stopped the work
(with --targets: a bound left a target undecided).";

pub const COVERAGE: &str = "\
Exit codes: 0 every executable step is reached or unreachable by construction, 1 some step is
reached by no scenario, 2 bad usage, 3 incomplete: --memory-limit stopped some scenario's
exploration (its counts are a lower bound; a step it did not reach may be reachable).";

pub const REPLAY: &str = "\
Exit codes: 0 the trace replays on the model (every state and its verdict), 1 the trace does not
replay (the first divergence is printed), 2 the file is unreadable, malformed or too large.";

pub const MINIMIZE: &str = "\
Exit codes: 0 written, and no shorter run shows the verdict; 1 the trace does not replay (the first
divergence is printed, nothing is written); 2 the file is unreadable, malformed or too large, or
OUT cannot be written; 3 written and 1-minimal, but the search for a shorter run stopped at its
bound (300,000 states, named in the output), so a shorter run may exist.";

pub const CONFORMANCE: &str = "\
Verdicts: conforms, conforms-only-under-seed, diverges, inconclusive (a statement the
observation depends on did not run, a timeout, an incomplete model), not-implemented.

Exit codes: 0 every run conforms (or conforms only under seed), or diverges or is not
implemented as conformance/analysis.json explains for its build; 1 an unexplained divergence;
2 bad usage or a missing browser or polyfill; 3 otherwise, when a run was inconclusive or not
implemented without an explanation. A --shard that holds no scenario exits 3, never a pass
(`merge` judges the whole run).

With --wpt-dir: 1 a recorded trace is not allowed, 3 a trace was not judged or undecided or a
file gave no testharness result, else 0 (testharness.js's results are reported, not judged).

Environment: WEBMCP_CHROMIUM, else CHROMIUM, names the Chromium binary when --chromium is not
given; else Debian's /usr/bin/chromium.";

pub const VALIDATE: &str = "\
Exit codes: 0 the model allows the log under seed or proposed, 1 it allows it under neither,
2 bad usage or an unreadable or malformed log, 3 a search stopped at --max-states, --timeout
or --memory-limit (the stop named; 3 even where the other variant allows the log), or the log
asks for what the model cannot express (one page at a time, at most the model's limits).";

pub const RECORD: &str = "\
Serving: every file of --dir on both origins (http://127.0.0.1:P1, the page's, and
http://localhost:P2) at the same path; in text files {{first-origin}} and {{second-origin}}
become those origins' URLs; FILE.headers holds `Name: value` lines sent with FILE.

Exit codes: 0 the log is written and the pages went quiet; 2 bad usage or input (a missing,
oversized or unreadable directory or page, a missing browser or polyfill, an unwritable log);
3 the log is written but incomplete (the pages did not go quiet within --page-timeout,
reported nothing, reported more events than the recorder keeps, had a report refused or
malformed, had a document without document.modelContext, or inserted a frame whose document
never reported). Quiet is --quiet seconds (2) without a report: what a page
does after that long a silence is not recorded (docs/trace-validation.md).

Environment: WEBMCP_CHROMIUM, else CHROMIUM, names the Chromium binary when --chromium is not
given; else Debian's /usr/bin/chromium.";

pub const LEGACY_CONFORMANCE: &str = "\
Verdicts: conforms, diverges, inconclusive (the page timed out, failed or did not run on the
polyfill); a scenario without a browser schedule is not run.

Exit codes: 0 every run conforms, 1 a run diverges, 2 bad usage or a missing browser or
polyfill, 3 otherwise, when a run was inconclusive.

Environment: WEBMCP_CHROMIUM, else CHROMIUM, names the Chromium binary when --chromium is not
given; else Debian's /usr/bin/chromium.";

pub const MUTANTS: &str = "\
Exit codes: 0 the mutation score is at least --min-score, 1 it is below, 2 bad usage, 3 a bound
stopped a check, so a mutant is undecided. A --shard that holds no mutant exits 3, never a pass
(`merge` judges the whole run).";

pub const EXPLORE: &str = "\
Serving: http://127.0.0.1:PORT/ only (never another interface), printed on stdout; it runs until
interrupted (Ctrl-C). Bad requests (an unknown action, a stale or too long path) get an HTTP
error with a message; they never stop the server.

Exit codes: 0 the server stopped; 2 bad usage or input (one line on stderr): an unknown
scenario or variant, an unreadable or malformed scenario or trace file, a trace that does not
replay or is longer than 10000 actions, a port that cannot be bound.";
