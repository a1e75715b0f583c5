//! Files that change on disk while they are not open in the editor: an
//! import of a file created later finds it, one of a file deleted misses
//! it, and a change of an imported file's text is seen.

mod support;

use std::path::Path;
use std::sync::Arc;

use support::Disk;
use tensorfit_db::{file_report, DiskChange, Host};
use tensorfit_semantics::{Limits, ShapeOptions};

const OPTIONS: ShapeOptions = ShapeOptions {
    limits: Limits { timeout_ms: 2000 },
    questions: true,
    language: tensorfit_semantics::Language::Tensor,
};

const MAIN: &str = "\
import \"layers.tensor\"

let y = project(randn(2, 8)) |-> [2, 4]
";

const LAYERS: &str = "\
fn project(x: Tensor[b, 8]) -> Tensor[b, 4] {
    return x @ ones(8, 4)
}
";

fn codes(host: &Host) -> Vec<&'static str> {
    let file = host.file(Path::new("main.tensor")).expect("open");
    file_report(host.db(), file)
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect()
}

fn host(disk: &Arc<Disk>) -> Host {
    let mut host = Host::new(disk.clone(), OPTIONS);
    host.set_text(Path::new("main.tensor"), MAIN);
    host
}

/// `layers.tensor` on disk and `main.tensor` open, checking clean.
fn layers_on_disk() -> (Arc<Disk>, Host) {
    let disk = Arc::new(Disk::default());
    disk.write("layers.tensor", LAYERS);
    let host = host(&disk);
    assert_eq!(codes(&host), Vec::<&str>::new());
    (disk, host)
}

fn assert_import_missed(host: &Host) {
    let codes = codes(host);
    assert!(codes.contains(&"import-not-found"), "{codes:?}");
}

#[test]
fn an_import_of_a_file_created_later_finds_it() {
    let disk = Arc::new(Disk::default());
    let mut host = host(&disk);
    assert_import_missed(&host);

    disk.write("layers.tensor", LAYERS);
    host.disk_changed(Path::new("layers.tensor"), DiskChange::Created);
    assert_eq!(codes(&host), Vec::<&str>::new());
}

#[test]
fn an_import_of_a_deleted_file_misses_it() {
    let (disk, mut host) = layers_on_disk();

    disk.delete("layers.tensor");
    host.disk_changed(Path::new("layers.tensor"), DiskChange::Deleted);
    assert_import_missed(&host);
}

#[test]
fn a_change_of_an_imported_file_on_disk_is_seen() {
    let (disk, mut host) = layers_on_disk();

    disk.write(
        "layers.tensor",
        &LAYERS.replace("4]", "5]").replace("8, 4", "8, 5"),
    );
    host.disk_changed(Path::new("layers.tensor"), DiskChange::Changed);
    assert_eq!(codes(&host), ["shape-mismatch"]);
}

#[test]
fn an_open_buffer_wins_over_the_disk() {
    let disk = Arc::new(Disk::default());
    let mut host = host(&disk);
    host.set_text(Path::new("layers.tensor"), LAYERS);
    assert_eq!(codes(&host), Vec::<&str>::new());

    // Deleted on disk, but the editor still has it open and unsaved.
    host.disk_changed(Path::new("layers.tensor"), DiskChange::Deleted);
    assert_eq!(codes(&host), Vec::<&str>::new());

    // Closed: the file is gone, so the import misses.
    host.close(Path::new("layers.tensor"));
    host.disk_changed(Path::new("layers.tensor"), DiskChange::Deleted);
    assert_import_missed(&host);
}

#[test]
fn a_change_that_leaves_the_text_as_it_was_re_solves_nothing() {
    let (_disk, mut host) = layers_on_disk();
    let before = host.db().function_checks();
    host.disk_changed(Path::new("layers.tensor"), DiskChange::Changed);
    codes(&host);
    assert_eq!(host.db().function_checks(), before);
}

#[test]
fn a_file_deleted_and_created_again_keeps_its_input() {
    // Salsa never frees an input: a new one at each re-creation would keep
    // the old one's results for the rest of the session.
    let (disk, mut host) = layers_on_disk();
    let layers = Path::new("layers.tensor");
    let input = host.file(layers).expect("loaded by the import");

    for round in 0..3 {
        disk.delete("layers.tensor");
        host.disk_changed(layers, DiskChange::Deleted);
        assert_import_missed(&host);
        assert_eq!(host.file(layers), None, "deleted, round {round}");

        let text = if round % 2 == 0 {
            LAYERS.replace("4]", "5]").replace("8, 4", "8, 5")
        } else {
            LAYERS.to_owned()
        };
        disk.write("layers.tensor", &text);
        host.disk_changed(layers, DiskChange::Created);
        let expected: &[&str] = if round % 2 == 0 {
            &["shape-mismatch"]
        } else {
            &[]
        };
        assert_eq!(codes(&host), expected, "round {round}");
        assert_eq!(host.file(layers), Some(input), "round {round}");
    }
}

#[test]
fn a_document_opened_after_an_import_missed_it_is_found() {
    let disk = Arc::new(Disk::default());
    let mut host = host(&disk);
    assert_import_missed(&host);

    // Never on disk: a new buffer the editor opens.
    host.set_text(Path::new("layers.tensor"), LAYERS);
    assert_eq!(codes(&host), Vec::<&str>::new());
}
