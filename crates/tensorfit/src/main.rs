//! The `tensorfit` command (see docs/cli.md).

mod args;
mod check;
mod output;
mod run;

use std::process::ExitCode;

use args::Command;

/// Counted, so that `tensorfit run` bounds the memory of all its tensors
/// together (`--max-elements`).
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
        Ok(Command::Run(options)) => tensorfit_base::with_analysis_stack(|| run::run(&options)),
        Ok(Command::Lsp) => {
            tensorfit_lsp::run_stdio();
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("tensorfit: {message}\n\n{}", args::USAGE);
            ExitCode::from(2)
        }
    }
}
