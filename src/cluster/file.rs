//! `clusters.tsv`: its name, its header, and its one reader (`report::lists` writes it;
//! `write`, the TREC tools and `trec transfer` read it here). A row per document: `id`,
//! `representative`, `cluster_size`, and (since removal by stars) `kept`, the document it is
//! kept for; ids are TSV-escaped (docs/FORMATS.md). The file is read line by line, so a
//! clusters file of any size costs the memory of what the caller keeps of it.

use std::borrow::Cow;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::base::tsv::tsv_value;
use crate::{Error, Result};

/// The file's name in an output directory.
pub const NAME: &str = "clusters.tsv";

/// Its header, in order (`kept` is absent from files written before removal by stars).
pub const HEADER: [&str; 4] = ["id", "representative", "cluster_size", "kept"];

/// One row, ids unescaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row<'a> {
    /// The document.
    pub id: Cow<'a, str>,
    /// Its cluster's representative.
    pub representative: Cow<'a, str>,
    /// The cluster's size.
    pub cluster_size: u32,
    /// The document it is kept for (itself when kept); None in older files.
    pub kept: Option<Cow<'a, str>>,
}

/// Reads the clusters file at `path` (the file, or an output directory holding one), calling
/// `visit` with each row; returns the file read and whether it has the `kept` column. A file
/// whose header is not a clusters file's, or a row that does not parse, is an error naming the
/// file and the row's byte offset.
pub fn read(path: &Path, mut visit: impl FnMut(Row<'_>) -> Result<()>) -> Result<(PathBuf, bool)> {
    let path = if path.is_dir() {
        path.join(NAME)
    } else {
        path.to_path_buf()
    };
    let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
    let mut r = std::io::BufReader::with_capacity(1 << 20, file);
    let bad = |offset: u64, msg: String| Error::Parse {
        path: path.clone(),
        offset,
        msg,
    };
    let mut line = String::new();
    let n = r.read_line(&mut line).map_err(|e| Error::io(&path, e))?;
    let header: Vec<String> = line
        .trim_end_matches(['\n', '\r'])
        .split('\t')
        .map(str::to_string)
        .collect();
    let kept = match header.len() {
        3 | 4 if header.iter().zip(HEADER).all(|(h, w)| h == w) => header.len() == 4,
        _ => {
            return Err(bad(
                0,
                format!(
                    "not a {NAME} (its header is {:?}, not {:?})",
                    header.join(" "),
                    HEADER.join(" ")
                ),
            ))
        }
    };
    let mut offset = n as u64;
    loop {
        line.clear();
        let n = r.read_line(&mut line).map_err(|e| Error::io(&path, e))?;
        if n == 0 {
            break;
        }
        let l = line.trim_end_matches(['\n', '\r']);
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() != header.len() {
            return Err(bad(
                offset,
                format!(
                    "{} fields where the header has {}: {l:?}",
                    f.len(),
                    header.len()
                ),
            ));
        }
        let cluster_size = f[2]
            .parse()
            .map_err(|_| bad(offset, format!("cluster size {:?} is not a number", f[2])))?;
        visit(Row {
            id: tsv_value(f[0]),
            representative: tsv_value(f[1]),
            cluster_size,
            kept: kept.then(|| tsv_value(f[3])),
        })?;
        offset += n as u64;
    }
    Ok((path, kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Owned = (String, String, u32, Option<String>);

    fn rows(text: &str) -> Result<Vec<Owned>> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(NAME), text).unwrap();
        let mut out = Vec::new();
        read(dir.path(), |r| {
            out.push((
                r.id.into_owned(),
                r.representative.into_owned(),
                r.cluster_size,
                r.kept.map(Cow::into_owned),
            ));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn rows_read_back_unescaped_with_or_without_kept() {
        let got = rows(
            "id\trepresentative\tcluster_size\tkept\na\\tb\ta\\tb\t2\ta\\tb\nc\ta\\tb\t2\tc\n",
        )
        .unwrap();
        assert_eq!(
            got[0],
            ("a\tb".into(), "a\tb".into(), 2, Some("a\tb".into()))
        );
        assert_eq!(got[1].3.as_deref(), Some("c"));
        let old = rows("id\trepresentative\tcluster_size\nx\tx\t1\n").unwrap();
        assert_eq!(old, vec![("x".into(), "x".into(), 1, None)]);
    }

    #[test]
    fn a_bad_header_or_row_names_its_offset() {
        let e = rows("id\trep\n").unwrap_err().to_string();
        assert!(e.contains("not a clusters.tsv"), "{e}");
        let e = rows("id\trepresentative\tcluster_size\nx\tx\t1\ny\ty\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("2 fields") && e.contains("37"), "{e}");
        let e = rows("id\trepresentative\tcluster_size\nx\tx\tbig\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"big\""), "{e}");
    }
}
