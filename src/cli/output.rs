//! Output files of the commands that write tables (`join`, `export`): `-` is standard output,
//! anything else an atomic file (`base::atomic`), written under a temporary name beside the
//! target and renamed into place only when complete, so a full disk or a killed run never
//! leaves a cut-off table under the final name.

use std::io::{BufWriter, StdoutLock, Write};
use std::path::Path;

use crate::base::atomic::AtomicFile;

/// An output being written.
pub enum Output {
    /// Standard output.
    Stdout(BufWriter<StdoutLock<'static>>),
    /// A file, under its temporary name until [`Output::finish`].
    File(AtomicFile),
}

/// Opens `path` for writing; `-` is standard output.
pub fn create(path: &Path) -> anyhow::Result<Output> {
    if path == Path::new("-") {
        return Ok(Output::Stdout(BufWriter::new(std::io::stdout().lock())));
    }
    Ok(Output::File(AtomicFile::create(path)?))
}

impl Output {
    /// Flushes, and puts a file in place under its final name.
    pub fn finish(self) -> anyhow::Result<()> {
        match self {
            Output::Stdout(mut w) => Ok(w.flush()?),
            Output::File(f) => Ok(f.commit()?),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::File(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::File(f) => f.flush(),
        }
    }
}
