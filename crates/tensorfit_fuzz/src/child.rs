//! Running one child process under a wall-clock limit, with its own peak
//! memory (from `wait4`, which std does not expose).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Finished {
    /// `None` when the limit was reached and the child killed.
    pub status: Option<Exit>,
    pub elapsed: Duration,
    /// Peak resident memory, in KiB.
    pub max_rss_kib: u64,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

/// Runs `program args` in `directory` with no input, killed after `limit`.
pub fn run(
    program: &Path,
    args: &[&str],
    directory: &Path,
    limit: Duration,
) -> std::io::Result<Finished> {
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(directory)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = child.id() as libc::pid_t;
    // Drained on threads: a child blocked on a full pipe is not a hang.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let mut killed = false;
    let (raw_status, usage) = loop {
        match wait4(pid, !killed)? {
            Some(done) => break done,
            None if started.elapsed() >= limit && !killed => {
                // SAFETY: `pid` is our child, not yet reaped.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                killed = true;
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    let elapsed = started.elapsed();
    let status = (!killed).then(|| {
        if libc::WIFSIGNALED(raw_status) {
            Exit::Signal(libc::WTERMSIG(raw_status))
        } else {
            Exit::Code(libc::WEXITSTATUS(raw_status))
        }
    });
    Ok(Finished {
        status,
        elapsed,
        max_rss_kib: usage.ru_maxrss.max(0) as u64,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// The child's status and resources once it has ended (`None` while it
/// runs, unless `nonblocking` is false).
fn wait4(pid: libc::pid_t, nonblocking: bool) -> std::io::Result<Option<(i32, libc::rusage)>> {
    let mut status = 0;
    // SAFETY: rusage is plain data; zeroes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let flags = if nonblocking { libc::WNOHANG } else { 0 };
    // SAFETY: valid pointers to locals; `pid` is our child.
    let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
    match reaped {
        0 => Ok(None),
        n if n == pid => Ok(Some((status, usage))),
        _ => Err(std::io::Error::last_os_error()),
    }
}
