//! The `tensorfit` command (see docs/cli.md).

mod args;
mod check;
mod output;
mod run;

use std::process::ExitCode;

use args::Command;

/// Counting where asked: `tensorfit run` bounds the memory of all its
/// tensors together (`--max-elements`); the server reports its heap to
/// memory tests when started with `TENSORFIT_COUNT_HEAP=1`.
#[global_allocator]
static ALLOCATOR: tensorfit_base::CountingAllocator = tensorfit_base::CountingAllocator;

fn main() -> ExitCode {
    match args::parse(std::env::args().skip(1)) {
        Ok(Command::Version) => {
            println!("tensorfit {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Ok(Command::Help) => {
            print!("{}", args::USAGE);
            ExitCode::SUCCESS
        }
        // Both follow the program's structure recursively: on a stack
        // sized for the checker's depth bounds.
        Ok(Command::Check(options)) => tensorfit_base::with_analysis_stack(|| check::run(&options)),
        Ok(Command::Run(options)) => {
            tensorfit_base::count_heap();
            tensorfit_base::with_analysis_stack(|| run::run(&options))
        }
        Ok(Command::Lsp) => {
            if std::env::var_os("TENSORFIT_COUNT_HEAP").is_some_and(|v| v == "1") {
                tensorfit_base::count_heap();
            }
            tensorfit_lsp::run_stdio()
        }
        Err(message) => {
            eprintln!("tensorfit: {message}\n\n{}", args::USAGE);
            ExitCode::from(2)
        }
    }
}
