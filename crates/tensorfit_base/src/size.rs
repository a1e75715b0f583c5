//! How much of a file is read.

/// The most bytes of a file that are parsed and checked. A longer file is
/// read up to the last top-level statement or item that starts before
/// this, and the report says where the rest begins: the largest model
/// files of the libraries tensorfit reads are under 200 KB, and a file of
/// 30,000 small modules (4.8 MB) took 14 s and 1 GB.
pub const MAX_CHECKED_BYTES: usize = 1 << 20;
