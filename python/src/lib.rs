//! `neardup._neardup`: the library for Python. The `dedup` job runs as a library call on
//! options given by name (the command line's, `_` for `-`, validated by the library), on
//! crawls and stores or on an Arrow table in memory; the other commands run in this process
//! through the command line's own parsing. The GIL is released while a job works; stores open
//! with their columns as NumPy views of the mapped files.

use numpy::ndarray::{ArrayView1, ArrayView2};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    _neardup,
    NeardupError,
    PyException,
    "An error neardup reported: bad arguments, unreadable inputs, outputs it will not replace."
);

/// Runs one neardup command line (without the program name), as the `neardup` binary would,
/// in this process. Returns True when every input was read, False when some could not be (the
/// binary's exit status 2 with outputs written); raises NeardupError on an error.
#[pyfunction]
fn run(py: Python<'_>, args: Vec<String>) -> PyResult<bool> {
    use clap::Parser;
    let argv = std::iter::once("neardup".to_string()).chain(args);
    let cli = match neardup::cli::Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            // Help and version are answers, printed as the binary prints them.
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return Ok(true);
            }
            return Err(NeardupError::new_err(e.to_string()));
        }
    };
    let outcome = py.detach(|| neardup::cli::execute(cli));
    match outcome {
        Ok(o) => Ok(o == neardup::cli::Outcome::Clean),
        Err(e) => Err(NeardupError::new_err(neardup::cli::message(&e))),
    }
}

/// Runs `f` on a pool of `threads` threads (None: rayon's global pool, one per core).
fn with_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> anyhow::Result<T> + Send,
) -> anyhow::Result<T> {
    match threads {
        None => f(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()?
            .install(f),
    }
}

fn job_error(e: anyhow::Error) -> PyErr {
    NeardupError::new_err(neardup::cli::message(&e))
}

/// The `dedup` job on crawls or stores: `options` is a JSON object of dedup's options by name
/// (`inputs` and `output` among them). Returns (clean, summary.json's path): clean is False
/// when some inputs could not be read.
#[pyfunction]
#[pyo3(signature = (options, quiet=false, threads=None))]
fn dedup_files(
    py: Python<'_>,
    options: &str,
    quiet: bool,
    threads: Option<usize>,
) -> PyResult<(bool, std::path::PathBuf)> {
    use neardup::jobs::{options::DedupOptions, spec::DedupSpec};
    let o = DedupOptions::from_json(options).map_err(job_error)?;
    if let Some(n) = o.partitions {
        // The stages split into tasks, run here one after another.
        py.detach(|| {
            with_threads(threads, || {
                neardup::jobs::split::run_here(options, n, quiet)
            })
        })
        .map_err(job_error)?;
        return Ok((true, o.output.join("summary.json")));
    }
    let spec = DedupSpec::new(&o).map_err(job_error)?;
    let run = py
        .detach(|| with_threads(threads, || neardup::jobs::dedup::dedup(&spec, quiet)))
        .map_err(job_error)?;
    Ok((
        run.outcome == neardup::jobs::Outcome::Clean,
        spec.output.join("summary.json"),
    ))
}

/// A stream of record batches from anything with `__arrow_c_stream__`, read through the
/// Arrow C stream interface without a copy.
fn arrow_stream(
    data: &Bound<'_, PyAny>,
) -> PyResult<arrow_array::ffi_stream::RecordBatchStreamReader> {
    use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
    use pyo3::types::PyCapsule;
    let capsule = data.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let ptr = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: a capsule named "arrow_array_stream" holds a valid, initialized, aligned
    // ArrowArrayStream (the Arrow PyCapsule interface). `from_raw` moves the stream out and
    // leaves a released one behind, which the capsule's destructor then releases as a no-op;
    // the capsule stays alive (bound above) while the move happens.
    let stream = unsafe { FFI_ArrowArrayStream::from_raw(ptr.as_ptr().cast()) };
    RecordBatchStreamReader::try_new(stream)
        .map_err(|e| NeardupError::new_err(format!("the table's Arrow stream: {e}")))
}

/// A table scanned again by calling a Python function that returns a new stream of it.
struct PyScan {
    make: Py<PyAny>,
}

impl neardup::corpus::arrow::Scan for PyScan {
    fn scan(
        &self,
    ) -> neardup::Result<Box<dyn Iterator<Item = neardup::Result<arrow_array::RecordBatch>> + '_>>
    {
        let reader = Python::attach(|py| arrow_stream(&self.make.bind(py).call0()?))
            .map_err(|e| neardup::Error::Config(format!("scanning the table again: {e}")))?;
        Ok(Box::new(reader.map(|b| {
            b.map_err(|e| neardup::Error::Config(format!("scanning the table: {e}")))
        })))
    }
}

/// The `dedup` job on an Arrow table: `data` is anything with `__arrow_c_stream__` (a pyarrow
/// Table or RecordBatchReader), read through the Arrow C stream interface without a copy and
/// held while the job runs; or, with `rescan` (a function returning a new such stream of the
/// same rows each call: a dataset scanned again), a table read a batch at a time, twice or
/// more, `rows` of them about. `options` is a JSON object of dedup's options by name. Returns
/// NumPy arrays aligned with the rows, `cluster` and `kept_row` (uint64: rows of the table) and
/// `score` (float64, NaN where none), and the summary as JSON.
#[pyfunction]
#[pyo3(signature = (data, options, quiet=false, threads=None, rescan=None, rows=0))]
#[allow(clippy::type_complexity)]
fn dedup_table<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    options: &str,
    quiet: bool,
    threads: Option<usize>,
    rescan: Option<Py<PyAny>>,
    rows: usize,
) -> PyResult<(
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<f64>>,
    String,
)> {
    use arrow_array::RecordBatchReader;
    use neardup::corpus::arrow::{Batches, Streamed};
    use neardup::fingerprint::build::Table;
    use neardup::jobs::{options::DedupOptions, spec::DedupSpec};
    let o = DedupOptions::from_json(options).map_err(job_error)?;
    if o.partitions.is_some() {
        return Err(NeardupError::new_err(
            "partitions split a run over stores; a table in memory is deduplicated in this process: give no partitions",
        ));
    }
    let spec = DedupSpec::new(&o).map_err(job_error)?;
    let bad = |e: neardup::Error| NeardupError::new_err(e.to_string());
    let table = match rescan {
        None => {
            let reader = arrow_stream(data)?;
            let schema = reader.schema();
            // The batches borrow the table's buffers (no copy); reading them takes the GIL,
            // as a stream made in Python may need it.
            let batches = reader
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| NeardupError::new_err(format!("the table's Arrow stream: {e}")))?;
            Table::Held(std::sync::Arc::new(
                Batches::new(batches, &schema, &spec.build.read).map_err(bad)?,
            ))
        }
        Some(make) => {
            let schema = arrow_stream(data)?.schema();
            let scan = Box::new(PyScan { make });
            Table::Scanned(
                std::sync::Arc::new(Streamed::new(scan, &schema, &spec.build.read).map_err(bad)?),
                rows,
            )
        }
    };
    let r = py
        .detach(|| {
            with_threads(threads, || {
                neardup::jobs::table::dedup_table(table, &spec, quiet)
            })
        })
        .map_err(job_error)?;
    let summary =
        serde_json::to_string(&r.summary).map_err(|e| NeardupError::new_err(e.to_string()))?;
    Ok((
        PyArray1::from_vec(py, r.cluster),
        PyArray1::from_vec(py, r.kept_row),
        PyArray1::from_vec(py, r.score),
        summary,
    ))
}

/// The pairs as arrays: document indices `a` and `b`, and their 64- and 128-bit distances.
type PairArrays<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u8>>,
);

fn pair_arrays<'py, 'a>(
    py: Python<'py>,
    pairs: impl Iterator<Item = &'a neardup::join::Pair> + Clone,
) -> PairArrays<'py> {
    (
        PyArray1::from_vec(py, pairs.clone().map(|p| p.a).collect()),
        PyArray1::from_vec(py, pairs.clone().map(|p| p.b).collect()),
        PyArray1::from_vec(py, pairs.clone().map(|p| p.d64).collect()),
        PyArray1::from_vec(py, pairs.map(|p| p.d128).collect()),
    )
}

/// Every document's id, as the lists name them.
fn ids_of(stores: &neardup::fingerprint::store::StoreSet) -> Vec<String> {
    (0..stores.len() as u32)
        .map(|d| stores.id(d).to_string())
        .collect()
}

/// The `join` job: `options` is a JSON object of join's options by name (`stores`, `against`,
/// `tau`, `tau128`, `method`, `backend`, ...). Returns the pairs as NumPy arrays, in the TSV's
/// order (by document index): `a` and `b` (uint32, documents of the stores in order),
/// `hamming64` and `hamming128` (uint8), and every document's id (as the lists name them).
#[pyfunction]
#[pyo3(signature = (options, quiet=false, threads=None))]
#[allow(clippy::type_complexity)]
fn join_pairs<'py>(
    py: Python<'py>,
    options: &str,
    quiet: bool,
    threads: Option<usize>,
) -> PyResult<(PairArrays<'py>, Vec<String>)> {
    use neardup::jobs::join::{JoinJob, JoinPairs};
    let o: JoinPairs = neardup::jobs::options::from_json(options, "join").map_err(job_error)?;
    let job = JoinJob::new(&o, "-".into(), None, false).map_err(job_error)?;
    let (pairs, ids) = py
        .detach(|| {
            with_threads(threads, || {
                let j = neardup::jobs::join::join(&job, quiet)?;
                Ok((j.pairs(), ids_of(&j.stores)))
            })
        })
        .map_err(job_error)?;
    Ok((pair_arrays(py, pairs.iter()), ids))
}

/// The `fingerprint` job: `options` is a JSON object of its options by name (`inputs`,
/// `output`, `force`, `minhash`, `min_terms`, ...). Returns whether every input was read.
#[pyfunction]
#[pyo3(signature = (options, quiet=false, threads=None))]
fn fingerprint_job(
    py: Python<'_>,
    options: &str,
    quiet: bool,
    threads: Option<usize>,
) -> PyResult<bool> {
    use neardup::jobs::steps::FingerprintInto;
    let o: FingerprintInto =
        neardup::jobs::options::from_json(options, "fingerprint").map_err(job_error)?;
    let cfg = o.config().map_err(job_error)?;
    let (_, outcome) = py
        .detach(|| with_threads(threads, || neardup::jobs::steps::build_store(&cfg, quiet)))
        .map_err(job_error)?;
    Ok(outcome == neardup::jobs::Outcome::Clean)
}

/// The `verify` job: `options` is a JSON object of its options by name (`stores`, `tau`,
/// `measure`, `min`, `shingle`, `pairs`, ...). Returns the candidate pairs in the TSV's order:
/// `a`, `b` (uint32), `hamming64`, `hamming128` (uint8), `s3`, `jaccard`, `containment`
/// (float64), and every document's id.
#[pyfunction]
#[pyo3(signature = (options, quiet=false, threads=None))]
#[allow(clippy::type_complexity)]
fn verify_pairs<'py>(
    py: Python<'py>,
    options: &str,
    quiet: bool,
    threads: Option<usize>,
) -> PyResult<(PairArrays<'py>, [Bound<'py, PyArray1<f64>>; 3], Vec<String>)> {
    use neardup::jobs::verify::{VerifyJob, VerifyPairs};
    use neardup::verify::Measure;
    let o: VerifyPairs = neardup::jobs::options::from_json(options, "verify").map_err(job_error)?;
    let job = VerifyJob::new(&o, "-".into()).map_err(job_error)?;
    let (pairs, ids) = py
        .detach(|| {
            with_threads(threads, || {
                let v = neardup::jobs::verify::verify(&job, quiet)?;
                Ok((v.scored.pairs(), ids_of(&v.stores)))
            })
        })
        .map_err(job_error)?;
    let col = |f: &dyn Fn(&(neardup::join::Pair, neardup::verify::Overlap)) -> f64| {
        PyArray1::from_vec(py, pairs.iter().map(f).collect())
    };
    let scores = [
        col(&|p| p.1.score(Measure::S3)),
        col(&|p| p.1.score(Measure::Jaccard)),
        col(&|p| p.1.score(Measure::Containment)),
    ];
    Ok((pair_arrays(py, pairs.iter().map(|p| &p.0)), scores, ids))
}

/// The `sweep` job: `options` is a JSON object of its options by name (`stores`, `output`,
/// `tau_max`, `pairs`, `verify`, ...); it writes its output directory.
#[pyfunction]
#[pyo3(signature = (options, quiet=false, threads=None))]
fn sweep_job(py: Python<'_>, options: &str, quiet: bool, threads: Option<usize>) -> PyResult<()> {
    use neardup::jobs::sweep::{SweepJob, SweepOptions};
    let o: SweepOptions = neardup::jobs::options::from_json(options, "sweep").map_err(job_error)?;
    let job = SweepJob::new(&o).map_err(job_error)?;
    py.detach(|| with_threads(threads, || neardup::jobs::sweep::sweep(&job, quiet)))
        .map_err(job_error)
}

/// Why page `id` of the `dedup` run in `out` was removed or kept (`neardup explain OUT ID`),
/// or, with `other`, why the two pages were kept apart or put together (`neardup explain OUT
/// ID OTHER`), as a JSON object: `status` (`removed`, `kept`, `excluded`, `pair`, `unknown`)
/// and its facts.
#[pyfunction]
#[pyo3(signature = (out, id, shard_dir=None, other=None))]
fn explain(
    py: Python<'_>,
    out: std::path::PathBuf,
    id: &str,
    shard_dir: Option<std::path::PathBuf>,
    other: Option<&str>,
) -> PyResult<String> {
    let e = py
        .detach(|| match other {
            Some(o) => neardup::jobs::explain::explain_pair(&out, id, o, shard_dir.as_deref()),
            None => neardup::jobs::explain::explain(&out, id, shard_dir.as_deref()),
        })
        .map_err(job_error)?;
    serde_json::to_string(&e).map_err(|e| job_error(e.into()))
}

/// Writes `out/report.html` again for the `dedup` run in `out` (`neardup report OUT`);
/// returns what it holds as a JSON object (`bytes`, `pairs`, `sites`, `seconds`...).
#[pyfunction]
#[pyo3(signature = (out, shard_dir=None))]
fn report(
    py: Python<'_>,
    out: std::path::PathBuf,
    shard_dir: Option<std::path::PathBuf>,
) -> PyResult<String> {
    let r = py
        .detach(|| neardup::jobs::report::report(&out, shard_dir.as_deref()))
        .map_err(job_error)?;
    serde_json::to_string(&r).map_err(|e| job_error(e.into()))
}

/// A job run by name (`trec-run`, `trec-qrels`, `trec-inspect`, `trec-transfer`,
/// `reuse-discover`, `reuse-detect`): `options` is a JSON object of its options by name. It
/// writes its outputs; returns True when every input was read.
#[pyfunction]
#[pyo3(signature = (job, options, quiet=false, threads=None))]
fn named_job(
    py: Python<'_>,
    job: &str,
    options: &str,
    quiet: bool,
    threads: Option<usize>,
) -> PyResult<bool> {
    let outcome = py
        .detach(|| with_threads(threads, || neardup::jobs::run_named(job, options, quiet)))
        .map_err(job_error)?;
    Ok(outcome == neardup::jobs::Outcome::Clean)
}

/// `reuse top`: the most repeated chunks as (count, sites, stop, hash, sample) tuples, most
/// repeated first; `options` is a JSON object of its options by name (`stores`, `n`,
/// `memory`, `stop_chunks`, `no_builtin_stop`).
#[pyfunction]
#[pyo3(signature = (options, threads=None))]
fn reuse_top(
    py: Python<'_>,
    options: &str,
    threads: Option<usize>,
) -> PyResult<Vec<(u64, u64, bool, String, String)>> {
    let job: neardup::jobs::reuse::TopJob =
        neardup::jobs::options::from_json(options, "reuse top").map_err(job_error)?;
    let found = py
        .detach(|| with_threads(threads, || neardup::jobs::reuse::top_chunks(&job)))
        .map_err(job_error)?;
    Ok(found
        .into_iter()
        .map(|c| (c.count, c.sites, c.stop, c.hash, c.sample))
        .collect())
}

/// The shard files under `paths` that neardup reads, in the order it reads them (directories
/// walked in sorted order; files of unknown formats, empty files and neardup's own outputs
/// left out); paths that cannot be read raise NeardupError.
#[pyfunction]
fn shards(py: Python<'_>, paths: Vec<std::path::PathBuf>) -> PyResult<Vec<std::path::PathBuf>> {
    let found =
        py.detach(|| neardup::corpus::discover(&paths, &neardup::corpus::ReadOptions::default()));
    if let Some(e) = found.failed.first() {
        return Err(NeardupError::new_err(e.to_string()));
    }
    Ok(found.shards.into_iter().map(|s| s.path).collect())
}

/// A fingerprint store, opened read-only: its columns are mapped, not read.
#[pyclass(module = "neardup._neardup", frozen)]
struct Store {
    inner: neardup::fingerprint::store::Store,
    path: std::path::PathBuf,
}

#[pymethods]
impl Store {
    #[new]
    fn new(path: std::path::PathBuf) -> PyResult<Self> {
        let inner = neardup::fingerprint::store::Store::open(&path)
            .map_err(|e| NeardupError::new_err(e.to_string()))?;
        Ok(Store { inner, path })
    }

    /// The store's directory.
    #[getter]
    fn path(&self) -> std::path::PathBuf {
        self.path.clone()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __repr__(&self) -> String {
        format!("Store({:?}, {} documents)", self.path, self.inner.len())
    }

    /// Document ids, in store order.
    fn ids(&self) -> Vec<&str> {
        (0..self.inner.len()).map(|i| self.inner.id(i)).collect()
    }

    /// URLs, in store order (empty where a document has none).
    fn urls(&self) -> Vec<&str> {
        (0..self.inner.len()).map(|i| self.inner.url(i)).collect()
    }

    /// The manifest, as JSON text.
    fn manifest_json(&self) -> PyResult<String> {
        serde_json_string(&self.path)
    }

    /// The fingerprints as NumPy arrays that view the mapped columns (no copy; read-only):
    /// `simhash64` (uint64, one per document) and `simhash128` (uint64, shape (n, 2): low and
    /// high words; the low word equals simhash64).
    fn fingerprints<'py>(this: Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = this.py();
        let s = this.get();
        let fp64 = ArrayView1::from(s.inner.fp64());
        let words: &[u64] = bytemuck_words(s.inner.fp128());
        let fp128 = ArrayView2::from_shape((s.inner.len(), 2), words)
            .map_err(|e| NeardupError::new_err(e.to_string()))?;
        let owner = this.clone().into_any();
        // SAFETY: both views borrow the store's mapped columns, which stay mapped and unchanged
        // while the Store object lives; `owner` keeps it alive as long as the arrays, and the
        // arrays are made read-only below, so nothing writes through them.
        let (a64, a128) = unsafe {
            (
                PyArray1::borrow_from_array(&fp64, owner.clone()),
                PyArray2::borrow_from_array(&fp128, owner),
            )
        };
        a64.readwrite().make_nonwriteable();
        a128.readwrite().make_nonwriteable();
        let d = PyDict::new(py);
        d.set_item("simhash64", a64)?;
        d.set_item("simhash128", a128)?;
        Ok(d)
    }
}

/// The 128-bit column as its u64 words (low, high per document).
fn bytemuck_words(fp: &[[u64; 2]]) -> &[u64] {
    fp.as_flattened()
}

fn serde_json_string(dir: &std::path::Path) -> PyResult<String> {
    let p = dir.join("manifest.json");
    std::fs::read_to_string(&p).map_err(|e| NeardupError::new_err(format!("{}: {e}", p.display())))
}

/// neardup's messages (steps, progress, warnings, shards not read) as records of the
/// `neardup` logger: INFO, WARNING and ERROR. Called from any of the command's threads, each
/// taking the GIL for its record.
struct PyLog {
    logger: Py<PyAny>,
}

impl neardup::jobs::say::Sink for PyLog {
    fn say(&self, level: neardup::jobs::say::Level, msg: &str) {
        use neardup::jobs::say::Level;
        // logging's numeric levels.
        let n = match level {
            Level::Info => 20,
            Level::Warning => 30,
            Level::Error => 40,
        };
        Python::attach(|py| {
            // A handler that raises is logging's to report (it prints and goes on); nothing
            // of it reaches the command.
            if let Err(e) = self.logger.bind(py).call_method1("log", (n, msg)) {
                e.print(py);
            }
        });
    }
}

/// Plans a split run of `dedup` (`options`: its options by name, JSON; `inputs` stores with
/// MinHash keys) over `partitions`: claims the output directory, prints the memory a task
/// by formula, and returns the work directory the tasks share.
#[pyfunction]
#[pyo3(signature = (options, partitions, quiet=false))]
fn split_plan(
    py: Python<'_>,
    options: &str,
    partitions: u32,
    quiet: bool,
) -> PyResult<std::path::PathBuf> {
    py.detach(|| neardup::jobs::split::plan(options, partitions, quiet))
        .map(|p| p.work)
        .map_err(job_error)
}

/// Runs task `part` of split stage `stage` (at components step `step`) over the plan in
/// `work`, on `threads` threads (None: every core); returns its report, JSON.
#[pyfunction]
#[pyo3(signature = (work, stage, part, step, threads=None))]
fn split_task(
    py: Python<'_>,
    work: std::path::PathBuf,
    stage: &str,
    part: u32,
    step: u32,
    threads: Option<usize>,
) -> PyResult<String> {
    let stats = py
        .detach(|| {
            with_threads(threads, || {
                neardup::jobs::split::run_task(&work, stage, part, step)
            })
        })
        .map_err(job_error)?;
    serde_json::to_string(&stats).map_err(|e| NeardupError::new_err(e.to_string()))
}

/// The split run's driver: takes its state (JSON; "" to start over the plan in `work`) and
/// the reports of the tasks it handed out last (a JSON list); returns its new state and the
/// tasks to run next (JSON: `stage`, `step`, `parts`), or None when the lists can be
/// gathered.
#[pyfunction]
fn split_next(
    state: &str,
    work: std::path::PathBuf,
    reports: &str,
) -> PyResult<(String, Option<String>)> {
    let err = |e: serde_json::Error| NeardupError::new_err(e.to_string());
    let mut d = if state.is_empty() {
        neardup::jobs::split::Driver::new(&work)
    } else {
        serde_json::from_str(state).map_err(err)?
    };
    let reports = serde_json::from_str(reports).map_err(err)?;
    let next = d.next(reports).map_err(job_error)?;
    Ok((
        serde_json::to_string(&d).map_err(err)?,
        next.map(|n| serde_json::to_string(&n))
            .transpose()
            .map_err(err)?,
    ))
}

/// Lets go of the output directory of a split run planned here that will not be gathered (a
/// task failed): its lock is released; the next run into it removes the work directory.
#[pyfunction]
fn split_abandon(out: std::path::PathBuf) {
    neardup::jobs::split::abandon(&out);
}

/// Gathers a split run's lists in corpus order into its output directory and writes
/// `summary.json` (returned, JSON).
#[pyfunction]
#[pyo3(signature = (state, quiet=false))]
fn split_gather(py: Python<'_>, state: &str, quiet: bool) -> PyResult<String> {
    let d: neardup::jobs::split::Driver =
        serde_json::from_str(state).map_err(|e| NeardupError::new_err(e.to_string()))?;
    let summary = py.detach(|| d.gather(quiet)).map_err(job_error)?;
    serde_json::to_string(&summary).map_err(|e| NeardupError::new_err(e.to_string()))
}

/// How often fingerprinting logs how far it is, in seconds (default 5).
#[pyfunction]
fn set_progress_interval(seconds: f64) -> PyResult<()> {
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(NeardupError::new_err(format!(
            "progress interval {seconds}: give seconds, 0 or more"
        )));
    }
    neardup::jobs::say::set_progress_interval(std::time::Duration::from_secs_f64(seconds));
    Ok(())
}

/// NVIDIA's headless Vulkan driver (`neardup::gpu::icd`): on a GPU server with no display,
/// writes the manifest naming NVIDIA's EGL library when the rule says so, and returns the
/// loader's variable to set and its new value (for the package to set before any GPU call:
/// `VK_ADD_DRIVER_FILES`, or the user's `VK_DRIVER_FILES` list with the manifest after it), or
/// `None`, and the rule's answer in words.
#[pyfunction]
fn vulkan_driver() -> (Option<(String, std::ffi::OsString)>, String) {
    use neardup::gpu::icd;
    let set = icd::setting().map(|(var, value, _)| (var.to_string(), value));
    let why = match icd::decided() {
        Some(icd::Decision::Add { lib, var, .. }) => format!("added {} to {var}", lib.display()),
        Some(icd::Decision::Leave(why)) => format!("left as is: {why}"),
        None => "left as is: not Linux".to_string(),
    };
    (set, why)
}

/// The Python module.
#[pymodule]
fn _neardup(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let logger = m
        .py()
        .import("logging")?
        .call_method1("getLogger", ("neardup",))?
        .unbind();
    neardup::jobs::say::set_sink(Box::new(PyLog { logger }));
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_files, m)?)?;
    m.add_function(wrap_pyfunction!(dedup_table, m)?)?;
    m.add_function(wrap_pyfunction!(join_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprint_job, m)?)?;
    m.add_function(wrap_pyfunction!(verify_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_job, m)?)?;
    m.add_function(wrap_pyfunction!(named_job, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(reuse_top, m)?)?;
    m.add_function(wrap_pyfunction!(set_progress_interval, m)?)?;
    m.add_function(wrap_pyfunction!(shards, m)?)?;
    m.add_function(wrap_pyfunction!(split_plan, m)?)?;
    m.add_function(wrap_pyfunction!(split_task, m)?)?;
    m.add_function(wrap_pyfunction!(split_next, m)?)?;
    m.add_function(wrap_pyfunction!(split_gather, m)?)?;
    m.add_function(wrap_pyfunction!(split_abandon, m)?)?;
    m.add_function(wrap_pyfunction!(vulkan_driver, m)?)?;
    m.add_class::<Store>()?;
    m.add("NeardupError", m.py().get_type::<NeardupError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
