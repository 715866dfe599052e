//! One module per algorithm of the draft. Each function executes the steps it names and
//! records their IDs; a thread's `*_step` function runs exactly one interleaving step.

pub mod cancel_pending_execution;
pub mod completion_steps;
pub mod execute_tool;
pub mod get_tools;
pub mod imperative_execute_steps;
pub mod model_context_getter;
pub mod notify_tool_change;
pub mod perform_observation;
pub mod register_tool;
pub mod tool_execute_steps;
pub mod tool_exposed_to_origin;
pub mod unload_cleanup;
pub mod unregister_tool;
