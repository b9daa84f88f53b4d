//! Writes a store atomically, or into memory.
//!
//! Columns are streamed into `<name>.tmp-<pid>/` beside the target; `finish` syncs them, writes
//! the manifest, and renames the directory into place. Dropping an unfinished writer removes
//! the temporary directory. A writer made by [`StoreWriter::memory`] writes the same columns,
//! byte for byte, into memory, and [`StoreWriter::finish_in_memory`] opens them as a store
//! (no file is made: the in-memory jobs on Arrow tables).

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::{xxh3_128, Xxh3};

use super::{col, flags, Manifest, Store};
use crate::base::claim;
use crate::base::interrupt;
use crate::base::mmap::Mapped;
use crate::corpus::SourceLoc;
use crate::{Error, Result};

/// One document's row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// Document id.
    pub id: String,
    /// URL (may be empty).
    pub url: String,
    /// Canonical URL, resolved (empty when the page names none).
    pub canonical: String,
    /// SimHash-64.
    pub fp64: u64,
    /// SimHash-128.
    pub fp128: u128,
    /// Content hash.
    pub content_hash: u128,
    /// Flag bits (the writer adds `DUPLICATE_ID`).
    pub flags: u8,
    /// Normalised text length.
    pub text_len: u32,
    /// Term count.
    pub terms: u32,
    /// Source location.
    pub loc: SourceLoc,
    /// MinHash band keys (empty unless the store has signatures; [`StoreWriter::push_rows`]
    /// takes them apart).
    pub minhash: Vec<u64>,
    /// Paragraph chunk hashes (empty unless the store has chunks).
    pub chunks: Vec<u128>,
    /// The shingle set, sorted, without repeats (empty unless the store has shingles).
    pub shingles: Vec<u64>,
    /// The title key, then the block keys (empty unless the store has blocks).
    pub blocks: Vec<u64>,
    /// The keep field's number, as `f64::to_bits` (None: the document had none; written
    /// only in a store with values).
    pub value: Option<u64>,
}

/// A column file being written: its bytes gathered in a buffer of its own and written,
/// checksummed and counted a buffer at a time (a row adds a few bytes to each of some twenty to
/// sixty columns: a checksum update and a buffered write each would cost more than the row's
/// band keys), the checksum computed as the bytes go by (so that finishing never reads a column
/// back), and the bytes written since its pages were last handed to the flusher.
struct FileCol {
    file: File,
    buf: Vec<u8>,
    sum: Box<Xxh3>,
    unsynced: u64,
    flusher: Flusher,
}

/// Bytes a column gathers before they are written.
const COL_BUFFER: usize = 1 << 16;

/// Where a column's bytes go: a file of the temporary directory, or memory.
enum Col {
    File(FileCol),
    Mem(Vec<u8>),
}

/// A column file starts its pages' way to the disk, in the background, after this many
/// bytes: the store's final sync then waits for little (a store of shingle sets is gigabytes,
/// which the page cache would otherwise hold dirty until the end).
const SYNC_STEP: u64 = 64 << 20;

/// Syncs column files on a thread of its own, as they grow: the writer hands over a second
/// handle of the file and goes on writing.
#[derive(Clone)]
struct Flusher(std::sync::mpsc::Sender<File>);

impl Flusher {
    fn start() -> Flusher {
        let (tx, rx) = std::sync::mpsc::channel::<File>();
        std::thread::spawn(move || {
            for f in rx {
                // An error here is met again, and reported, by the final sync.
                let _ = f.sync_data();
            }
        });
        Flusher(tx)
    }
}

impl Col {
    fn file(f: File, flusher: Flusher) -> Col {
        Col::File(FileCol {
            file: f,
            buf: Vec::with_capacity(COL_BUFFER),
            sum: Box::new(Xxh3::new()),
            unsynced: 0,
            flusher,
        })
    }
}

impl FileCol {
    /// Appends `b`: to the buffer, which is written first when `b` would not fit; a piece
    /// larger than the buffer is written at once.
    fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        if self.buf.len() + b.len() > COL_BUFFER {
            self.drain()?;
            if b.len() >= COL_BUFFER {
                return self.write_through(b);
            }
        }
        self.buf.extend_from_slice(b);
        Ok(())
    }

    /// Writes the buffer out.
    fn drain(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let buf = std::mem::take(&mut self.buf);
        let res = self.write_through(&buf);
        self.buf = buf;
        self.buf.clear();
        res
    }

    /// Writes `b` to the file, checksummed, and starts the file's pages to the disk every
    /// [`SYNC_STEP`] bytes.
    fn write_through(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.sum.update(b);
        self.file.write_all(b)?;
        self.unsynced += b.len() as u64;
        if self.unsynced >= SYNC_STEP {
            self.unsynced = 0;
            if let Ok(f) = self.file.try_clone() {
                let _ = self.flusher.0.send(f);
            }
        }
        Ok(())
    }
}

impl Write for Col {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.write_all(b)?;
        Ok(b.len())
    }
    fn write_all(&mut self, b: &[u8]) -> std::io::Result<()> {
        match self {
            Col::File(f) => f.put(b),
            Col::Mem(v) => {
                v.extend_from_slice(b);
                Ok(())
            }
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Col::File(f) => f.drain(),
            Col::Mem(_) => Ok(()),
        }
    }
}

/// A column with its file name.
type Named = (&'static str, Col);

/// The columns, each with its file name.
struct Columns {
    fp64: (&'static str, Col),
    fp128: (&'static str, Col),
    content: (&'static str, Col),
    flags: (&'static str, Col),
    text_len: (&'static str, Col),
    terms: (&'static str, Col),
    source: (&'static str, Col),
    ids: (&'static str, Col),
    ids_idx: (&'static str, Col),
    urls: (&'static str, Col),
    urls_idx: (&'static str, Col),
    canonical: (&'static str, Col),
    canonical_idx: (&'static str, Col),
    /// One file per band.
    minhash: Option<Vec<(String, Col)>>,
    /// `chunks.u128` and `chunks.idx`.
    chunks: Option<(Named, Named)>,
    /// `shingles.u64` and `shingles.idx`.
    shingles: Option<(Named, Named)>,
    /// `blocks.u64` and `blocks.idx`.
    blocks: Option<(Named, Named)>,
    /// `values.f64`.
    values: Option<Named>,
}

impl Columns {
    /// Every column with its name, in a fixed order.
    fn all(self) -> Vec<(String, Col)> {
        let mut v: Vec<(String, Col)> = [
            self.fp64,
            self.fp128,
            self.content,
            self.flags,
            self.text_len,
            self.terms,
            self.source,
            self.ids,
            self.ids_idx,
            self.urls,
            self.urls_idx,
            self.canonical,
            self.canonical_idx,
        ]
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
        v.extend(self.minhash.into_iter().flatten());
        for (a, b) in self
            .chunks
            .into_iter()
            .chain(self.shingles)
            .chain(self.blocks)
        {
            v.push((a.0.to_string(), a.1));
            v.push((b.0.to_string(), b.1));
        }
        if let Some(a) = self.values {
            v.push((a.0.to_string(), a.1));
        }
        v
    }
}

/// Whether `--force` may replace what is at `target`: a neardup store (a readable manifest of
/// this format) or an empty directory; anything else is refused with the reason.
fn replaceable(target: &Path) -> Result<()> {
    let refuse = |what: &str| {
        Err(Error::store(
            target,
            format!("{what}; --force replaces only a store neardup wrote: choose another output"),
        ))
    };
    let meta = fs::symlink_metadata(target).map_err(|e| Error::io(target, e))?;
    if !meta.is_dir() {
        return refuse("is a file, not a store");
    }
    let json = match fs::read(target.join(col::MANIFEST)) {
        Ok(json) => json,
        Err(_) => {
            let mut entries = fs::read_dir(target).map_err(|e| Error::io(target, e))?;
            if entries.next().is_none() {
                return Ok(());
            }
            return refuse("is a directory that holds no store (no manifest.json)");
        }
    };
    match serde_json::from_slice::<Manifest>(&json) {
        Ok(m) if m.format == super::FORMAT => {}
        _ => return refuse("has a manifest.json that is not a neardup store's"),
    }
    match claim::foreign_entries(target)?.first() {
        Some(other) => refuse(&format!(
            "holds {other}, which neardup did not write there (it is left as it is, and the store with it); move it out of the store"
        )),
        None => Ok(()),
    }
}

/// Streams rows into a new store.
pub struct StoreWriter {
    target: PathBuf,
    tmp: PathBuf,
    cols: Option<Columns>,
    docs: u64,
    ids_len: u64,
    urls_len: u64,
    canonical_len: u64,
    chunks_len: u64,
    shingles_len: u64,
    blocks_len: u64,
    seen_ids: HashSet<u128>,
    duplicate_ids: u64,
    /// The temporary directory's registration (None in memory).
    _interrupt: Option<interrupt::Temporary>,
    /// In memory: the documents columns are made room for.
    rows_hint: usize,
    /// On disk: syncs the columns as they grow.
    flusher: Option<Flusher>,
}

impl StoreWriter {
    /// Refuses a store at `target` that [`StoreWriter::create`] would refuse: something is
    /// there and `force` is not given, or what is there is not a store. Callers that must not
    /// touch anything else before a refusal ask first.
    pub fn may_write(target: &Path, force: bool) -> Result<()> {
        if target.exists() || target.is_symlink() {
            if !force {
                return Err(Error::store(
                    target,
                    "already exists (use --force to replace it)",
                ));
            }
            replaceable(target)?;
        }
        Ok(())
    }

    /// Starts a store at `target`. An existing store there is replaced only with `force`,
    /// and only when it is one: `--force` never replaces a file, or a directory with anything
    /// in it but a neardup store (an input, a user's folder).
    pub fn create(target: &Path, force: bool) -> Result<Self> {
        StoreWriter::may_write(target, force)?;
        let name = target
            .file_name()
            .ok_or_else(|| Error::store(target, "not a directory name"))?
            .to_string_lossy()
            .into_owned();
        let tmp = target.with_file_name(format!("{name}.tmp-{}", std::process::id()));
        let old = target.with_file_name(format!("{name}.old-{}", std::process::id()));
        // In a claimed output directory, a store is replaced only where neardup made it, and
        // its temporaries are recorded as neardup's before they are made.
        claim::admit_all(target, &[&tmp, &old])?;
        if let Some(dir) = target.parent() {
            // Leftovers of killed runs into the same store (their `finish` never came).
            claim::clean_stale(dir, &format!("{name}.tmp-"));
            claim::clean_stale(dir, &format!("{name}.old-"));
        }
        if tmp.exists() {
            fs::remove_dir_all(&tmp).map_err(|e| Error::io(&tmp, e))?;
        }
        let (guard, ()) = interrupt::register_with(&tmp, || fs::create_dir_all(&tmp))
            .map_err(|e| Error::io(&tmp, e))?;
        let flusher = Flusher::start();
        let open = |n: &'static str| -> Result<(&'static str, Col)> {
            let p = tmp.join(n);
            Ok((
                n,
                Col::file(
                    File::create(&p).map_err(|e| Error::io(&p, e))?,
                    flusher.clone(),
                ),
            ))
        };
        let cols = Columns {
            fp64: open(col::FP64)?,
            fp128: open(col::FP128)?,
            content: open(col::CONTENT)?,
            flags: open(col::FLAGS)?,
            text_len: open(col::TEXT_LEN)?,
            terms: open(col::TERMS)?,
            source: open(col::SOURCE)?,
            ids: open(col::IDS)?,
            ids_idx: open(col::IDS_IDX)?,
            urls: open(col::URLS)?,
            urls_idx: open(col::URLS_IDX)?,
            canonical: open(col::CANONICAL)?,
            canonical_idx: open(col::CANONICAL_IDX)?,
            minhash: None,
            chunks: None,
            shingles: None,
            blocks: None,
            values: None,
        };
        StoreWriter::start(target.to_path_buf(), tmp, cols, Some((guard, flusher)))
    }

    /// Starts a store in memory of up to `rows` documents (room is made for them at once:
    /// the fixed-width columns never grow), named `label` in messages: the same columns as a
    /// store on disk, opened by [`StoreWriter::finish_in_memory`].
    pub fn memory(label: &Path, rows: usize) -> Result<Self> {
        let m = |n: &'static str, width: usize| (n, Col::Mem(Vec::with_capacity(rows * width)));
        let cols = Columns {
            fp64: m(col::FP64, 8),
            fp128: m(col::FP128, 16),
            content: m(col::CONTENT, 16),
            flags: m(col::FLAGS, 1),
            text_len: m(col::TEXT_LEN, 4),
            terms: m(col::TERMS, 4),
            source: m(col::SOURCE, std::mem::size_of::<SourceLoc>()),
            ids: m(col::IDS, 0),
            ids_idx: m(col::IDS_IDX, 8),
            urls: m(col::URLS, 0),
            urls_idx: m(col::URLS_IDX, 8),
            canonical: m(col::CANONICAL, 0),
            canonical_idx: m(col::CANONICAL_IDX, 8),
            minhash: None,
            chunks: None,
            shingles: None,
            blocks: None,
            values: None,
        };
        let mut w = StoreWriter::start(label.to_path_buf(), PathBuf::new(), cols, None)?;
        w.rows_hint = rows;
        Ok(w)
    }

    fn start(
        target: PathBuf,
        tmp: PathBuf,
        mut cols: Columns,
        files: Option<(interrupt::Temporary, Flusher)>,
    ) -> Result<Self> {
        let (guard, flusher) = files.unzip();
        let zero = 0u64.to_le_bytes();
        for c in [
            &mut cols.ids_idx.1,
            &mut cols.urls_idx.1,
            &mut cols.canonical_idx.1,
        ] {
            c.write_all(&zero).map_err(|e| Error::io(&tmp, e))?;
        }
        Ok(StoreWriter {
            target,
            tmp,
            cols: Some(cols),
            docs: 0,
            ids_len: 0,
            urls_len: 0,
            canonical_len: 0,
            chunks_len: 0,
            shingles_len: 0,
            blocks_len: 0,
            seen_ids: HashSet::new(),
            duplicate_ids: 0,
            _interrupt: guard,
            flusher,
            rows_hint: 0,
        })
    }

    /// A new column named `n`, of the kind the others are.
    fn column(&self, n: &str) -> Result<Col> {
        let Some(flusher) = &self.flusher else {
            return Ok(Col::Mem(Vec::with_capacity(self.rows_hint * 8)));
        };
        let p = self.tmp.join(n);
        let f = File::create(&p).map_err(|e| Error::io(&p, e))?;
        Ok(Col::file(f, flusher.clone()))
    }

    /// Gives the store a MinHash column of `bands` keys per document (before the first row).
    pub fn with_minhash(mut self, bands: usize) -> Result<Self> {
        assert_eq!(self.docs, 0, "the column starts with the first row");
        let files = (0..bands)
            .map(|b| {
                let n = col::minhash_band(b);
                Ok((n.clone(), self.column(&n)?))
            })
            .collect::<Result<Vec<_>>>()?;
        self.cols.as_mut().expect("open").minhash = Some(files);
        Ok(self)
    }

    /// A data column and its offset index, the index's first offset written.
    fn indexed(&self, data: &'static str, idx: &'static str) -> Result<(Named, Named)> {
        assert_eq!(self.docs, 0, "the column starts with the first row");
        let data = (data, self.column(data)?);
        let mut idx = (idx, self.column(idx)?);
        idx.1
            .write_all(&0u64.to_le_bytes())
            .map_err(|e| Error::io(&self.tmp, e))?;
        Ok((data, idx))
    }

    /// Gives the store the paragraph chunk columns (before the first row).
    pub fn with_chunks(mut self) -> Result<Self> {
        let c = self.indexed(col::CHUNKS, col::CHUNKS_IDX)?;
        self.cols.as_mut().expect("open").chunks = Some(c);
        Ok(self)
    }

    /// Gives the store the shingle set columns (before the first row).
    pub fn with_shingles(mut self) -> Result<Self> {
        let c = self.indexed(col::SHINGLES, col::SHINGLES_IDX)?;
        self.cols.as_mut().expect("open").shingles = Some(c);
        Ok(self)
    }

    /// Gives the store the block key columns (before the first row).
    pub fn with_blocks(mut self) -> Result<Self> {
        let c = self.indexed(col::BLOCKS, col::BLOCKS_IDX)?;
        self.cols.as_mut().expect("open").blocks = Some(c);
        Ok(self)
    }

    /// Gives the store the values column (before the first row).
    pub fn with_values(mut self) -> Result<Self> {
        assert_eq!(self.docs, 0, "the column starts with the first row");
        let data = (col::VALUES, self.column(col::VALUES)?);
        self.cols.as_mut().expect("open").values = Some(data);
        Ok(self)
    }

    /// Appends one row.
    pub fn push(&mut self, row: &Row) -> Result<()> {
        self.push_one(row, Some(&row.minhash))
    }

    /// Appends rows whose band keys are `keys`, one row's after another (empty without
    /// signatures; each row's own `minhash` is not read). A band's keys go to its column a
    /// batch of rows at a time, not a key at a time.
    pub fn push_rows(&mut self, rows: &[Row], keys: &[u64]) -> Result<()> {
        let bands = self
            .cols
            .as_ref()
            .expect("push after finish")
            .minhash
            .as_ref()
            .map_or(0, Vec::len);
        assert_eq!(keys.len(), rows.len() * bands, "one key per band");
        for row in rows {
            self.push_one(row, None)?;
        }
        let files = self
            .cols
            .as_mut()
            .expect("push after finish")
            .minhash
            .iter_mut();
        let mut column: Vec<u8> = Vec::with_capacity(rows.len() * 8);
        for (b, f) in files.flatten().enumerate() {
            column.clear();
            for k in keys.iter().skip(b).step_by(bands) {
                column.extend_from_slice(&k.to_le_bytes());
            }
            f.1.write_all(&column)
                .map_err(|e| Error::io(&self.tmp, e))?;
        }
        Ok(())
    }

    /// Appends one row, with its band keys `minhash` (None: [`Self::push_rows`] writes them).
    fn push_one(&mut self, row: &Row, minhash: Option<&[u64]>) -> Result<()> {
        let mut flags = row.flags;
        if !self.seen_ids.insert(xxh3_128(row.id.as_bytes())) {
            flags |= flags::DUPLICATE_ID;
            self.duplicate_ids += 1;
        }
        let c = self.cols.as_mut().expect("push after finish");
        let w = |f: &mut (_, Col), b: &[u8]| f.1.write_all(b);
        let res = (|| -> std::io::Result<()> {
            w(&mut c.fp64, &row.fp64.to_le_bytes())?;
            w(&mut c.fp128, &(row.fp128 as u64).to_le_bytes())?;
            w(&mut c.fp128, &((row.fp128 >> 64) as u64).to_le_bytes())?;
            w(&mut c.content, &(row.content_hash as u64).to_le_bytes())?;
            w(
                &mut c.content,
                &((row.content_hash >> 64) as u64).to_le_bytes(),
            )?;
            w(&mut c.flags, &[flags])?;
            w(&mut c.text_len, &row.text_len.to_le_bytes())?;
            w(&mut c.terms, &row.terms.to_le_bytes())?;
            w(&mut c.source, bytemuck::bytes_of(&row.loc))?;
            w(&mut c.ids, row.id.as_bytes())?;
            self.ids_len += row.id.len() as u64;
            w(&mut c.ids_idx, &self.ids_len.to_le_bytes())?;
            w(&mut c.urls, row.url.as_bytes())?;
            self.urls_len += row.url.len() as u64;
            w(&mut c.urls_idx, &self.urls_len.to_le_bytes())?;
            w(&mut c.canonical, row.canonical.as_bytes())?;
            self.canonical_len += row.canonical.len() as u64;
            w(&mut c.canonical_idx, &self.canonical_len.to_le_bytes())?;
            if let (Some(files), Some(minhash)) = (&mut c.minhash, minhash) {
                assert_eq!(minhash.len(), files.len(), "one key per band");
                for (f, k) in files.iter_mut().zip(minhash) {
                    f.1.write_all(&k.to_le_bytes())?;
                }
            }
            if let Some((data, idx)) = &mut c.chunks {
                w(data, bytemuck::cast_slice(&row.chunks))?;
                self.chunks_len += row.chunks.len() as u64;
                w(idx, &self.chunks_len.to_le_bytes())?;
            }
            if let Some((data, idx)) = &mut c.shingles {
                w(data, bytemuck::cast_slice(&row.shingles))?;
                self.shingles_len += row.shingles.len() as u64;
                w(idx, &self.shingles_len.to_le_bytes())?;
            }
            if let Some((data, idx)) = &mut c.blocks {
                w(data, bytemuck::cast_slice(&row.blocks))?;
                self.blocks_len += row.blocks.len() as u64;
                w(idx, &self.blocks_len.to_le_bytes())?;
            }
            if let Some(v) = &mut c.values {
                w(v, &row.value.unwrap_or(f64::NAN.to_bits()).to_le_bytes())?;
            }
            Ok(())
        })();
        res.map_err(|e| Error::io(&self.tmp, e))?;
        self.docs += 1;
        Ok(())
    }

    /// Documents written so far.
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// Duplicate ids seen so far.
    pub fn duplicate_ids(&self) -> u64 {
        self.duplicate_ids
    }

    /// Completes the store: `manifest.docs` and `stats.duplicate_ids` are filled in here, and
    /// the manifest as written is returned.
    pub fn finish(mut self, mut manifest: Manifest) -> Result<Manifest> {
        let cols = self.cols.take().expect("finish twice");
        let tmp = self.tmp.clone();
        let mut names = Vec::new();
        let mut sums = std::collections::BTreeMap::new();
        for (n, c) in cols.all() {
            if let Col::File(mut f) = c {
                f.drain().map_err(|e| Error::io(&tmp, e))?;
                f.file.sync_all().map_err(|e| Error::io(&tmp, e))?;
                // The checksum of the bytes written, as `checksum::of` computes it from a file.
                sums.insert(n.clone(), format!("{:016x}", f.sum.digest()));
            }
            names.push(n);
        }
        manifest.docs = self.docs;
        manifest.stats.documents = self.docs;
        manifest.stats.duplicate_ids = self.duplicate_ids;
        manifest.checksums = sums;
        let json =
            serde_json::to_vec_pretty(&manifest).map_err(|e| Error::store(&tmp, e.to_string()))?;
        let mpath = tmp.join(col::MANIFEST);
        let mut f = File::create(&mpath).map_err(|e| Error::io(&mpath, e))?;
        f.write_all(&json).map_err(|e| Error::io(&mpath, e))?;
        f.sync_all().map_err(|e| Error::io(&mpath, e))?;
        // The store's own record: what a later --force may replace in it, and nothing else.
        names.push(col::MANIFEST.to_string());
        claim::write_record(&tmp, &names.into_iter().collect(), None)?;
        // An interrupt waits for the swap: never the old store moved aside and no new one.
        let _swap = interrupt::Critical::enter();
        if self.target.exists() {
            // A user's file put into the store while it was being rebuilt stays with it.
            replaceable(&self.target)?;
            let old = self
                .tmp
                .with_extension(format!("old-{}", std::process::id()));
            fs::rename(&self.target, &old).map_err(|e| Error::io(&self.target, e))?;
            fs::rename(&tmp, &self.target).map_err(|e| Error::io(&self.target, e))?;
            let _ = fs::remove_dir_all(&old);
        } else {
            fs::rename(&tmp, &self.target).map_err(|e| Error::io(&self.target, e))?;
        }
        super::checksum::mark_checked(&self.target, &manifest.checksums);
        Ok(manifest)
    }
}

impl StoreWriter {
    /// Completes a store made by [`StoreWriter::memory`] and opens it, with every check
    /// [`Store::open`] makes.
    pub fn finish_in_memory(mut self, mut manifest: Manifest) -> Result<Store> {
        assert!(
            self._interrupt.is_none(),
            "a store on disk is finished by finish"
        );
        let cols = self.cols.take().expect("finish twice");
        manifest.docs = self.docs;
        manifest.stats.documents = self.docs;
        manifest.stats.duplicate_ids = self.duplicate_ids;
        let cols: HashMap<String, Mapped> = cols
            .all()
            .into_iter()
            .map(|(n, c)| match c {
                Col::Mem(v) => (n, Mapped::from_vec(v)),
                Col::File(_) => unreachable!("a memory store has no files"),
            })
            .collect();
        Store::in_memory(&self.target, manifest, cols)
    }
}

impl Drop for StoreWriter {
    fn drop(&mut self) {
        // After a successful finish the temporary directory has been renamed away.
        if self._interrupt.is_some() && self.tmp.exists() {
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::store::reader::Store;

    fn manifest() -> Manifest {
        Manifest::new(
            Default::default(),
            Default::default(),
            Default::default(),
            vec![],
        )
    }

    /// The checksums computed as the columns are written are those of the files (the store's
    /// readers check them), and the shingle sets come back as written, document by document.
    #[test]
    fn streamed_checksums_are_the_files_and_shingle_sets_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s");
        let mut w = StoreWriter::create(&target, false)
            .unwrap()
            .with_minhash(3)
            .unwrap()
            .with_shingles()
            .unwrap();
        let sets: Vec<Vec<u64>> = (0..200u64)
            .map(|i| (0..(i * 13) % 97).map(|j| j * 31 + i).collect())
            .collect();
        for (i, set) in sets.iter().enumerate() {
            w.push(&Row {
                id: format!("id{i}"),
                url: "x".repeat(i % 5),
                minhash: vec![i as u64; 3],
                shingles: set.clone(),
                ..Row::default()
            })
            .unwrap();
        }
        let mut m = manifest();
        m.shingles = Some(super::super::ShingleParams::new(8));
        m.minhash = Some(crate::fingerprint::minhash::MinhashParams {
            bands: 3,
            ..Default::default()
        });
        let m = w.finish(m).unwrap();
        let names: Vec<String> = m.checksums.keys().cloned().collect();
        assert!(names.iter().any(|n| n == col::SHINGLES), "{names:?}");
        assert_eq!(
            super::super::checksum::compute(&target, &names).unwrap(),
            m.checksums
        );
        let s = Store::open(&target).unwrap();
        let (mut file, mut read) = (None, Vec::new());
        for (i, set) in sets.iter().enumerate() {
            s.read_shingles(i, &mut file, &mut read).unwrap();
            assert_eq!(read, *set, "document {i}, read from the file");
        }
    }

    #[test]
    fn an_unfinished_store_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s");
        {
            let mut w = StoreWriter::create(&target, false).unwrap();
            w.push(&Row::default()).unwrap();
            // Dropped without finish, as when a run is interrupted.
        }
        assert!(!target.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn finish_round_trips_and_replaces_only_with_force() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s");
        let mut w = StoreWriter::create(&target, false).unwrap();
        for i in 0..3u64 {
            w.push(&Row {
                id: format!("id{i}"),
                url: if i == 1 {
                    String::new()
                } else {
                    format!("u{i}")
                },
                fp64: i * 7,
                fp128: (u128::from(i) << 64) | u128::from(i * 7),
                ..Row::default()
            })
            .unwrap();
        }
        w.push(&Row {
            id: "id0".into(),
            ..Row::default()
        })
        .unwrap();
        w.finish(manifest()).unwrap();
        let s = Store::open(&target).unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(s.id(2), "id2");
        assert_eq!(s.url(1), "");
        assert_eq!(s.fp64(), &[0, 7, 14, 0]);
        assert_eq!(s.fp128()[2], [14, 2]);
        assert_eq!(s.flags()[3], flags::DUPLICATE_ID);
        assert_eq!(s.manifest.stats.duplicate_ids, 1);
        assert!(StoreWriter::create(&target, false).is_err());
        let w = StoreWriter::create(&target, true).unwrap();
        w.finish(manifest()).unwrap();
        assert_eq!(Store::open(&target).unwrap().len(), 0);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_truncated_column_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s");
        let mut w = StoreWriter::create(&target, false).unwrap();
        w.push(&Row::default()).unwrap();
        w.finish(manifest()).unwrap();
        fs::write(target.join(col::FP64), [0u8; 4]).unwrap();
        let err = Store::open(&target).err().unwrap().to_string();
        assert!(err.contains("fp64.u64"), "{err}");
    }

    /// A damaged id index and an impossible document count are refused when the store opens
    /// (before, the first showed as empty ids and the second wrapped the size check).
    #[test]
    fn a_damaged_index_or_count_is_refused_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s");
        let mut w = StoreWriter::create(&target, false).unwrap();
        for id in ["aa", "bb", "cc"] {
            let row = Row {
                id: id.into(),
                ..Row::default()
            };
            w.push(&row).unwrap();
        }
        w.finish(manifest()).unwrap();
        let idx_path = target.join(col::IDS_IDX);
        let good = fs::read(&idx_path).unwrap();
        let mut bad = good.clone();
        bad[8..16].copy_from_slice(&5u64.to_le_bytes());
        fs::write(&idx_path, &bad).unwrap();
        let err = Store::open(&target).err().unwrap().to_string();
        assert!(err.contains("ids.idx: offset 2 is not in order"), "{err}");
        fs::write(&idx_path, &good).unwrap();
        assert!(Store::open(&target).is_ok());

        // An empty store claiming 2^61 documents: every column's expected size wraps to the
        // size it has (0 bytes, and 8 for the indexes).
        let empty = dir.path().join("e");
        StoreWriter::create(&empty, false)
            .unwrap()
            .finish(manifest())
            .unwrap();
        let mpath = empty.join(col::MANIFEST);
        let json = fs::read_to_string(&mpath).unwrap();
        let huge = json.replace("\"docs\": 0", &format!("\"docs\": {}", 1u64 << 61));
        assert_ne!(huge, json);
        fs::write(&mpath, huge).unwrap();
        let err = Store::open(&empty).err().unwrap().to_string();
        assert!(err.contains("claims"), "{err}");
    }
}
