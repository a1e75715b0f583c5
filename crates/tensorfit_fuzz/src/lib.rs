//! Fuzzing tensorfit from outside, as its users' inputs reach it: the
//! mutation driver runs `tensorfit check` on mutated programs, one process
//! each (a stack overflow cannot be caught inside), and the session fuzzer
//! drives `tensorfit lsp` through random editing sessions. See
//! `docs/testing.md` for the commands and the measured figures.

pub mod child;
pub mod lsp_client;
pub mod mutants;
pub mod mutate;
pub mod programs;
pub mod rng;
pub mod session;
pub mod text_model;
