//! What a program means where Python and the Tensor language differ, as
//! named choices: the executor and the rules ask what a construct means
//! ("does every value have a truth?"), never which language wrote it.
//! Where the difference is one of operations, the tree says it instead
//! (`BinaryOp::TrueDiv` is Python's `/`, `BinaryOp::Div` the Tensor
//! language's).
//! Each language's choices are one constant below; a third front end
//! would add its own, and a difference that appears later is one more
//! field, documented where it is decided.
//!
//! How things are *written* (the spelling of a message, `//` or `/`) is
//! not here: that is the file's language, told to the message writers.

use tensorfit_base::Language;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Semantics {
    /// A float literal has its value (Python's `width_mult = 0.75` decides
    /// sizes); the Tensor language's floats never decide a shape.
    pub floats_have_values: bool,
    /// Every value has a truth, not only a boolean: Python's empty
    /// containers, `None`, `0` and `""` are false.
    pub every_value_has_a_truth: bool,
    /// `a and b`, `a or b` give an operand, and `b` is not evaluated where
    /// `a` decides (`self.memory_efficient and self.any_requires_grad(x)`).
    pub and_or_short_circuit: bool,
    /// Strings, tuples and lists have operators (`+`, `*`, `%`
    /// formatting); in the Tensor language they are unknown.
    pub sequences_have_operators: bool,
    /// Containers and objects are shared: a callee, `__init__` included,
    /// may change a list, dict or object it is given (`exec::in_place`).
    pub callees_change_arguments: bool,
    /// A tensor's items are followed where code computes with them
    /// (`torch.tensor(data)`, `t.tolist()`: `shapes::elements`).
    pub tensors_keep_items: bool,
    /// A parameter without a type may be any value, not only a tensor: a
    /// slice step a tensor refuses may be a list's, and guards that refute
    /// the tensor reading make the function say nothing.
    pub untyped_parameters_may_be_any_value: bool,
    /// A value lost over a loop or condition that known numbers decide is
    /// worked out again at each call that passes those numbers (a builder's
    /// `for i in range(depth)`: `Summary::numbers_decide`).
    pub calls_redo_with_known_numbers: bool,
    /// The operations are PyTorch's where PyTorch and the Tensor
    /// language's prelude differ: a size may be 0 (an empty tensor), and
    /// `arange` may count down.
    pub pytorch_operations: bool,
}

impl Semantics {
    /// Python's, with PyTorch's operations (PYTHON.md).
    pub const PYTHON: Semantics = Semantics {
        floats_have_values: true,
        every_value_has_a_truth: true,
        and_or_short_circuit: true,
        sequences_have_operators: true,
        callees_change_arguments: true,
        tensors_keep_items: true,
        untyped_parameters_may_be_any_value: true,
        calls_redo_with_known_numbers: true,
        pytorch_operations: true,
    };

    /// The Tensor language's (LANGUAGE.md).
    pub const TENSOR: Semantics = Semantics {
        floats_have_values: false,
        every_value_has_a_truth: false,
        and_or_short_circuit: false,
        sequences_have_operators: false,
        callees_change_arguments: false,
        tensors_keep_items: false,
        untyped_parameters_may_be_any_value: false,
        calls_redo_with_known_numbers: false,
        pytorch_operations: false,
    };

    /// The choices of a file's language.
    pub fn of(language: Language) -> Semantics {
        match language {
            Language::Python => Semantics::PYTHON,
            Language::Tensor => Semantics::TENSOR,
        }
    }
}

#[cfg(test)]
mod tests {
    /// The analysis asks a [`super::Semantics`] what a construct means; the
    /// language is asked only where a message is written (the two files
    /// below, whose quoting moves to the `ide` layer's spelling next).
    #[test]
    fn meaning_is_asked_of_the_semantics_not_of_the_language() {
        const WRITING_MESSAGES: [&str; 2] = ["exec/spelling.rs", "check.rs"];
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/shapes");
        // Built here, so that this test does not find itself.
        let asks = [
            [".is_", "python()"].concat(),
            [".follows_", "pytorch()"].concat(),
        ];
        let mut dirs = vec![root.clone()];
        let mut offenders = Vec::new();
        let mut writers = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("the shapes directory") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("readable");
                if !asks.iter().any(|a| text.contains(a.as_str())) {
                    continue;
                }
                let relative = path.strip_prefix(&root).expect("under the root");
                let relative = relative.to_string_lossy().replace('\\', "/");
                match WRITING_MESSAGES.contains(&relative.as_str()) {
                    true => writers += 1,
                    false => offenders.push(relative),
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "ask `Semantics` instead: {offenders:?}"
        );
        // The exceptions are real, else the list is stale.
        assert_eq!(writers, WRITING_MESSAGES.len());
    }

    #[test]
    fn each_language_has_its_choices() {
        use super::Semantics;
        use tensorfit_base::Language;
        assert_eq!(Semantics::of(Language::Python), Semantics::PYTHON);
        assert_eq!(Semantics::of(Language::Tensor), Semantics::TENSOR);
    }
}
