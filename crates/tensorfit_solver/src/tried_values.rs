//! The values the searches before Z3 try: the uniform assignments of
//! `candidates.rs` and the ranks both it and the repair search of
//! `repair.rs` go through.

/// The uniform values tried, in order.
pub(crate) const CANDIDATES: &[i64] = &[1, 2, 3, 4, 8, 64];

/// The ranks tried with each of [`CANDIDATES`] for the other atoms, when
/// no uniform value fits and only satisfiability is asked: a tensor of a
/// rank fixed by the program (3 or 4) whose dimensions must be at least 5
/// has no uniform model, and such sets sent every convolutional model's
/// check to Z3 (making a context for it costs more than the rest of the
/// check).
pub(crate) const RANKS: &[i64] = &[0, 1, 2, 3, 4, 5, 6];
