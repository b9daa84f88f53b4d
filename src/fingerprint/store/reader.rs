//! Opens stores read-only, by memory-mapping their columns.
//!
//! Opening checks the manifest's format and version and every column's length against the
//! document count, so a truncated or foreign directory is refused with a message naming it.
//! [`open_many`] opens several stores as one corpus and refuses to mix stores whose
//! fingerprints were made with different parameters.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{col, Manifest, FORMAT, VERSION};
use crate::base::mmap::{self, Mapped};
use std::sync::Arc;

use crate::corpus::{InMemory, SourceLoc};
use crate::{Error, Result};

/// A store's MinHash band keys.
enum MinhashColumns {
    /// One file, `bands` keys per document (stores made before the band files).
    DocMajor { keys: Mapped, bands: usize },
    /// One file per band, a key per document.
    Bands(Vec<Mapped>),
    /// A store in memory: a key per document, band by band; a band handed back
    /// ([`Store::release_minhash_band`]) is freed for good (a store in memory serves one job,
    /// whose pass over the bands reads each once).
    Memory(Vec<std::sync::Mutex<Option<Mapped>>>),
}

/// Keys band by band, `n` documents, as keys document by document.
fn doc_major(cols: &[&[u64]], n: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(n * cols.len());
    for d in 0..n {
        out.extend(cols.iter().map(|c| c[d]));
    }
    out
}

/// An open store.
pub struct Store {
    path: PathBuf,
    /// The manifest.
    pub manifest: Manifest,
    fp64: Mapped,
    fp128: Mapped,
    content: Mapped,
    flags: Mapped,
    text_len: Mapped,
    terms: Mapped,
    source: Mapped,
    ids: Mapped,
    ids_idx: Mapped,
    urls: Mapped,
    urls_idx: Mapped,
    minhash: Option<MinhashColumns>,
    /// `chunks.u128` and `chunks.idx`, in a store built with chunks.
    chunks: Option<(Mapped, Mapped)>,
    /// `shingles.u64` and `shingles.idx`, in a store built with shingle sets.
    shingles: Option<(Mapped, Mapped)>,
    /// `blocks.u64` and `blocks.idx`, in a store of main content.
    blocks: Option<(Mapped, Mapped)>,
    /// `values.f64`, in a store built with a keep field.
    values: Option<Mapped>,
    /// `canonical.bin` and its index (None in version 1 stores).
    canonical: Option<(Mapped, Mapped)>,
    /// The documents themselves, for a store made in memory from a table the caller holds.
    memory: Option<Arc<dyn InMemory>>,
}

impl Store {
    /// Opens the store at `path`.
    pub fn open(path: &Path) -> Result<Store> {
        let mpath = path.join(col::MANIFEST);
        let json = std::fs::read(&mpath).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::store(
                    path,
                    "no manifest.json: not a neardup store, or one whose writing did not finish",
                )
            } else {
                Error::io(&mpath, e)
            }
        })?;
        let manifest: Manifest = serde_json::from_slice(&json)
            .map_err(|e| Error::store(path, format!("unreadable manifest.json: {e}")))?;
        if manifest.format != FORMAT || !(1..=VERSION).contains(&manifest.version) {
            return Err(Error::store(
                path,
                format!(
                    "format {} version {} is not {FORMAT} version 1 to {VERSION}",
                    manifest.format, manifest.version
                ),
            ));
        }
        if manifest.params.text == crate::text::extract::TextMode::Main
            && manifest.params.text_extractor != crate::text::extract::MAIN_EXTRACTOR
        {
            return Err(Error::store(
                path,
                format!(
                    "made with --text main by an earlier main-content extractor ({}); this \
                     version reads other text from the same pages: fingerprint the crawl again",
                    if manifest.params.text_extractor.is_empty() {
                        "before v2"
                    } else {
                        &manifest.params.text_extractor
                    }
                ),
            ));
        }
        let n = usize::try_from(manifest.docs)
            .ok()
            .filter(|n| n.checked_add(1).and_then(|m| m.checked_mul(16)).is_some())
            .ok_or_else(|| {
                Error::store(
                    path,
                    format!("manifest.json claims {} documents", manifest.docs),
                )
            })?;
        // The columns the manifest asks for, by name, for the checksums to cover.
        let asked = std::sync::Mutex::new(std::collections::BTreeSet::new());
        let store = Store::assemble(
            path,
            manifest,
            n,
            &|name| {
                asked.lock().unwrap().insert(name.to_string());
                mmap::map(&path.join(name))
            },
            &|name| path.join(name).exists(),
        )?;
        super::checksum::verify(path, &store.manifest, &asked.into_inner().unwrap())?;
        Ok(store)
    }

    /// Opens the store at `path` as [`Store::open`] does but without reading its files for
    /// their checksums: for the later tasks of a split run, whose first stage opened the same
    /// files with their checksums checked (a column's length is still checked against the
    /// manifest, so a store changed since is refused).
    pub fn open_checked_before(path: &Path) -> Result<Store> {
        let mpath = path.join(col::MANIFEST);
        let json = std::fs::read(&mpath).map_err(|e| Error::io(&mpath, e))?;
        let manifest: Manifest = serde_json::from_slice(&json)
            .map_err(|e| Error::store(path, format!("unreadable manifest.json: {e}")))?;
        let n = manifest.docs as usize;
        Store::assemble(
            path,
            manifest,
            n,
            &|name| mmap::map(&path.join(name)),
            &|name| path.join(name).exists(),
        )
    }

    /// A store of the documents `rows` of this one (ascending), its columns copied into
    /// memory: what a task that needs a few documents of many stores holds, rather than every
    /// document's columns. Texts are read again from the same shards (the manifest's), and
    /// the store is named by this one's path.
    pub fn rows(&self, rows: &[u32]) -> Result<Store> {
        use std::collections::HashMap;
        fn pick<T: bytemuck::Pod>(col: &[T], rows: &[u32]) -> Mapped {
            let v: Vec<T> = rows.iter().map(|r| col[*r as usize]).collect();
            Mapped::from_vec(bytemuck::cast_slice(&v).to_vec())
        }
        /// The rows' ranges of an indexed column (`data` by the offsets in `idx`), with
        /// their new index.
        fn ranges<T: bytemuck::Pod>(data: &[u8], idx: &[u8], rows: &[u32]) -> (Mapped, Mapped) {
            let (data, offsets): (&[T], &[u64]) = (column(data), column(idx));
            let (mut out, mut offs) = (Vec::<T>::new(), vec![0u64]);
            for r in rows {
                let (a, b) = (offsets[*r as usize], offsets[*r as usize + 1]);
                out.extend_from_slice(data.get(a as usize..b as usize).unwrap_or(&[]));
                offs.push(out.len() as u64);
            }
            (
                Mapped::from_vec(bytemuck::cast_slice(&out).to_vec()),
                Mapped::from_vec(bytemuck::cast_slice(&offs).to_vec()),
            )
        }
        let mut cols: HashMap<String, Mapped> = HashMap::new();
        cols.insert(col::FP64.into(), pick::<u64>(self.fp64(), rows));
        cols.insert(col::FP128.into(), pick::<[u64; 2]>(self.fp128(), rows));
        cols.insert(
            col::CONTENT.into(),
            pick::<[u64; 2]>(self.content_hash(), rows),
        );
        cols.insert(col::FLAGS.into(), pick::<u8>(self.flags(), rows));
        cols.insert(col::TEXT_LEN.into(), pick::<u32>(self.text_len(), rows));
        cols.insert(col::TERMS.into(), pick::<u32>(self.terms(), rows));
        cols.insert(col::SOURCE.into(), pick::<SourceLoc>(self.source(), rows));
        let (ids, ids_idx) = ranges::<u8>(&self.ids, &self.ids_idx, rows);
        cols.insert(col::IDS.into(), ids);
        cols.insert(col::IDS_IDX.into(), ids_idx);
        let (urls, urls_idx) = ranges::<u8>(&self.urls, &self.urls_idx, rows);
        cols.insert(col::URLS.into(), urls);
        cols.insert(col::URLS_IDX.into(), urls_idx);
        if let Some((data, idx)) = &self.canonical {
            let (c, ci) = ranges::<u8>(data, idx, rows);
            cols.insert(col::CANONICAL.into(), c);
            cols.insert(col::CANONICAL_IDX.into(), ci);
        }
        if let Some(v) = self.values() {
            cols.insert(col::VALUES.into(), pick::<f64>(v, rows));
        }
        if let Some(p) = &self.manifest.minhash {
            for b in 0..p.bands as usize {
                let band = self
                    .minhash_band(b)
                    .ok_or_else(|| Error::store(&self.path, format!("no band {b}")))?;
                cols.insert(col::minhash_band(b), pick::<u64>(&band, rows));
            }
        }
        if let Some((data, idx)) = &self.shingles {
            let (sets, sets_idx) = ranges::<u64>(data, idx, rows);
            cols.insert(col::SHINGLES.into(), sets);
            cols.insert(col::SHINGLES_IDX.into(), sets_idx);
        }
        if let Some((data, idx)) = &self.blocks {
            let (keys, keys_idx) = ranges::<u64>(data, idx, rows);
            cols.insert(col::BLOCKS.into(), keys);
            cols.insert(col::BLOCKS_IDX.into(), keys_idx);
        }
        if let Some((data, idx)) = &self.chunks {
            let (hashes, hashes_idx) = ranges::<u128>(data, idx, rows);
            cols.insert(col::CHUNKS.into(), hashes);
            cols.insert(col::CHUNKS_IDX.into(), hashes_idx);
        }
        let mut manifest = self.manifest.clone();
        manifest.docs = rows.len() as u64;
        let mut store = Store::in_memory(&self.path, manifest, cols)?;
        // Its bands are read as a store on disk reads them, once per pass.
        store.memory = self.memory.clone();
        Ok(store)
    }

    /// A store whose columns are in memory (by file name), with the checks [`Store::open`]
    /// makes on files; `label` names it in messages.
    pub fn in_memory(
        label: &Path,
        manifest: Manifest,
        mut cols: std::collections::HashMap<String, Mapped>,
    ) -> Result<Store> {
        let n = manifest.docs as usize;
        let cols = std::sync::Mutex::new(&mut cols);
        let mut store = Store::assemble(
            label,
            manifest,
            n,
            &|name| {
                cols.lock()
                    .unwrap()
                    .remove(name)
                    .ok_or_else(|| Error::store(label, format!("no column {name}")))
            },
            &|name| cols.lock().unwrap().contains_key(name),
        )?;
        // Band keys in memory are freed once the job's pass has read them: the bands would
        // otherwise stay resident (320 bytes a document at 40 bands), where a store on disk
        // hands their pages back.
        if let Some(MinhashColumns::Bands(maps)) = store.minhash.take() {
            store.minhash = Some(MinhashColumns::Memory(
                maps.into_iter()
                    .map(|m| std::sync::Mutex::new(Some(m)))
                    .collect(),
            ));
        }
        Ok(store)
    }

    /// The store of `manifest` for `n` documents, its columns taken by name from `column`,
    /// each checked against the document count; `has` tells whether a column is there
    /// without taking it.
    fn assemble(
        path: &Path,
        manifest: Manifest,
        n: usize,
        column: &dyn Fn(&str) -> Result<Mapped>,
        has: &dyn Fn(&str) -> bool,
    ) -> Result<Store> {
        let open = |name: &str, unit: usize, extra: usize| -> Result<Mapped> {
            let m = column(name)?;
            // Cannot overflow: n + 1 documents of 16 bytes were checked above, and
            // `SourceLoc` columns (32 bytes) are checked against a file that exists.
            let want = (n + extra).saturating_mul(unit);
            if m.len() != want {
                return Err(Error::store(
                    path,
                    format!(
                        "{name} has {} bytes, expected {want} for {n} documents",
                        m.len()
                    ),
                ));
            }
            Ok(m)
        };
        let ids_idx = open(col::IDS_IDX, 8, 1)?;
        let urls_idx = open(col::URLS_IDX, 8, 1)?;
        let ids_len = last_offset(&ids_idx);
        let urls_len = last_offset(&urls_idx);
        for (name, idx) in [(col::IDS_IDX, &ids_idx), (col::URLS_IDX, &urls_idx)] {
            if let Some(i) = unordered(idx) {
                return Err(Error::store(
                    path,
                    format!("{name}: offset {i} is not in order (the index is damaged)"),
                ));
            }
        }
        // An offset index in order, and a data column of `unit` bytes per offset that ends
        // where the index does.
        let indexed = |idx_name: &str, data_name: &str, unit: u64| -> Result<(Mapped, Mapped)> {
            let idx = open(idx_name, 8, 1)?;
            if let Some(i) = unordered(&idx) {
                return Err(Error::store(
                    path,
                    format!("{idx_name}: offset {i} is not in order (the index is damaged)"),
                ));
            }
            let data = column(data_name)?;
            if data.len() as u64 != last_offset(&idx).saturating_mul(unit) {
                return Err(Error::store(
                    path,
                    format!("{data_name} does not match its index"),
                ));
            }
            Ok((data, idx))
        };
        // Version 1 stores have no canonical links: an empty column stands in.
        let canonical = if manifest.version >= 2 {
            Some(indexed(col::CANONICAL_IDX, col::CANONICAL, 1)?)
        } else {
            None
        };
        let minhash = match &manifest.minhash {
            // Stores made before the band files hold one column, document by document.
            Some(p) if has(col::MINHASH) => Some(MinhashColumns::DocMajor {
                keys: open(col::MINHASH, 8 * p.bands as usize, 0)?,
                bands: p.bands as usize,
            }),
            Some(p) => Some(MinhashColumns::Bands(
                (0..p.bands as usize)
                    .map(|b| open(&col::minhash_band(b), 8, 0))
                    .collect::<Result<Vec<_>>>()?,
            )),
            None => None,
        };
        let chunks = match &manifest.chunks {
            Some(_) => Some(indexed(col::CHUNKS_IDX, col::CHUNKS, 16)?),
            None => None,
        };
        let shingles = match &manifest.shingles {
            Some(_) => Some(indexed(col::SHINGLES_IDX, col::SHINGLES, 8)?),
            None => None,
        };
        // Block keys of another making are not read (own content is then not told).
        let blocks = match &manifest.blocks {
            Some(b) if b.key == super::BLOCK_KEY && b.title == super::BLOCK_TITLE => {
                Some(indexed(col::BLOCKS_IDX, col::BLOCKS, 8)?)
            }
            _ => None,
        };
        let values = match &manifest.keep_field {
            Some(_) => Some(open(col::VALUES, 8, 0)?),
            None => None,
        };
        let s = Store {
            memory: None,
            values,
            chunks,
            shingles,
            blocks,
            canonical,
            minhash,
            path: path.to_path_buf(),
            fp64: open(col::FP64, 8, 0)?,
            fp128: open(col::FP128, 16, 0)?,
            content: open(col::CONTENT, 16, 0)?,
            flags: open(col::FLAGS, 1, 0)?,
            text_len: open(col::TEXT_LEN, 4, 0)?,
            terms: open(col::TERMS, 4, 0)?,
            source: open(col::SOURCE, std::mem::size_of::<SourceLoc>(), 0)?,
            ids: column(col::IDS)?,
            urls: column(col::URLS)?,
            ids_idx,
            urls_idx,
            manifest,
        };
        if s.ids.len() as u64 != ids_len || s.urls.len() as u64 != urls_len {
            return Err(Error::store(
                path,
                "ids.bin or urls.bin does not match its index",
            ));
        }
        Ok(s)
    }

    /// The store with the documents it was made from, held in memory: they are read again
    /// from there (verification), not from shards.
    pub fn with_memory(mut self, docs: Arc<dyn InMemory>) -> Store {
        self.memory = Some(docs);
        self
    }

    /// The documents held in memory, for a store made from a table.
    pub fn memory(&self) -> Option<&dyn InMemory> {
        self.memory.as_deref()
    }

    /// The store's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// XXH3-64 of the manifest as read (its parameters, shards and every column's checksum),
    /// 16 hex digits: what tells this store from one made again or replaced at the same path.
    pub fn manifest_digest(&self) -> String {
        let bytes = serde_json::to_vec(&self.manifest).unwrap_or_default();
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes))
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.manifest.docs as usize
    }

    /// Whether the store holds no documents.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// MinHash band keys, `bands` per document in store order, when the store has them
    /// (gathered from the band files: `bands` x 8 bytes a document in memory).
    pub fn minhash(&self) -> Option<Cow<'_, [u64]>> {
        match self.minhash.as_ref()? {
            MinhashColumns::DocMajor { keys, .. } => Some(Cow::Borrowed(column(keys))),
            MinhashColumns::Bands(files) => {
                let cols: Vec<&[u64]> = files.iter().map(|m| column(m)).collect();
                Some(Cow::Owned(doc_major(&cols, self.len())))
            }
            MinhashColumns::Memory(bands) => {
                let held: Vec<_> = bands.iter().map(|b| b.lock().unwrap()).collect();
                let cols: Option<Vec<&[u64]>> =
                    held.iter().map(|b| b.as_ref().map(|m| column(m))).collect();
                Some(Cow::Owned(doc_major(&cols?, self.len())))
            }
        }
    }

    /// The MinHash keys of band `b`, one per document in store order, when the store has
    /// them: read in place from the band's file (gathered from an older store's single
    /// column).
    pub fn minhash_band(&self, b: usize) -> Option<Cow<'_, [u64]>> {
        match self.minhash.as_ref()? {
            MinhashColumns::DocMajor { keys, bands } => Some(Cow::Owned(
                column::<u64>(keys)
                    .iter()
                    .skip(b)
                    .step_by(*bands)
                    .copied()
                    .collect(),
            )),
            MinhashColumns::Bands(files) => files.get(b).map(|m| Cow::Borrowed(column(m))),
            MinhashColumns::Memory(bands) => bands
                .get(b)?
                .lock()
                .unwrap()
                .as_ref()
                .map(|m| Cow::Owned(column::<u64>(m).to_vec())),
        }
    }

    /// Hands the pages of band `b`'s file back to the kernel after a pass over it, so that the
    /// bands read one after another do not add up in the resident memory.
    pub fn release_minhash_band(&self, b: usize) {
        match &self.minhash {
            Some(MinhashColumns::Bands(files)) => {
                if let Some(m) = files.get(b) {
                    m.release_all();
                }
            }
            Some(MinhashColumns::Memory(bands)) => {
                if let Some(band) = bands.get(b) {
                    band.lock().unwrap().take();
                }
            }
            _ => {}
        }
    }

    /// The keep field's number of each document (NaN where a document had none), when the
    /// store has them.
    pub fn values(&self) -> Option<&[f64]> {
        self.values.as_ref().map(|m| column(m))
    }

    /// The field whose numbers [`Store::values`] holds.
    pub fn keep_field(&self) -> Option<&str> {
        self.manifest.keep_field.as_deref()
    }

    /// The paragraph chunk hashes, when the store has them.
    pub fn chunks(&self) -> Option<Chunks<'_>> {
        self.chunks.as_ref().map(|(data, idx)| Chunks {
            hashes: column(data),
            idx: column(idx),
        })
    }

    /// The block keys (a title key, then the blocks), when the store has them.
    pub fn blocks(&self) -> Option<Chunks<'_, u64>> {
        self.blocks.as_ref().map(|(data, idx)| Chunks {
            hashes: column(data),
            idx: column(idx),
        })
    }

    /// Document `i`'s shingle set into `out` (cleared first; empty in a store without sets).
    /// From a store on disk the set is read from the column file (opened into `file` on
    /// first use), not touched through the map: the sets read are the caller's memory, counted
    /// once, and the column's pages stay out of this process.
    pub fn read_shingles(
        &self,
        i: usize,
        file: &mut Option<std::fs::File>,
        out: &mut Vec<u64>,
    ) -> Result<()> {
        out.clear();
        let Some((data, idx)) = &self.shingles else {
            return Ok(());
        };
        let idx: &[u64] = column(idx);
        let (a, b) = (idx[i], idx[i + 1]);
        // Checked against the data's length when opened; a damaged index reads as no set.
        if b < a || b.saturating_mul(8) > data.len() as u64 {
            return Ok(());
        }
        if !data.is_file() {
            out.extend_from_slice(&column::<u64>(data)[a as usize..b as usize]);
            return Ok(());
        }
        let path = self.path.join(col::SHINGLES);
        if file.is_none() {
            *file = Some(std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?);
        }
        let f = file.as_ref().expect("opened above");
        out.resize((b - a) as usize, 0);
        crate::base::spool::read_exact_at(f, bytemuck::cast_slice_mut(out), a * 8)
            .map_err(|e| Error::io(&path, e))
    }

    /// SimHash-64 column.
    pub fn fp64(&self) -> &[u64] {
        column(&self.fp64)
    }

    /// SimHash-128 column as (low, high) pairs.
    pub fn fp128(&self) -> &[[u64; 2]] {
        column(&self.fp128)
    }

    /// Content hash column as (low, high) pairs.
    pub fn content_hash(&self) -> &[[u64; 2]] {
        column(&self.content)
    }

    /// Flags column.
    pub fn flags(&self) -> &[u8] {
        &self.flags
    }

    /// Text length column.
    pub fn text_len(&self) -> &[u32] {
        column(&self.text_len)
    }

    /// Term count column.
    pub fn terms(&self) -> &[u32] {
        column(&self.terms)
    }

    /// Source location column.
    pub fn source(&self) -> &[SourceLoc] {
        column(&self.source)
    }

    /// The id of document `i`.
    pub fn id(&self, i: usize) -> &str {
        string_at(&self.ids, &self.ids_idx, i)
    }

    /// The URL of document `i` (may be empty).
    pub fn url(&self, i: usize) -> &str {
        string_at(&self.urls, &self.urls_idx, i)
    }

    /// Canonical URL of document `i` (resolved; empty when the page named none, or in a
    /// version 1 store).
    pub fn canonical(&self, i: usize) -> &str {
        match &self.canonical {
            Some((data, idx)) => string_at(data, idx, i),
            None => "",
        }
    }

    /// Whether the store records canonical links (version 2 on).
    pub fn has_canonical(&self) -> bool {
        self.canonical.is_some()
    }
}

/// A store's variable-length column of hashes (the paragraph chunks, the block keys): every
/// document's, in store order.
#[derive(Clone, Copy)]
pub struct Chunks<'a, T = u128> {
    /// All hashes, document after document.
    pub hashes: &'a [T],
    /// Document `i`'s are `hashes[idx[i]..idx[i + 1]]`.
    pub idx: &'a [u64],
}

impl<'a, T> Chunks<'a, T> {
    /// The hashes of document `i`.
    pub fn doc(&self, i: usize) -> &'a [T] {
        let (a, b) = (self.idx[i] as usize, self.idx[i + 1] as usize);
        // Checked against the data's length when opened; a damaged index reads as no chunks.
        self.hashes.get(a..b).unwrap_or(&[])
    }

    /// Number of documents.
    pub fn docs(&self) -> usize {
        self.idx.len().saturating_sub(1)
    }
}

/// A mapped column as a typed slice; an empty file is an empty slice (its dangling pointer
/// is not aligned for `T`, which `cast_slice` would refuse with a panic).
fn column<T: bytemuck::Pod>(m: &[u8]) -> &[T] {
    if m.is_empty() {
        &[]
    } else {
        bytemuck::cast_slice(m)
    }
}

/// The first entry of an offset index that is not in order (the first must be 0), if any.
fn unordered(idx: &[u8]) -> Option<usize> {
    let offs: &[u64] = column(idx);
    if offs.first().is_some_and(|o| *o != 0) {
        return Some(0);
    }
    offs.windows(2).position(|w| w[0] > w[1]).map(|i| i + 1)
}

fn last_offset(idx: &[u8]) -> u64 {
    let offs: &[u64] = column(idx);
    offs.last().copied().unwrap_or(0)
}

fn string_at<'a>(data: &'a [u8], idx: &[u8], i: usize) -> &'a str {
    let offs: &[u64] = column(idx);
    let (a, b) = (offs[i] as usize, offs[i + 1] as usize);
    let bytes = data.get(a..b).unwrap_or(&[]);
    // Written from &str by the writer; a damaged file shows as an empty id, never a panic.
    std::str::from_utf8(bytes).unwrap_or("")
}

/// Opens several stores as one corpus; they must share fingerprint parameters.
pub fn open_many(paths: &[PathBuf]) -> Result<Vec<Store>> {
    let stores = paths
        .iter()
        .map(|p| Store::open(p))
        .collect::<Result<Vec<_>>>()?;
    if let Some(first) = stores.first() {
        for s in &stores[1..] {
            let d = first.manifest.params.diff(&s.manifest.params);
            if !d.is_empty() {
                return Err(Error::Mismatch {
                    a: first.path.clone(),
                    b: s.path.clone(),
                    what: d.join("; "),
                });
            }
        }
    }
    Ok(stores)
}
