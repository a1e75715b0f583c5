//! What an edit in an imported file re-solves in the files that import it,
//! counted; and that their reports are those of a check from scratch.

use std::path::Path;
use std::sync::Arc;

use tensorfit_base::Position;
use tensorfit_db::{file_report, FileReport, Host, NoImports, TextChange};
use tensorfit_semantics::{Limits, ShapeOptions};

const OPTIONS: ShapeOptions = ShapeOptions {
    limits: Limits { timeout_ms: 2000 },
    questions: true,
    language: tensorfit_semantics::Language::Tensor,
};

const LAYERS: &str = "\
fn project(x: Tensor[b, 8]) -> Tensor[b, 4] {
    let scale = 0.5
    return x @ ones(8, 4)
}

fn unused(x: Tensor[b, 3]) -> Tensor[b, 3] {
    return x
}
";

const MAIN: &str = "\
import \"layers.tensor\"

fn head(x: Tensor[b, 8]) -> Tensor[b, 4] {
    return project(x)
}

fn twice(x: Tensor[b, 8]) -> Tensor[b, 4] {
    return head(x) + project(x)
}

let out = twice(randn(2, 8)) |-> [2, 4]
";

fn open(layers: &str, main: &str) -> Host {
    let mut host = Host::new(Arc::new(NoImports), OPTIONS);
    host.set_text(Path::new("layers.tensor"), layers);
    host.set_text(Path::new("main.tensor"), main);
    host
}

fn main_report(host: &Host) -> Arc<FileReport> {
    let file = host.file(Path::new("main.tensor")).expect("open");
    file_report(host.db(), file)
}

fn text_of(host: &Host, path: &str) -> String {
    let file = host.file(Path::new(path)).expect("open");
    file.text(host.db()).to_string()
}

/// Replaces the first `old` in `layers.tensor` by `new`, as an editor
/// would, and returns how many function analyses that re-ran to bring
/// `main.tensor`'s report up to date. The report must be the one a check
/// of both texts from scratch gives.
fn edit_layers(host: &mut Host, old: &str, new: &str) -> u64 {
    main_report(host);
    let before = host.db().function_checks();
    let text = text_of(host, "layers.tensor");
    let start = text.find(old).expect("old text");
    let position = |offset: usize| Position {
        line: text[..offset].matches('\n').count() as u32,
        character: (offset - text[..offset].rfind('\n').map_or(0, |i| i + 1)) as u32,
    };
    let change = TextChange {
        range: Some((position(start), position(start + old.len()))),
        text: new.to_owned(),
    };
    host.apply_changes(Path::new("layers.tensor"), &[change])
        .expect("open");
    let incremental = main_report(host);
    let checks = host.db().function_checks() - before;
    let scratch = open(&text_of(host, "layers.tensor"), MAIN);
    assert_eq!(
        *incremental,
        *main_report(&scratch),
        "the incremental report differs from a check from scratch"
    );
    checks
}

fn error_messages(report: &FileReport) -> Vec<String> {
    report
        .diagnostics
        .iter()
        .map(|d| d.message.clone())
        .collect()
}

#[test]
fn the_importing_file_checks_clean_against_the_imported_one() {
    let host = open(LAYERS, MAIN);
    assert_eq!(error_messages(&main_report(&host)), Vec::<String>::new());
}

#[test]
fn typing_in_an_imported_body_that_keeps_its_summary_re_solves_it_alone() {
    let mut host = open(LAYERS, MAIN);
    // Only `project` itself is analysed again; its callers in main.tensor
    // keep their results, since its summary is unchanged.
    assert_eq!(edit_layers(&mut host, "0.5", "0.25"), 1);
    assert_eq!(edit_layers(&mut host, "0.25", "0.125 * 2.0"), 1);
}

#[test]
fn typing_in_another_imported_function_re_solves_nothing_in_the_importer() {
    let mut host = open(LAYERS, MAIN);
    // main.tensor never calls `unused`, so checking it never analyses it.
    assert_eq!(
        edit_layers(&mut host, "return x\n", "let y = x\n    return y\n"),
        0
    );
}

#[test]
fn a_changed_imported_result_re_solves_its_callers_and_is_reported() {
    let mut host = open(LAYERS, MAIN);
    let declared_4 = "-> Tensor[b, 4] {\n    let scale = 0.5\n    return x @ ones(8, 4)";
    let declared_6 = "-> Tensor[b, 6] {\n    let scale = 0.5\n    return x @ ones(8, 6)";
    // project, then head and twice that call it (the script is not a
    // counted function analysis).
    assert_eq!(edit_layers(&mut host, declared_4, declared_6), 3);
    let errors = error_messages(&main_report(&host));
    assert!(
        !errors.is_empty(),
        "a result of [b, 6] where [b, 4] is declared must be reported"
    );
    assert_eq!(edit_layers(&mut host, declared_6, declared_4), 3);
    assert_eq!(error_messages(&main_report(&host)), Vec::<String>::new());
}

/// Callers see the declared result type (LANGUAGE.md §5): a body that
/// breaks it is the callee's own error, and its callers are not re-solved.
#[test]
fn a_body_that_breaks_its_declared_result_is_its_own_error() {
    let mut host = open(LAYERS, MAIN);
    assert_eq!(edit_layers(&mut host, "ones(8, 4)", "ones(8, 6)"), 1);
    assert_eq!(error_messages(&main_report(&host)), Vec::<String>::new());
    let layers = host.file(Path::new("layers.tensor")).expect("open");
    let messages = error_messages(&file_report(host.db(), layers));
    assert!(
        messages
            .iter()
            .any(|m| m.contains("but its result type is Tensor[b, 4]")),
        "{messages:?}"
    );
}
