//! The names PyTorch gives its operations: the modules of `torch.nn`, the
//! functions of `torch.nn.functional` and `torch`, the methods of
//! `torch.Tensor` (PyTorch 1.13, written by `scripts/pytorch-names.py`).
//!
//! A name the Tensor language does not know is a typo unless PyTorch has
//! it: then it is an operation the prelude does not model yet, and saying
//! "did you mean" would send the user to a different operation.

use std::sync::OnceLock;

const NAMES: &str = include_str!("pytorch_names.txt");

/// Whether PyTorch has an operation, module or tensor method of this name.
pub(crate) fn is_pytorch_name(name: &str) -> bool {
    static SORTED: OnceLock<Vec<&'static str>> = OnceLock::new();
    let sorted = SORTED.get_or_init(|| {
        let mut names: Vec<&str> = NAMES.lines().collect();
        names.sort_unstable();
        names
    });
    sorted.binary_search(&name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytorch_names_are_known_and_others_are_not() {
        for name in ["LSTMCell", "cumsum", "lstsq", "Conv2d", "softmax", "view"] {
            assert!(is_pytorch_name(name), "{name}");
        }
        for name in ["sofmax", "frobnicate", "", "_private"] {
            assert!(!is_pytorch_name(name), "{name}");
        }
    }
}
