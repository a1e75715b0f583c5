//! Checks of the workspace as a whole: its documentation and the shape of
//! its code. One test binary (docs/testing.md).

mod documented_codes;
mod module_cycles;
