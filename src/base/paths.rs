//! Where a path really is: made absolute with symbolic links resolved, so that an output can
//! be told apart from an input however either is spelled (`s.store/x`, `./s.store/../s.store/x`,
//! a link to it).

use std::path::{Path, PathBuf};

/// `p` absolute, with symbolic links resolved as far as it exists; the part that does not
/// exist yet is appended as written.
pub fn resolve(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(mut out) = existing.canonicalize() {
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return abs,
        }
    }
}

/// Whether `p` is `dir` or lies inside it.
pub fn within(p: &Path, dir: &Path) -> bool {
    resolve(p).starts_with(resolve(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_a_directory_however_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.store");
        std::fs::create_dir(&store).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&store, &link).unwrap();
        assert!(within(&store.join("fp64.u64"), &store));
        assert!(within(&store, &store));
        assert!(within(&link.join("x/y.tsv"), &store));
        assert!(within(&store.join("../s.store/z"), &store));
        assert!(!within(&dir.path().join("s.store2/x"), &store));
        assert!(!within(&dir.path().join("out.tsv"), &store));
    }
}
