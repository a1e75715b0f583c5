//! Fuzzing tensorfit from outside, as its users' inputs reach it: the
//! mutation driver runs `tensorfit check` on mutated programs, one process
//! each (a stack overflow cannot be caught inside), and the session fuzzer
//! drives `tensorfit lsp` through random editing sessions; the
//! pathological programs grow one structure each to a chosen size, and
//! the crowd opens many documents and huge ones and ends sessions every
//! way a client can. See
//! `docs/testing.md` for the commands and the measured figures.

pub mod child;
pub mod crowd;
pub mod lsp_client;
pub mod mutants;
pub mod mutate;
pub mod pathological;
pub mod programs;
pub mod rng;
pub mod session;
pub mod text_model;
