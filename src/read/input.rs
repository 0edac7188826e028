//! Opening inputs: paths to readers, decompressing by magic bytes and
//! unframing Docker Engine API log streams by their headers.

use flate2::read::MultiGzDecoder;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::cut::Counted;
use super::error::ReadError;
use super::lines::Lines;
use super::pipe::Pipe;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const READ_BUFFER: usize = 256 * 1024;

/// One input stream: a file or standard input, decompressed.
pub struct Input {
    /// The path as given (or found in a directory), `-` for stdin.
    pub name: String,
    /// `gzip`, `zstd`, `docker-stream` (Docker Engine API frames) or `none`.
    pub compression: &'static str,
    /// Found by walking a directory rather than named: a file there that is
    /// not a log is passed over with a note instead of stopping the run.
    pub from_dir: bool,
    reader: Box<dyn BufRead + Send>,
    /// The file's canonical path (none for standard input): the same file
    /// given twice is read once.
    pub identity: Option<PathBuf>,
    /// Bytes of the file read so far, for the byte a cut names.
    file_bytes: Arc<AtomicU64>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input").field("name", &self.name).finish()
    }
}

impl Input {
    /// Wrap a raw stream, sniffing its compression.
    pub fn from_reader(name: String, raw: Box<dyn Read + Send>) -> Result<Input, ReadError> {
        let (raw, file_bytes) = Counted::new(raw);
        let mut buffered = BufReader::with_capacity(READ_BUFFER, raw);
        let magic = buffered.fill_buf().map_err(|e| ReadError::Io {
            path: name.clone(),
            message: e.to_string(),
        })?;
        let (compression, reader): (&'static str, Box<dyn BufRead + Send>) = if magic
            .starts_with(&GZIP_MAGIC)
        {
            // Multi-member: `cat a.gz b.gz` and rotated logs concatenate members.
            (
                "gzip",
                Box::new(BufReader::with_capacity(
                    READ_BUFFER,
                    Pipe::spawn(MultiGzDecoder::new(buffered)),
                )),
            )
        } else if magic.starts_with(&ZSTD_MAGIC) {
            let dec =
                zstd::stream::read::Decoder::with_buffer(buffered).map_err(|e| ReadError::Io {
                    path: name.clone(),
                    message: e.to_string(),
                })?;
            (
                "zstd",
                Box::new(BufReader::with_capacity(READ_BUFFER, Pipe::spawn(dec))),
            )
        } else if super::docker_stream::is_docker_stream(magic) {
            // Not compression but framing: the payloads are the text.
            (
                "docker-stream",
                Box::new(BufReader::with_capacity(
                    READ_BUFFER,
                    super::docker_stream::DockerStream::new(buffered),
                )),
            )
        } else {
            ("none", Box::new(buffered))
        };
        Ok(Input {
            name,
            compression,
            from_dir: false,
            identity: None,
            reader,
            file_bytes,
        })
    }

    /// The input's lines.
    pub fn lines(self) -> Lines {
        Lines::counted(self.name, self.reader, self.file_bytes)
    }
}

/// Open every path: files as they are, directories recursively (sorted, so
/// runs are deterministic), `-` as standard input. The first file that
/// cannot be opened is the error.
pub fn open_all(paths: &[PathBuf]) -> Result<Vec<Input>, ReadError> {
    open_each(paths)?.into_iter().collect()
}

/// [`open_all`], with a result per file: one that cannot be opened (no
/// permission, gone) does not stop the others. The error is for what
/// leaves no input at all (an empty directory, no paths).
pub fn open_each(paths: &[PathBuf]) -> Result<Vec<Result<Input, ReadError>>, ReadError> {
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::from_reader("-".to_string(), Box::new(io::stdin())));
            continue;
        }
        let meta = match fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) => {
                inputs.push(Err(ReadError::Open {
                    path: path.display().to_string(),
                    message: e.to_string(),
                }));
                continue;
            }
        };
        if meta.is_dir() {
            let mut files = Vec::new();
            let mut unreadable = Vec::new();
            walk(path, &mut files, &mut unreadable)?;
            files.sort();
            if files.is_empty() && unreadable.is_empty() {
                return Err(ReadError::Empty {
                    what: format!("directory {} holds no files", path.display()),
                });
            }
            for f in files {
                inputs.push(open_file(&f).map(|mut input| {
                    input.from_dir = true;
                    input
                }));
            }
            // A (sub)directory that cannot be listed is an input that
            // cannot be read: listed with why, the others analysed.
            inputs.extend(unreadable.into_iter().map(Err));
        } else {
            inputs.push(open_file(path));
        }
    }
    if inputs.is_empty() {
        return Err(ReadError::Empty {
            what: "no paths were given".to_string(),
        });
    }
    Ok(inputs)
}

fn open_file(path: &Path) -> Result<Input, ReadError> {
    let file = File::open(path).map_err(|e| ReadError::Open {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let mut input = Input::from_reader(path.display().to_string(), Box::new(file))?;
    input.identity = fs::canonicalize(path).ok();
    Ok(input)
}

/// The files under `dir`, recursively; a directory that cannot be listed
/// goes to `unreadable` with why.
fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    unreadable: &mut Vec<ReadError>,
) -> Result<(), ReadError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            unreadable.push(ReadError::Open {
                path: dir.display().to_string(),
                message: e.to_string(),
            });
            return Ok(());
        }
    };
    for entry in entries {
        let entry = entry.map_err(|e| ReadError::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
        let path = entry.path();
        let name = entry.file_name();
        // Hidden files and the scenario's own answer key are not inputs.
        if name.to_string_lossy().starts_with('.') || name == "truth.json" || name == "README.md" {
            continue;
        }
        if path.is_dir() {
            walk(&path, out, unreadable)?;
        } else if path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn read_all(input: Input) -> Vec<String> {
        input.lines().map(|r| r.expect("line").1).collect()
    }

    #[test]
    fn gzip_is_recognised_by_magic_not_name() {
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"a\nb\n").expect("write");
        let gz = enc.finish().expect("finish");
        let input = Input::from_reader("plain-name.log".into(), Box::new(io::Cursor::new(gz)))
            .expect("open");
        assert_eq!(input.compression, "gzip");
        assert_eq!(read_all(input), vec!["a", "b"]);
    }

    #[test]
    fn zstd_is_recognised_by_magic() {
        let z = zstd::encode_all(&b"x\r\ny"[..], 1).expect("zstd");
        let input = Input::from_reader("z".into(), Box::new(io::Cursor::new(z))).expect("open");
        assert_eq!(input.compression, "zstd");
        assert_eq!(read_all(input), vec!["x", "y"]);
    }

    #[test]
    fn a_missing_path_is_an_open_error() {
        let err = open_all(&[PathBuf::from("/no/such/file.log")]).expect_err("missing");
        assert!(matches!(err, ReadError::Open { .. }));
    }
}
