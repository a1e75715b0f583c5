//! What an edit re-solves, counted; and that incremental results are the
//! results of checking the edited text from scratch.

use std::path::Path;
use std::sync::Arc;

use tensorfit_base::Position;
use tensorfit_db::file_report;
use tensorfit_db::{FileReport, Host, NoImports, TextChange};
use tensorfit_semantics::{Limits, ShapeOptions};

const OPTIONS: ShapeOptions = ShapeOptions {
    limits: Limits { timeout_ms: 2000 },
    questions: true,
    language: tensorfit_semantics::Language::Tensor,
};

/// A leaf, two functions calling it, an entry point calling those, and an
/// unrelated function with an error; a script calling the entry point.
const PROGRAM: &str = "\
fn leaf(x: Tensor[b, 8]) -> Tensor[b, 4] {
    let lr = 0.1
    return x @ ones(8, 4)
}

fn left(x: Tensor[b, 8]) -> Tensor[b, 4] {
    return leaf(x)
}

fn right(x: Tensor[b, 8]) -> Tensor[b, 4] {
    return leaf(x) + 1.0
}

fn entry(x: Tensor[2, 8]) -> Tensor[2, 4] {
    return left(x) + right(x)
}

fn broken(y: Tensor[3, 5]) -> Tensor[3, 5] {
    return y @ ones(4, 5)
}

let out = entry(randn(2, 8))
";

fn open(text: &str) -> (Host, tensorfit_db::SourceFile) {
    let mut host = Host::new(Arc::new(NoImports), OPTIONS);
    let file = host.set_text(Path::new("main.tensor"), text);
    (host, file)
}

fn report(host: &Host, file: tensorfit_db::SourceFile) -> Arc<FileReport> {
    file_report(host.db(), file)
}

fn from_scratch(text: &str) -> Arc<FileReport> {
    let (host, file) = open(text);
    report(&host, file)
}

/// Replaces the first `old` after `after` by `new`, as an editor would.
fn edit(host: &mut Host, after: &str, old: &str, new: &str) -> String {
    let text = host.db_text();
    let from = text.find(after).expect("anchor");
    let start = from + text[from..].find(old).expect("old text");
    let position = |offset: usize| {
        let line = text[..offset].matches('\n').count() as u32;
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        Position {
            line,
            character: text[line_start..offset].encode_utf16().count() as u32,
        }
    };
    let change = TextChange {
        range: Some((position(start), position(start + old.len()))),
        text: new.to_owned(),
    };
    host.apply_changes(Path::new("main.tensor"), &[change])
        .expect("the document is open");
    let mut edited = text.clone();
    edited.replace_range(start..start + old.len(), new);
    edited
}

trait Text {
    fn db_text(&self) -> String;
}

impl Text for Host {
    fn db_text(&self) -> String {
        let file = self.file(Path::new("main.tensor")).expect("open");
        file.text(self.db()).to_string()
    }
}

/// Runs an edit and returns how many function analyses it re-ran.
fn checks_for(host: &mut Host, change: impl FnOnce(&mut Host) -> String) -> (u64, String) {
    let file = host.file(Path::new("main.tensor")).unwrap();
    report(host, file);
    let before = host.db().function_checks();
    let edited = change(host);
    let after_report = report(host, file);
    assert_eq!(
        *after_report,
        *from_scratch(&edited),
        "the incremental report differs from a check from scratch"
    );
    (host.db().function_checks() - before, edited)
}

#[test]
fn a_cold_check_analyses_every_function_once() {
    let (host, file) = open(PROGRAM);
    let report = report(&host, file);
    assert_eq!(host.db().function_checks(), 5);
    assert!(
        report.diagnostics.iter().any(|d| d
            .message
            .contains("y.shape[-1] = 5 but ones(4, 5).shape[-2] = 4")),
        "{:#?}",
        report.diagnostics
    );
}

#[test]
fn text_between_functions_moves_them_without_re_solving() {
    let (mut host, _) = open(PROGRAM);
    let (checks, _) = checks_for(&mut host, |h| {
        edit(h, "fn leaf", "fn leaf", "// a comment\n\n\nfn leaf")
    });
    assert_eq!(checks, 0, "no function's own text changed");
}

#[test]
fn an_edit_that_keeps_the_summary_re_solves_only_that_function() {
    let (mut host, _) = open(PROGRAM);
    // A float nobody uses: the body's syntax changes, its summary does not.
    let (checks, _) = checks_for(&mut host, |h| edit(h, "fn leaf", "0.1", "0.2"));
    assert_eq!(checks, 1, "only `leaf` itself");
}

/// Typing that changes a body's length moves the ranges of the facts after
/// it. Summaries hold anchors instead of those ranges, so the callers are
/// not re-solved; what they report is moved with the text.
#[test]
fn typing_that_only_moves_a_body_re_solves_that_function_alone() {
    let (mut host, _) = open(PROGRAM);
    let (checks, _) = checks_for(&mut host, |h| edit(h, "fn leaf", "0.1", "0.125 * 2.0"));
    assert_eq!(
        checks, 1,
        "`leaf` only, not its callers `left`, `right`, `entry`"
    );
    let (checks, _) = checks_for(&mut host, |h| {
        edit(h, "fn broken", "return y", "let z = y\n    return z")
    });
    assert_eq!(checks, 1, "only `broken`: nothing calls it");
}

/// A caller's error that points into its callee follows the callee's text
/// when the callee is not re-solved.
#[test]
fn a_callers_error_follows_the_callee_it_points_into() {
    let program = "\
fn leaf(x: Tensor[b, n]) -> Tensor[b, 4] {
    let lr = 0.1
    let w = ones(8, 4)
    return x @ w
}

fn caller(x: Tensor[2, 9]) -> Tensor[2, 4] {
    let y = leaf(x)
    return y
}
";
    let (mut host, file) = open(program);
    let failing_side = |host: &Host| {
        let report = report(host, file);
        let error = report
            .diagnostics
            .iter()
            .find(|d| d.message.contains("w.shape[-2] = 8"))
            .expect("the call of `leaf` fails");
        let related = error.related.first().expect("it points into `leaf`");
        let text = host.db_text();
        text[related.range.start as usize..related.range.end as usize].to_owned()
    };
    assert_eq!(failing_side(&host), "x @ w");
    let (checks, _) = checks_for(&mut host, |h| edit(h, "fn leaf", "0.1", "0.125 * 2.0"));
    assert_eq!(checks, 1, "`leaf` moved, its summary did not change");
    assert_eq!(failing_side(&host), "x @ w");
    let (checks, _) = checks_for(&mut host, |h| {
        edit(h, "fn leaf", "let lr", "let first = 1\n    let lr")
    });
    assert_eq!(checks, 1, "a new unused statement moves `leaf` only");
    assert_eq!(failing_side(&host), "x @ w");
}

#[test]
fn typing_in_a_method_re_solves_that_method_alone() {
    let program = "\
struct Net {
    fc = Linear(8, 4)
    fn forward(self, x: Tensor[b, 8]) -> Tensor[b, 4] {
        let scale = 0.5
        return self.fc(x)
    }
    fn head(self, x: Tensor[b, 8]) -> Tensor[b, 4] {
        return self.forward(x)
    }
}

let y = Net().head(randn(2, 8))
";
    let (mut host, _) = open(program);
    let (checks, _) = checks_for(&mut host, |h| {
        edit(h, "fn forward", "0.5", "0.5 * 0.5 * 0.5")
    });
    assert_eq!(
        checks, 1,
        "`Net.forward` moved; its caller `Net.head` is spared"
    );
    let (checks, _) = checks_for(&mut host, |h| {
        edit(h, "fn forward", "0.5 * 0.5 * 0.5", "0.25")
    });
    assert_eq!(checks, 1, "only `Net.forward`: it moved back");
}

#[test]
fn an_edit_that_changes_the_summary_re_solves_the_callers() {
    let (mut host, _) = open(PROGRAM);
    let (checks, _) = checks_for(&mut host, |h| {
        edit(h, "fn leaf", "ones(8, 4)", "ones(8, 6)")
    });
    // `leaf`, its callers `left` and `right`, whose summaries change with
    // it (they carry `leaf`'s facts), so `entry` too; not `broken`.
    assert_eq!(checks, 4);
    let (checks, _) = checks_for(&mut host, |h| {
        edit(h, "fn broken", "ones(4, 5)", "ones(5, 5)")
    });
    assert_eq!(checks, 1, "nothing calls `broken`");
}

#[test]
fn many_edits_in_a_row_agree_with_checks_from_scratch() {
    let (mut host, _) = open(PROGRAM);
    let steps: [(&str, &str, &str); 6] = [
        ("fn right", "+ 1.0", "+ leaf(x)"),
        ("fn entry", "Tensor[2, 8]", "Tensor[2, 9]"),
        ("fn entry", "Tensor[2, 9]", "Tensor[2, 8]"),
        ("fn broken", "return y", "let z = y\n    return z"),
        ("fn left", "leaf(x)", "leaf("),
        ("fn left", "leaf(", "leaf(x)"),
    ];
    for (after, old, new) in steps {
        checks_for(&mut host, |h| edit(h, after, old, new));
    }
}

/// A script of three statements that share no variable: three groups.
const SCRIPT: &str = "\
fn double(x: Tensor[n, 4]) -> Tensor[n, 4] {
    return x + x
}

let a = double(randn(2, 4))
let b = randn(3, 5) @ randn(5, 7)
let c = double(randn(6, 4)) |-> [6, 4]
";

/// Runs an edit and returns how many script groups it re-analysed; the
/// report must be the one a check from scratch gives.
fn script_checks_for(host: &mut Host, after: &str, old: &str, new: &str) -> u64 {
    let file = host.file(Path::new("main.tensor")).unwrap();
    report(host, file);
    let before = host.db().script_checks();
    let edited = edit(host, after, old, new);
    assert_eq!(*report(host, file), *from_scratch(&edited));
    host.db().script_checks() - before
}

#[test]
fn typing_in_a_script_statement_re_solves_its_group_alone() {
    let (host, file) = open(SCRIPT);
    report(&host, file);
    assert_eq!(host.db().script_checks(), 3, "three independent groups");
    let (mut host, _) = open(SCRIPT);
    // `b` grows, so `c` moves in the text; `a` and `c` are not re-solved.
    assert_eq!(
        script_checks_for(&mut host, "let b", "randn(3, 5)", "randn(3, 5) * 2.0"),
        1
    );
    assert_eq!(script_checks_for(&mut host, "let b", "7)", "70)"), 1);
    // Text between the statements moves them without re-solving any.
    assert_eq!(
        script_checks_for(&mut host, "let c", "let c", "// c\nlet c"),
        0
    );
}

/// Functions whose claim the solver cannot decide in time (factoring a
/// product of two primes near a million), and one it can.
fn undecidable_in_time(count: usize) -> String {
    let mut text =
        String::from("fn light(x: Tensor[n, 4]) -> Tensor[n, 4] {\n    return x + x\n}\n");
    for i in 0..count {
        text.push_str(&format!(
            "\nfn hard{i}(x: Tensor[a, b]) where a > 1, b > 1 {{\n    assert a * b == 999962000357\n    return x\n}}\n"
        ));
    }
    text
}

/// Entry points cut short by the file's time budget, which the ones before
/// them used up, are analysed again at the next edit; the others are kept.
#[test]
fn entry_points_starved_by_the_file_budget_are_analysed_again_after_an_edit() {
    use tensorfit_semantics::LimitKind;
    // 300 ms per query: each hard function takes two time-outs, and the
    // file's budget (2 s) runs out before the fifth.
    let options = ShapeOptions {
        limits: Limits { timeout_ms: 300 },
        questions: true,
        language: tensorfit_semantics::Language::Tensor,
    };
    let mut host = Host::new(Arc::new(NoImports), options);
    let file = host.set_text(Path::new("main.tensor"), &undecidable_in_time(5));
    let starved = |host: &Host| -> Vec<String> {
        let report = file_report(host.db(), file);
        report
            .findings
            .limits
            .iter()
            .filter(|l| l.kind == LimitKind::FileTime)
            .filter_map(|l| l.function.clone())
            .collect()
    };
    let first = starved(&host);
    assert!(!first.is_empty(), "the file's budget cut no entry point");
    assert!(
        report(&host, file).diagnostics.is_empty(),
        "no error without proof"
    );
    let before = host.db().function_checks();
    edit(&mut host, "fn light", "x + x", "x * 2.0");
    starved(&host);
    assert_eq!(
        host.db().function_checks() - before,
        1 + first.len() as u64,
        "`light` and the starved {first:?} again, not the others"
    );
}

/// Diagnostics without their positions, sorted: what must not depend on
/// the order of declarations.
fn messages(diagnostics: &[tensorfit_base::Diagnostic]) -> Vec<String> {
    let mut found: Vec<String> = diagnostics
        .iter()
        .map(|d| format!("{:?}: {}", d.code, d.message))
        .collect();
    found.sort();
    found
}

/// Items are order-independent: functions that call each other get the
/// same diagnostics in every order of their declarations, from the
/// database (one function at a time, cached) and from a one-off check.
#[test]
fn mutual_recursion_is_decided_whatever_the_order_of_declarations() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/programs/engine/mutual_recursion.tensor"
    );
    let text = std::fs::read_to_string(path).unwrap();
    // The program's items, each with the comments before it.
    let items: Vec<&str> = text.split("\n\n").collect();
    assert!(items.len() >= 6, "{} items", items.len());
    let mut orders: Vec<Vec<usize>> = vec![(0..items.len()).collect()];
    orders.push((0..items.len()).rev().collect());
    // Every rotation too: each function first once.
    for shift in 1..items.len() {
        orders.push(
            (0..items.len())
                .map(|i| (i + shift) % items.len())
                .collect(),
        );
    }
    let mut expected: Option<Vec<String>> = None;
    for order in orders {
        let reordered: Vec<&str> = order.iter().map(|i| items[*i].trim_end()).collect();
        let reordered = reordered.join("\n\n") + "\n";
        let from_database = messages(&from_scratch(&reordered).diagnostics);
        let parse = tensorfit_syntax::parse(&reordered);
        let one_off = tensorfit_semantics::check_shapes(&parse.file, &[], OPTIONS);
        let one_off = messages(&one_off.diagnostics);
        assert_eq!(from_database, one_off, "order {order:?}");
        match &expected {
            None => {
                assert_eq!(from_database.len(), 2, "{from_database:#?}");
                expected = Some(from_database);
            }
            Some(expected) => assert_eq!(&from_database, expected, "order {order:?}"),
        }
    }
}

/// The name checks resolve a piece's names again only when the piece's
/// text (or the declarations it sees) changes: typing in a body resolves
/// that function alone, typing in the script the script alone.
#[test]
fn typing_in_a_body_resolves_the_names_of_that_piece_alone() {
    let (mut host, file) = open(PROGRAM);
    report(&host, file);
    // Five functions and the script.
    assert_eq!(host.db().name_resolutions(), 6);
    for (after, old, new, what) in [
        ("fn leaf", "0.1", "0.125 * 2.0", "`leaf`"),
        (
            "fn broken",
            "return y",
            "let z = y\n    return z",
            "`broken`",
        ),
        ("let out", "randn(2, 8)", "randn(2, 4 + 4)", "the script"),
    ] {
        let before = host.db().name_resolutions();
        let edited = edit(&mut host, after, old, new);
        assert_eq!(*report(&host, file), *from_scratch(&edited));
        assert_eq!(
            host.db().name_resolutions() - before,
            1,
            "only {what} is resolved again"
        );
    }
    // A new parameter changes the declarations every piece sees: all are
    // checked again, and the calls of `leaf` now miss an argument.
    let before = host.db().name_resolutions();
    let edited = edit(
        &mut host,
        "fn leaf",
        "x: Tensor[b, 8])",
        "x: Tensor[b, 8], k: Int)",
    );
    let report = report(&host, file);
    assert_eq!(*report, *from_scratch(&edited));
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.message.contains("missing the argument `k`")),
        "{:#?}",
        report.diagnostics
    );
    assert_eq!(host.db().name_resolutions() - before, 6);
}

/// A claim that fails for a call of a function is not assumed in the
/// function's own view (its shapes and holes), which is analysed once
/// more; when the calls change so that it holds, the view is the outcome
/// again. Edits elsewhere that leave it refuted analyse nothing again.
#[test]
fn a_claim_refuted_by_a_call_is_not_assumed_in_its_function() {
    const CLAIMED: &str = "\
fn pooled(x: Tensor[n, 5, h, w]) -> Tensor {
    let m = max_pool2d(x, kernel_size: 4) |-> [n, 5, 16, 16]
    return flatten(m, start_dim: 1)
}

let out = pooled(zeros([2, 5, 32, 32]))
";
    let flattened = |report: &FileReport| -> String {
        report
            .findings
            .bindings
            .iter()
            .find(|b| b.name.as_deref() == Some("m"))
            .expect("m is shown")
            .shape
            .clone()
    };
    let (mut host, file) = open(CLAIMED);
    let refuted = report(&host, file);
    assert_eq!(flattened(&refuted), "Tensor[n, 5, h / 4, w / 4]");
    assert_eq!(
        refuted.diagnostics.len(),
        2,
        "the claim and the call: {:#?}",
        refuted.diagnostics
    );
    // The summary and the view.
    assert_eq!(host.db().function_checks(), 2);
    let (checks, _) = checks_for(&mut host, |h| edit(h, "let out", "out", "result"));
    assert_eq!(checks, 0, "the claim is refuted as before");
    let (checks, _) = checks_for(&mut host, |h| edit(h, "let result", "32, 32", "64, 64"));
    assert_eq!(
        checks, 0,
        "the outcome is the view again, kept from the start"
    );
    let holds = report(&host, file);
    assert_eq!(flattened(&holds), "Tensor[n, 5, 16, 16]");
    assert!(holds.diagnostics.is_empty(), "{:#?}", holds.diagnostics);
}

/// A PyTorch file is cut into pieces like a `.tensor` file: typing inside
/// `forward` re-analyses that method alone, and the result is what a check
/// from scratch gives.
mod python {
    use super::*;

    const MODEL: &str = "\
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.fc = nn.Linear(8, width)

    def forward(self, x):
        scale = 0.5
        return self.fc(x) * scale


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        return self.out(x)


def pipeline(x):
    return Head()(Encoder()(x))


logits = pipeline(torch.randn(2, 8))
";

    fn path() -> &'static Path {
        Path::new("model.py")
    }

    fn replace(host: &mut Host, old: &str, new: &str) -> String {
        let file = host.file(path()).expect("open");
        let text = file.text(host.db()).to_string();
        let start = text.find(old).expect("old text");
        let position = |offset: usize| Position {
            line: text[..offset].matches('\n').count() as u32,
            character: (offset - text[..offset].rfind('\n').map_or(0, |i| i + 1)) as u32,
        };
        let change = TextChange {
            range: Some((position(start), position(start + old.len()))),
            text: new.to_owned(),
        };
        host.apply_changes(path(), &[change]).expect("open");
        let mut edited = text;
        edited.replace_range(start..start + old.len(), new);
        edited
    }

    fn fresh(text: &str) -> Arc<FileReport> {
        let mut host = Host::new(Arc::new(NoImports), OPTIONS);
        let file = host.set_text(path(), text);
        file_report(host.db(), file)
    }

    /// Applies an edit that breaks the model: the report equals a fresh
    /// check's and says `in_features`, after one or two analyses (the
    /// edited method and what calls it).
    fn breaking_edit_re_analyses_its_method(host: &mut Host, old: &str, new: &str) {
        let file = host.file(path()).expect("open");
        let before = host.db().function_checks();
        let edited = replace(host, old, new);
        let report = file_report(host.db(), file);
        let rerun = host.db().function_checks() - before;
        assert!((1..=2).contains(&rerun), "{rerun} analyses");
        assert_eq!(*report, *fresh(&edited));
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.message.contains("in_features")),
            "{:#?}",
            report.diagnostics
        );
    }

    #[test]
    fn typing_in_forward_re_analyses_that_method_alone() {
        let mut host = Host::new(Arc::new(NoImports), OPTIONS);
        let file = host.set_text(path(), MODEL);
        let cold = file_report(host.db(), file);
        assert!(cold.diagnostics.is_empty(), "{:#?}", cold.diagnostics);
        let cold_checks = host.db().function_checks();
        assert!(
            cold_checks >= 3,
            "{cold_checks} analyses for three functions"
        );

        let before = host.db().function_checks();
        let edited = replace(&mut host, "scale = 0.5", "scale = 0.25 * 2.0");
        let report = file_report(host.db(), file);
        assert_eq!(
            host.db().function_checks() - before,
            1,
            "`Encoder.forward` only"
        );
        assert_eq!(*report, *fresh(&edited));

        // A change that breaks the model is found, and only the edited
        // method and what calls it are analysed again.
        breaking_edit_re_analyses_its_method(
            &mut host,
            "self.fc(x) * scale",
            "self.fc(x)[:, :8] * scale",
        );
    }

    const CONFIGURED: &str = "\
import torch
import torch.nn as nn
from dataclasses import dataclass


@dataclass
class Config:
    width: int = 16


class Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.fc = nn.Linear(8, config.width)

    def forward(self, x):
        return self.fc(x)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        return self.out(x)


logits = Head()(Encoder(Config())(torch.randn(2, 8)))
";

    /// A module built from a config is summarised for its instance in its
    /// callers' analyses (its placeholder summary knows no fields): an
    /// edit of its `forward` must reach them, and must not re-run methods
    /// it does not touch.
    #[test]
    fn a_method_summarised_for_its_instance_follows_edits_of_its_body() {
        let mut host = Host::new(Arc::new(NoImports), OPTIONS);
        let file = host.set_text(path(), CONFIGURED);
        let cold = file_report(host.db(), file);
        assert!(cold.diagnostics.is_empty(), "{:#?}", cold.diagnostics);

        breaking_edit_re_analyses_its_method(
            &mut host,
            "return self.fc(x)\n",
            "return torch.cat([self.fc(x), x], dim=1)\n",
        );
    }
}

/// With diagnostics first (the server), diagnostics cost one analysis of
/// each function's checks and nothing more; the report then analyses each
/// for everything. An edit in one function checks that one again.
#[test]
fn diagnostics_first_analyse_only_the_checks_before_the_report() {
    let (mut host, file) = open(PROGRAM);
    host.set_diagnostics_first(true);
    let diagnostics = tensorfit_db::file_diagnostics(host.db(), file);
    assert_eq!(
        host.db().function_checks(),
        5,
        "the checks of five functions"
    );
    report(&host, file);
    assert_eq!(
        host.db().function_checks(),
        10,
        "and then their whole analyses"
    );
    // The same diagnostics as the whole analyses give alone.
    assert_eq!(&*diagnostics, &from_scratch(PROGRAM).diagnostics[..]);
    edit(&mut host, "fn broken", "ones(4, 5)", "ones(5, 5)");
    let before = host.db().function_checks();
    assert!(tensorfit_db::file_diagnostics(host.db(), file).is_empty());
    assert_eq!(host.db().function_checks() - before, 1, "`broken`'s checks");
}

/// Diagnostics from the checks alone are the diagnostics of the whole
/// analysis (what the command line reports), for every example model and
/// program of the papers.
#[test]
fn diagnostics_first_report_what_the_whole_analysis_reports() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut compared = 0;
    for dir in [
        "examples/models",
        "tests/programs/papers",
        "tests/programs/migration",
    ] {
        for entry in std::fs::read_dir(root.join(dir)).expect("the repository's programs") {
            let path = entry.expect("an entry").path();
            if path.extension().is_none_or(|e| e != "tensor") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a program");
            let (whole_host, whole_file) = open(&text);
            let whole = report(&whole_host, whole_file);
            let (mut host, file) = open(&text);
            host.set_diagnostics_first(true);
            let first = tensorfit_db::file_diagnostics(host.db(), file);
            assert_eq!(&*first, &whole.diagnostics[..], "{}", path.display());
            compared += 1;
        }
    }
    assert!(compared >= 15, "{compared} programs");
}
