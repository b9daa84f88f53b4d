"""dedup of a table in memory against the command line on the same rows written as Parquet:
the same kept rows, clusters and scores, from every kind of table a data team holds."""

import random

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import neardup
import neardup.trec


def planted(n: int, seed: int = 5) -> pa.Table:
    """``n`` documents: originals, exact copies, copies with a few words changed (some
    near-duplicates, some too far), and short rows that are excluded from the joins."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(3000)]
    originals = [" ".join(rng.choice(words) for _ in range(rng.randint(60, 200))) for _ in range(n // 3)]
    ids, texts = [], []
    for i in range(n):
        r = rng.random()
        if r < 0.4 or i < 5:
            text = originals[i % len(originals)]
        elif r < 0.7:
            toks = rng.choice(originals).split()
            for _ in range(rng.choice([1, 2, 3, 40])):
                toks[rng.randrange(len(toks))] = rng.choice(words)
            text = " ".join(toks)
        elif r < 0.95:
            text = rng.choice(originals)
        else:
            text = "too short to join"
        ids.append(f"doc-{i:05d}")
        texts.append(text)
    return pa.table({"id": ids, "text": texts, "url": [f"https://example.org/{i}" for i in range(n)]})


def cli_lists(table: pa.Table, tmp_path, **options):
    """The command line's lists for ``table`` written as Parquet: kept ids, and per removed
    id its kept id and score, and per id its cluster's representative."""
    path = tmp_path / "docs.parquet"
    pq.write_table(table, path, row_group_size=700)
    r = neardup.dedup([path], tmp_path / "out", quiet=True, **options)
    keep = set(r.keep())
    remove = r.table("remove")
    removed = {
        a: (k, s)
        for a, k, s in zip(
            remove.column("id").to_pylist(), remove.column("kept").to_pylist(), remove.column("score").to_pylist()
        )
    }
    clusters = r.table("clusters")
    rep = dict(zip(clusters.column("id").to_pylist(), clusters.column("representative").to_pylist()))
    return keep, removed, rep


def same(a: pa.Table, b: pa.Table) -> bool:
    """Equal answers (the id column's string type follows the input's: pandas gives large
    strings)."""
    return a.drop_columns(["kept_id"]).equals(b.drop_columns(["kept_id"])) and (
        a.column("kept_id").to_pylist() == b.column("kept_id").to_pylist()
    )


def check_same(table: pa.Table, result: pa.Table, cli) -> None:
    keep, removed, rep = cli
    ids = table.column("id").to_pylist()
    assert result.num_rows == table.num_rows
    assert result.schema.names == ["cluster", "kept", "kept_id", "score", "skipped"]
    assert result.column("skipped").null_count == result.num_rows
    kept = result.column("kept").to_pylist()
    assert {i for i, k in zip(ids, kept) if k} == keep
    kept_id = result.column("kept_id").to_pylist()
    score = result.column("score").to_pylist()
    cluster = result.column("cluster").to_pylist()
    for row, i in enumerate(ids):
        if kept[row]:
            assert kept_id[row] == i and score[row] is None
        else:
            k, s = removed[i]
            assert kept_id[row] == k
            assert score[row] == pytest.approx(s, abs=5e-5), (i, score[row], s)
        assert ids[cluster[row]] == rep[i], i
    # The deduplicated table is the input filtered by `kept`.
    assert table.filter(result.column("kept")).num_rows == len(keep)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"representative": "longest", "shingle": 5},
        {"all_pairs": True},
        {"candidates": "simhash"},
        {"keep_by": "quality"},
        {"keep_by": "quality:min", "remove_by": "all"},
    ],
    ids=["default", "longest-k5", "all-pairs", "simhash", "keep-by", "keep-by-min-all"],
)
def test_a_table_in_memory_gives_the_cli_lists(tmp_path, options):
    table = planted(1500)
    if "keep_by" in options:
        # A quality score per row, missing on some: the policy's column.
        rng = random.Random(3)
        q = [None if rng.random() < 0.1 else rng.random() for _ in range(table.num_rows)]
        table = table.append_column("quality", pa.array(q, pa.float64()))
    cli = cli_lists(table, tmp_path, **options)
    assert 0 < sum(1 for _ in cli[1]) < table.num_rows
    result = neardup.dedup(table, text="text", id="id", quiet=True, **options)
    check_same(table, result, cli)


def test_every_kind_of_table_gives_the_same_answer(tmp_path):
    table = planted(900, seed=9)
    cli = cli_lists(table, tmp_path)
    base = neardup.dedup(table, quiet=True)
    check_same(table, base, cli)
    # Record batches of any size, a reader, a dataset and pandas read alike.
    import pyarrow.dataset as ds

    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=97))
    assert neardup.dedup(chunked, quiet=True).equals(base)
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=97))
    assert neardup.dedup(reader, quiet=True).equals(base)
    pq.write_table(table, tmp_path / "d.parquet", row_group_size=200)
    assert neardup.dedup(ds.dataset(tmp_path / "d.parquet"), quiet=True).equals(base)
    pandas = pytest.importorskip("pandas")
    assert same(neardup.dedup(table.to_pandas(), quiet=True), base)
    datasets = pytest.importorskip("datasets")
    hf = datasets.Dataset(table)
    assert same(neardup.dedup(hf, quiet=True), base)
    # A selection of rows (an indices mapping over the table) is deduplicated in its order.
    order = list(range(899, -1, -1))
    picked = neardup.dedup(hf.select(order), quiet=True)
    assert same(picked, neardup.dedup(table.take(order), quiet=True))
    assert not same(picked, base)
    assert pandas is not None


def test_rows_without_text_or_id_and_bad_options():
    text = " ".join(f"word{i}" for i in range(30))
    table = pa.table({"body": [text] * 3 + [None], "n": [1, 2, 3, 4]})
    r = neardup.dedup(table, text="body", id=None, quiet=True)
    # No id column: rows are named by their number; the row without text is kept alone.
    assert r.column("kept").to_pylist() == [True, False, False, True]
    assert r.column("kept_id").to_pylist() == [0, 0, 0, 3]
    assert r.column("cluster").to_pylist() == [0, 0, 0, 3]
    with pytest.raises(neardup.NeardupError, match='no column "text"'):
        neardup.dedup(table, quiet=True)
    with pytest.raises(neardup.NeardupError, match="min_term"):
        neardup.dedup(table, text="body", min_term=3)
    with pytest.raises(neardup.NeardupError, match="write_corpus"):
        neardup.dedup(table, text="body", write_corpus="parquet")
    with pytest.raises(TypeError):
        neardup.dedup(table, "out")


def test_a_table_scanned_a_batch_at_a_time_gives_the_held_answer(tmp_path):
    table = planted(1300, seed=4)
    base = neardup.dedup(table, quiet=True)
    scans = []

    def make():
        scans.append(1)
        # A stream made in Python, a batch at a time, as a generator over a source too large
        # to hold would give it.
        return pa.RecordBatchReader.from_batches(table.schema, iter(table.to_batches(max_chunksize=111)))

    got = neardup.dedup(neardup.Scanned(make, rows=0, ids=lambda: table.column("id")), quiet=True)
    assert same(got, base)
    # Read for its schema, fingerprinted on one scan and its texts read again on another.
    assert len(scans) >= 3
    # Without ids, rows are named by their number.
    anon = neardup.dedup(neardup.Scanned(make), id=None, quiet=True)
    assert anon.column("kept").equals(base.column("kept"))
    # A scan that no longer gives the rows it gave is an error, not a wrong answer.
    def shrinking():
        n = 1300 if not scans or len(scans) < 10 else 10
        scans.append(1)
        return pa.RecordBatchReader.from_batches(table.schema, iter(table.slice(0, n).to_batches()))

    scans.clear()
    scans.extend([1] * 8)
    with pytest.raises(neardup.NeardupError):
        neardup.dedup(neardup.Scanned(shrinking), quiet=True)


def test_every_option_is_honoured_or_refused_by_name(tmp_path):
    """Options a table cannot serve are refused naming them; a view-typed id column, the
    text read from the id column and a NaN option are each handled or refused clearly."""
    t = planted(60)
    for opts, name in [({"substrings": 20}, "substrings"), ({"prefer": [str(tmp_path)]}, "prefer")]:
        with pytest.raises(Exception, match=name):
            neardup.dedup(t, quiet=True, **opts)
    if hasattr(pa, "string_view"):
        views = t.set_column(0, "id", t.column("id").cast(pa.string_view()))
        r = neardup.dedup(views, quiet=True)
        assert r.column("kept_id").to_pylist() == neardup.dedup(t, quiet=True).column("kept_id").to_pylist()
    r = neardup.dedup(t, text="id", quiet=True)
    assert r.num_rows == t.num_rows
    with pytest.raises(ValueError, match="min=nan"):
        neardup.trec.inspect([tmp_path / "run.txt"], tmp_path / "st", tmp_path / "o", min=float("nan"))


def test_rows_not_read_say_so_and_why():
    """A row over max_record_size is not read: the result names it and the reason."""
    t = planted(30)
    big = "word " * 300_000
    t = pa.table({"id": ["big"] + t.column("id").to_pylist(), "text": [big] + t.column("text").to_pylist()})
    r = neardup.dedup(t, quiet=True, max_record_size="1M")
    skipped = r.column("skipped").to_pylist()
    assert skipped[0] == "too_large"
    assert all(s is None for s in skipped[1:])
