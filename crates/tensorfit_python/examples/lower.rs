//! Prints what the Python front end makes of a file, as the lowering
//! snapshots do: `cargo run -p tensorfit_python --example lower -- FILE`.
//! For reading how a construct reaches the engine while working on it.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: lower FILE.py");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("{path}: {error}");
            std::process::exit(1);
        }
    };
    let tree = tensorfit_python::parse_tree(&text, None);
    let parse = tensorfit_python::lower_tree(&tree, &text);
    print!("{}", tensorfit_syntax::dump::source_file(&parse.file));
}
