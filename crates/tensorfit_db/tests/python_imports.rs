//! Imports between a workspace's Python files (PYTHON.md §1): `from
//! .blocks import Block` and `from models.blocks import Block` reach the
//! workspace's file, whose classes and functions the importer then checks
//! against; what is not found, renamed or not defined there stays unknown
//! and silent.

mod support;

use std::path::Path;
use std::sync::Arc;

use support::Disk;
use tensorfit_db::{file_report, Host};
use tensorfit_semantics::{Limits, ShapeOptions};

const OPTIONS: ShapeOptions = ShapeOptions {
    limits: Limits { timeout_ms: 4000 },
    questions: true,
    language: tensorfit_semantics::Language::Tensor,
};

const BLOCKS: &str = "\
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))
";

/// A workspace with `models/blocks.py` on disk.
fn workspace(files: &[(&str, &str)]) -> Host {
    let disk = Arc::new(Disk::default());
    disk.write("models/blocks.py", BLOCKS);
    let mut host = Host::new(disk, OPTIONS);
    for (path, text) in files {
        host.set_text(Path::new(path), text);
    }
    host
}

fn messages(host: &Host, path: &str) -> Vec<String> {
    let file = host.file(Path::new(path)).expect("open");
    file_report(host.db(), file)
        .diagnostics
        .iter()
        .map(|d| d.message.clone())
        .collect()
}

fn shape_of(host: &Host, path: &str, name: &str) -> Option<String> {
    let file = host.file(Path::new(path)).expect("open");
    file_report(host.db(), file)
        .findings
        .bindings
        .iter()
        .find(|b| b.name.as_deref() == Some(name) && b.function.is_none())
        .map(|b| b.shape.clone())
}

const RELATIVE: &str = "\
import torch
from .blocks import Block

block = Block(8, 32)
good = block(torch.randn(4, 8))
bad = block(torch.randn(4, 9))
";

#[test]
fn a_relative_import_reaches_the_packages_file() {
    let host = workspace(&[("models/net.py", RELATIVE)]);
    assert_eq!(
        shape_of(&host, "models/net.py", "good").as_deref(),
        Some("Tensor[4, 8]")
    );
    let messages = messages(&host, "models/net.py");
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("`nn.Linear` gets the wrong number of input features"),
        "{messages:?}"
    );
}

#[test]
fn an_absolute_import_is_looked_for_above_the_file() {
    let train = "\
import torch
from models.blocks import Block

out = Block(8, 32)(torch.randn(4, 8))
";
    let host = workspace(&[("scripts/train.py", train), ("train.py", train)]);
    // From the project's root, and from a directory beside `models`.
    assert_eq!(
        shape_of(&host, "train.py", "out").as_deref(),
        Some("Tensor[4, 8]")
    );
    assert_eq!(
        shape_of(&host, "scripts/train.py", "out").as_deref(),
        Some("Tensor[4, 8]")
    );
}

#[test]
fn what_is_not_found_or_not_defined_there_is_unknown_and_a_renamed_item_is_followed() {
    let text = "\
import torch
from numpy import zeros
from .blocks import Block as B, torch as t2, nn
from .missing import Thing

a = zeros(3)
b = B(8, 32)(torch.randn(4, 9))
c = Thing(3)(torch.randn(2, 2))
";
    let host = workspace(&[("models/other.py", text)]);
    // `B` is `Block` of `blocks.py`, whose `Linear(8, ...)` refuses 9
    // features; nothing else is known.
    assert_eq!(
        messages(&host, "models/other.py"),
        vec![
            "this call of `Block.forward` fails: `nn.Linear` gets the wrong number of input \
             features: x.shape[-1] = 9 but in_features = 8"
                .to_owned()
        ]
    );
    // `zeros` is numpy's, not the prelude's: no tensor.
    assert_eq!(shape_of(&host, "models/other.py", "a"), None);
}

#[test]
fn files_that_import_each_other_are_checked() {
    let a = "\
import torch
from torch import nn
from .b import helper_b


def helper_a(x):
    return x.view(x.size(0), -1)


y = helper_a(torch.randn(2, 3, 4))
";
    let b = "\
import torch
from .a import helper_a


def helper_b(x):
    return helper_a(x)
";
    let host = workspace(&[("models/a.py", a), ("models/b.py", b)]);
    assert_eq!(messages(&host, "models/a.py"), Vec::<String>::new());
    assert_eq!(messages(&host, "models/b.py"), Vec::<String>::new());
    assert_eq!(
        shape_of(&host, "models/a.py", "y").as_deref(),
        Some("Tensor[2, 12]")
    );
}

#[test]
fn an_edit_of_the_imported_file_is_seen() {
    let mut host = workspace(&[("models/net.py", RELATIVE)]);
    assert_eq!(messages(&host, "models/net.py").len(), 1);
    // The block now takes 9 features: the call with 9 is right, the one
    // with 8 wrong.
    host.set_text(
        Path::new("models/blocks.py"),
        &BLOCKS.replace("nn.Linear(dim, hidden)", "nn.Linear(dim + 1, hidden)"),
    );
    let messages = messages(&host, "models/net.py");
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("= 8 but in_features = 9"),
        "{messages:?}"
    );
}

const HEADS: &str = "\
import torch


def head(x, classes):
    weight = torch.randn(x.shape[-1], classes)
    return x @ weight
";

#[test]
fn an_imported_function_is_summarised_again_for_the_numbers_a_call_passes() {
    let net = "\
import torch
from .heads import head

scores = head(torch.randn(4, 6), 3)
wide = head(torch.randn(4, 6), 10)
";
    let mut host = workspace(&[("models/heads.py", HEADS), ("models/net.py", net)]);
    assert_eq!(
        shape_of(&host, "models/net.py", "scores").as_deref(),
        Some("Tensor[4, 3]")
    );
    assert_eq!(
        shape_of(&host, "models/net.py", "wide").as_deref(),
        Some("Tensor[4, 10]")
    );
    assert_eq!(messages(&host, "models/net.py"), Vec::<String>::new());
    // The helper's body changes: its callers in other files see the new
    // body, and a requirement of it that a call breaks fails at that call.
    host.set_text(
        Path::new("models/heads.py"),
        &HEADS.replace(
            "torch.randn(x.shape[-1], classes)",
            "torch.randn(6 + classes, classes)",
        ),
    );
    let messages = messages(&host, "models/net.py");
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages
            .iter()
            .all(|m| m.contains("this call of `head` fails")),
        "{messages:?}"
    );
}

/// A workspace with an installed package below `site/` (the search path):
/// `pkg/__init__.py` re-exports `pkg/layers.py` with `import *`, and a
/// `torch/nn/functional.py` stands for an installed torch.
fn with_site_packages(importer: &str) -> Host {
    let disk = Arc::new(Disk::default());
    disk.write("site/pkg/__init__.py", "from .layers import *\n");
    disk.write("site/pkg/layers.py", BLOCKS);
    disk.write(
        "site/torch/nn/functional.py",
        "def relu(x):\n    return x.view(-1)\n",
    );
    let mut host = Host::new(disk, OPTIONS);
    host.set_text(Path::new("project/train.py"), importer);
    host
}

#[test]
fn installed_packages_are_followed_through_search_paths_and_re_exports() {
    let train = "\
import torch
from pkg import Block
from torch.nn.functional import relu

out = Block(8, 32)(torch.randn(4, 8))
kept = relu(torch.randn(4, 8))
bad = Block(8, 32)(torch.randn(4, 9))
";
    let mut host = with_site_packages(train);
    // Without search paths, `pkg` is not found: unknown and silent.
    assert_eq!(shape_of(&host, "project/train.py", "out"), None);
    assert_eq!(messages(&host, "project/train.py"), Vec::<String>::new());
    host.set_python_paths(vec!["site".into()]);
    assert_eq!(
        shape_of(&host, "project/train.py", "out").as_deref(),
        Some("Tensor[4, 8]")
    );
    let messages = messages(&host, "project/train.py");
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("= 9 but in_features = 8"),
        "{messages:?}"
    );
    // `torch` is modelled: never read from the search path.
    assert_eq!(
        shape_of(&host, "project/train.py", "kept").as_deref(),
        Some("Tensor[4, 8]")
    );
}

#[test]
fn an_installed_librarys_imports_of_other_libraries_are_not_followed() {
    // `pkg.layers` calls a helper of its own package and one of another
    // installed library; the user's file calls both through `pkg`.
    let disk = Arc::new(Disk::default());
    disk.write("lib/site-packages/pkg/__init__.py", "");
    disk.write(
        "lib/site-packages/pkg/layers.py",
        "\
from pkg.helpers import halve
from other import quarter


def own(x):
    return halve(x)


def foreign(x):
    return quarter(x)
",
    );
    disk.write(
        "lib/site-packages/pkg/helpers.py",
        "def halve(x):\n    return x[:, :4]\n",
    );
    disk.write(
        "lib/site-packages/other/__init__.py",
        "def quarter(x):\n    return x[:, :2]\n",
    );
    let train = "\
import torch
from pkg.layers import own, foreign

a = own(torch.randn(3, 8))
b = foreign(torch.randn(3, 8))
";
    let mut host = Host::new(disk, OPTIONS);
    host.set_text(Path::new("project/train.py"), train);
    host.set_python_paths(vec!["lib/site-packages".into()]);
    // Its own package's module is read (an absolute import of `pkg`)...
    assert_eq!(
        shape_of(&host, "project/train.py", "a").as_deref(),
        Some("Tensor[3, 4]")
    );
    // ...another library's is not: unknown, as anything not modelled.
    assert_eq!(shape_of(&host, "project/train.py", "b"), None);
    assert_eq!(messages(&host, "project/train.py"), Vec::<String>::new());
}
