//! The prelude is an input of the database: giving it another one changes
//! what names resolve and which contracts calls are checked against, and
//! re-runs the analyses that read it; giving it the same one re-runs
//! nothing.

use std::path::Path;
use std::sync::Arc;

use tensorfit_db::{file_report, Host, NoImports};
use tensorfit_semantics::{Limits, Prelude, ShapeOptions, PRELUDE_SOURCE};

const OPTIONS: ShapeOptions = ShapeOptions {
    limits: Limits { timeout_ms: 2000 },
    questions: true,
    language: tensorfit_semantics::Language::Tensor,
};

/// A program that calls an operation the built-in prelude lacks.
const PROGRAM: &str = "\
fn distances(a: Tensor[n, d], b: Tensor[m, d]) -> Tensor[n, m] {
    return pairwise(a, b)
}

let ok = distances(randn(4, 8), randn(5, 8))
let bad = pairwise(randn(4, 8), randn(6, 3))
";

/// The built-in prelude and one more operation.
fn extended_prelude() -> Arc<Prelude> {
    let source = format!(
        "{PRELUDE_SOURCE}\nextern fn pairwise(x: Tensor[n, d], y: Tensor[m, d]) -> Tensor[n, m]\n"
    );
    let prelude = Prelude::parse(source);
    assert_eq!(prelude.diagnostics, vec![]);
    Arc::new(prelude)
}

fn messages(host: &Host) -> Vec<String> {
    let file = host.file(Path::new("main.tensor")).expect("open");
    file_report(host.db(), file)
        .diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.code.as_str(), d.message))
        .collect()
}

fn checks_to_report(host: &Host) -> (Vec<String>, u64) {
    let before = host.db().function_checks();
    let messages = messages(host);
    (messages, host.db().function_checks() - before)
}

#[test]
fn an_operation_the_prelude_lacks_is_an_unknown_function() {
    let mut host = Host::new(Arc::new(NoImports), OPTIONS);
    host.set_text(Path::new("main.tensor"), PROGRAM);
    let (messages, _) = checks_to_report(&host);
    assert!(
        messages.iter().all(|m| m.starts_with("unknown-function"))
            && messages.iter().filter(|m| m.contains("`pairwise`")).count() == 2,
        "{messages:#?}"
    );
}

#[test]
fn a_new_prelude_resolves_its_operations_and_checks_their_contracts() {
    let mut host = Host::new(Arc::new(NoImports), OPTIONS);
    host.set_text(Path::new("main.tensor"), PROGRAM);
    checks_to_report(&host);

    host.set_prelude(extended_prelude());
    let (messages, checks) = checks_to_report(&host);
    // The only error left is the call whose arguments break the new
    // contract: their second dimensions are 8 and 3.
    assert_eq!(messages.len(), 1, "{messages:#?}");
    assert!(
        messages[0].contains('8') && messages[0].contains('3'),
        "{messages:#?}"
    );
    assert!(
        checks >= 1,
        "the function that calls `pairwise` is re-solved"
    );

    // The same prelude again changes nothing and re-solves nothing.
    host.set_prelude(extended_prelude());
    let (again, checks) = checks_to_report(&host);
    assert_eq!((again, checks), (messages, 0));

    // And the built-in one brings the first report back.
    host.set_prelude(Prelude::builtin_shared().clone());
    let (builtin, _) = checks_to_report(&host);
    assert!(
        builtin.iter().all(|m| m.starts_with("unknown-function")),
        "{builtin:#?}"
    );
}

#[test]
fn a_prelude_with_a_syntax_error_keeps_the_operations_it_declares() {
    let prelude = Prelude::parse(
        "extern fn good(x: Tensor[n]) -> Tensor[n]\nextern fn broken(x: Tensor[n) ->\n",
    );
    assert!(!prelude.diagnostics.is_empty());
    assert!(prelude.signature("good").is_some());
    assert!(prelude.function("good").is_some());
}
