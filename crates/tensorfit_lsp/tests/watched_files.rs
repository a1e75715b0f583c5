//! Files imported but not open change on disk: the server asks the client
//! to watch them and checks the open documents again when told.

mod support;

use std::path::PathBuf;

use serde_json::{json, Value};
use support::Client;

/// A directory of its own for each test, emptied first.
fn workspace(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tensorfit-watch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn uri(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect()
}

const MAIN: &str = "\
import \"layers.tensor\"

let y = project(randn(2, 8)) |-> [2, 4]
";

const LAYERS: &str = "\
fn project(x: Tensor[b, 8]) -> Tensor[b, 4] {
    return x @ ones(8, 4)
}
";

async fn watched(client: &mut Client, file: &std::path::Path, kind: u32) {
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": uri(file), "type": kind}]}),
        )
        .await;
}

#[tokio::test]
async fn the_server_asks_a_client_that_can_to_watch_tensor_files() {
    let capabilities =
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut client = Client::start_as(Value::Null, capabilities).await;
    let request = client.wait_for("client/registerCapability").await;
    let registration = &request["params"]["registrations"][0];
    assert_eq!(registration["method"], "workspace/didChangeWatchedFiles");
    assert_eq!(
        registration["registerOptions"]["watchers"][0]["globPattern"],
        "**/*.tensor"
    );
}

#[tokio::test]
async fn a_client_that_cannot_is_not_asked() {
    let mut client = Client::start().await;
    // A request sent on `initialized` goes out when its handler starts,
    // long before a document opened afterwards has been checked.
    client.open(LAYERS).await;
    client.diagnostics(1).await;
    assert_eq!(client.take_received("client/registerCapability"), None);
}

#[tokio::test]
async fn an_imported_file_created_changed_and_deleted_on_disk() {
    let dir = workspace("lifecycle");
    let main = dir.join("main.tensor");
    let layers = dir.join("layers.tensor");
    let mut client = Client::start().await;
    client.open_at(&uri(&main), MAIN).await;
    assert!(codes(&client.diagnostics(1).await).contains(&"import-not-found"));

    std::fs::write(&layers, LAYERS).unwrap();
    watched(&mut client, &layers, 1).await;
    assert_eq!(codes(&client.diagnostics(1).await), Vec::<&str>::new());

    std::fs::write(
        &layers,
        LAYERS.replace("b, 4]", "b, 5]").replace("8, 4", "8, 5"),
    )
    .unwrap();
    watched(&mut client, &layers, 2).await;
    assert_eq!(codes(&client.diagnostics(1).await), ["shape-mismatch"]);

    std::fs::remove_file(&layers).unwrap();
    watched(&mut client, &layers, 3).await;
    assert!(codes(&client.diagnostics(1).await).contains(&"import-not-found"));
    let _ = std::fs::remove_dir_all(&dir);
}
