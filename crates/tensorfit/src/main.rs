//! The `tensorfit` command (see docs/cli.md).

mod args;
mod check;
mod output;
mod run;

use std::process::ExitCode;

use args::Command;

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
        Ok(Command::Check(options)) => check::run(&options),
        Ok(Command::Run(options)) => run::run(&options),
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
