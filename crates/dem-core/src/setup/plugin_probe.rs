//! Plugin libraries tried in a child process before this process loads them.
//!
//! The checks of [`crate::setup::library_file`] refuse what is not a regular file or not a whole
//! ELF library. A library can pass them and still kill the process that opens it: bytes
//! flipped in its relocations or its initialisers (an outside campaign saw a segmentation
//! fault from 200 flipped bytes), or a constructor that crashes. A process that finds
//! libraries by scanning a directory can therefore have each tried first by a child
//! process (the `dem` executable's hidden `probe-plugins` command): the child opens the
//! libraries one after the other and reports each one done; a library it did not report
//! killed it, and is refused with the signal. The others are then loaded here as before
//! (the child's own refusals are found again, with their messages, by the load here).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The line a prober child prints after trying library `i` of its list.
pub fn done_line(i: usize) -> String {
    format!("done {i}")
}

/// How to start a child that tries libraries: `exe` with `args`, then the paths.
#[derive(Clone, Debug)]
pub struct Prober {
    /// The executable.
    pub exe: PathBuf,
    /// Its arguments before the paths.
    pub args: Vec<String>,
    /// Longest a child may take for one library before it counts as hung.
    pub patience: Duration,
}

impl Prober {
    /// Why each of `paths` cannot be loaded in this process (`None`: it can be tried here).
    pub fn crashes(&self, paths: &[PathBuf]) -> Vec<Option<String>> {
        let mut out = vec![None; paths.len()];
        let mut from = 0;
        while from < paths.len() {
            match self.run(&paths[from..]) {
                Ok(()) => break,
                Err((done, why)) => {
                    // Library `from + done` killed the child: refuse it, go on after it.
                    let bad = from + done;
                    if bad >= paths.len() {
                        // The child failed after its last library (at exit): not theirs.
                        break;
                    }
                    out[bad] = Some(why);
                    from = bad + 1;
                }
            }
        }
        out
    }

    /// One child over `paths`: `Ok` when it reported every one, else how many it did and
    /// how it ended.
    fn run(&self, paths: &[PathBuf]) -> Result<(), (usize, String)> {
        let child = Command::new(&self.exe)
            .args(&self.args)
            .args(paths)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            // No child to try them: load as before.
            Err(e) => {
                tracing::debug!("cannot start the plugin prober {}: {e}", self.exe.display());
                return Ok(());
            }
        };
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut done = 0;
        let mut since = Instant::now();
        loop {
            match rx.recv_timeout(Duration::from_millis(20)) {
                Ok(line) => {
                    if line == done_line(done) {
                        done += 1;
                        since = Instant::now();
                    }
                    continue;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if since.elapsed() > self.patience {
                        let _ = child.kill();
                        let _ = child.wait();
                        return Err((
                            done,
                            format!(
                                "opening it did not finish in {} s in a test process (killed)",
                                self.patience.as_secs()
                            ),
                        ));
                    }
                    continue;
                }
            }
            // The child closed its output: it is ending.
            let status = child.wait();
            return match status {
                Ok(s) if s.success() && done == paths.len() => Ok(()),
                Ok(s) => Err((done, ended(s))),
                Err(e) => Err((
                    done,
                    format!("its test process could not be waited for: {e}"),
                )),
            };
        }
    }
}

/// How a test process ended, as the reason to refuse its library.
fn ended(s: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            let name = match sig {
                4 => " (illegal instruction)",
                6 => " (abort)",
                7 => " (bus error)",
                8 => " (floating-point exception)",
                11 => " (segmentation fault)",
                _ => "",
            };
            return format!(
                "opening it killed a test process with signal {sig}{name}: the library is \
                 corrupt or crashes when loaded (rebuild or reinstall it)"
            );
        }
    }
    format!(
        "opening it ended a test process with {s}: the library is corrupt or crashes when loaded"
    )
}
