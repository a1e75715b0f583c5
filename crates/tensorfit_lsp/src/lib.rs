//! The language server: LSP over stdio with tower-lsp-server. This is the
//! only crate that knows LSP; the features are the ide layer's, converted.
//!
//! Edits are queued for the database in the order they arrive (no
//! `.await` between receiving a change and queueing it) and applied on a
//! thread of their own ([`host_writes`]); every read of the database waits
//! for the edits queued before it and runs on a snapshot on an analysis
//! thread, so solving never holds up typing, and an edit cancels the reads
//! it makes stale (they answer `ContentModified`). Hover and inlay hints
//! answer from the last finished analysis, carried over the edits since,
//! and wait for nothing.

mod analysis_pool;
mod capabilities;
mod convert;
mod diagnostics_queue;
mod features;
mod host_writes;
mod locks;
mod log;
mod memory;
mod navigation;
mod open_text;
mod scheduling;
mod server;
mod settings;
mod transport;

pub use server::Server;
pub use settings::ServerSettings;
use tower_lsp_server::{ClientSocket, LspService};
pub use transport::{serve, SessionEnd};

/// The service, for a transport of the caller's (stdio, or a test's pipe).
pub fn service() -> (LspService<Server>, ClientSocket) {
    // A key re-checks its function, mostly with the questions the check
    // before it asked Z3: their answers are kept (half of a key's time in
    // U-Net's `forward`).
    tensorfit_db::keep_known_answers();
    LspService::build(Server::new)
        .custom_method("tensorfit/functionChecks", Server::function_checks_request)
        .custom_method("tensorfit/memory", Server::memory_request)
        .custom_method(
            "tensorfit/analysedVersion",
            Server::analysed_version_request,
        )
        .finish()
}

/// Serves LSP on stdin/stdout until the client exits or the input ends,
/// then ends the process with the session's exit status. The runtime is
/// not dropped: that would wait for the thread reading stdin, which waits
/// for input a client that sent `exit` may never close.
pub fn run_stdio() -> ! {
    few_malloc_arenas();
    let end = runtime().block_on(async {
        let (service, socket) = service();
        serve(tokio::io::stdin(), tokio::io::stdout(), service, socket).await
    });
    use std::io::Write;
    let _ = std::io::stdout().flush();
    std::process::exit(end.exit_code())
}

/// The runtime the protocol's tasks run on (also the benchmark's, so that
/// it measures the server's scheduling).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // Checks and reads run on the analysis pool (analysis_pool.rs),
        // edits on their own thread (host_writes.rs). Old results are
        // dropped on the workers, deep ones included: stacks sized for the
        // checker's depth bounds everywhere.
        .thread_stack_size(tensorfit_base::ANALYSIS_STACK_BYTES)
        .max_blocking_threads(16)
        // Reading, answering and writing stay on a core of their own,
        // where no check or edit delays a hover (scheduling.rs).
        .on_thread_start(scheduling::keep_on_the_protocol_core)
        .enable_all()
        .build()
        .expect("a tokio runtime can be built")
}

/// glibc gives each thread that allocates its own malloc arena, and an
/// arena keeps the pages of its busiest moment; Z3 allocates with malloc on
/// every analysis thread. With an arena per thread, resident memory crept
/// up over a long session (10,000 editing steps: 354 MiB after 500 steps,
/// 542 MiB at the end) while the memory held stayed small; two arenas
/// share their free pages among the threads (see also `memory.rs`).
fn few_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called once at start-up, before the runtime's threads exist.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
