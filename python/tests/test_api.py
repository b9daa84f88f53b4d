"""The Python API against the command line: the same stores, pairs and lists."""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import neardup


def test_fingerprint_store_and_zero_copy_columns(sample, tmp_path):
    store = neardup.fingerprint([sample], tmp_path / "store")
    assert isinstance(store, neardup.Store) and len(store) == 100
    again = neardup.Store(tmp_path / "store")
    assert again.ids() == store.ids() and len(set(store.ids())) == 100
    fp = store.fingerprints()
    a64, a128 = fp["simhash64"], fp["simhash128"]
    assert a64.dtype == np.uint64 and a64.shape == (100,)
    assert a128.dtype == np.uint64 and a128.shape == (100, 2)
    # Views of the mapped files, not copies: the bytes are the columns' own.
    raw64 = np.fromfile(tmp_path / "store" / "fp64.u64", dtype="<u8")
    raw128 = np.fromfile(tmp_path / "store" / "fp128.u128", dtype="<u8").reshape(-1, 2)
    assert (a64 == raw64).all() and (a128 == raw128).all()
    assert (a128[:, 0] == a64).all()
    assert not a64.flags.owndata and not a64.flags.writeable
    with pytest.raises(ValueError):
        a64[0] = 1
    # The arrays keep the store alive.
    del store, again, fp
    assert int(a64.sum(dtype=np.uint64)) == int(raw64.sum(dtype=np.uint64))
    # The same fingerprints as the command line's export.
    tsv = tmp_path / "fps.tsv"
    assert neardup.run(["export", str(tmp_path / "store"), "-o", str(tsv)])
    rows = [l.split("\t") for l in tsv.read_text().splitlines()[1:]]
    assert [r[0] for r in rows] == neardup.Store(tmp_path / "store").ids()
    assert [int(r[2], 16) for r in rows] == [int(x) for x in raw64]
    assert [int(r[3], 16) for r in rows] == [(int(h) << 64) | int(l) for l, h in raw128]


def test_join_equals_the_cli_pairs(sample, tmp_path):
    store = neardup.fingerprint(sample, tmp_path / "s")
    t = neardup.join([store], tau=6)
    assert isinstance(t, pa.Table)
    assert t.schema.names == ["id_a", "id_b", "hamming64", "hamming128"]
    assert t.schema.field("hamming64").type == pa.int64()
    out = tmp_path / "pairs.tsv"
    neardup.run(["join", str(tmp_path / "s"), "--tau", "6", "-o", str(out)])
    lines = out.read_text().splitlines()[1:]
    assert t.num_rows == len(lines) > 0
    first = lines[0].split("\t")
    assert t.column("id_a")[0].as_py() == first[0]
    assert t.column("hamming64")[0].as_py() == int(first[2])
    assert max(t.column("hamming64").to_pylist()) <= 6
    # Verified: the same pairs with their S3 score, as `neardup verify` reports them.
    v = neardup.join([store], tau=6, verify=True)
    assert v.schema.names == ["id_a", "id_b", "hamming64", "hamming128", "score", "near_duplicate"]
    assert v.num_rows == t.num_rows
    vout = tmp_path / "verified.tsv"
    neardup.run(["verify", str(tmp_path / "s"), "--tau", "6", "-o", str(vout)])
    rows = [l.split("\t") for l in vout.read_text().splitlines()[1:]]
    # The TSV prints scores to 6 decimals; the table has them whole.
    assert v.column("score").to_pylist() == pytest.approx([float(r[4]) for r in rows], abs=5e-7)
    assert [(r[0], r[1]) for r in rows] == list(zip(v.column("id_a").to_pylist(), v.column("id_b").to_pylist()))
    assert v.column("near_duplicate").to_pylist() == [r[7] == "1" for r in rows]


def test_dedup_and_sweep_return_tables(sample, tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="neardup"):
        r = neardup.dedup([sample], tmp_path / "out", no_verify=True, tau=3, tau_max=6)
    assert any("dedup:" in m for m in caplog.messages)
    assert r.summary["clusters"]["keep"] == len(r.keep())
    removed = r.table("remove")
    assert removed.num_rows == r.summary["clusters"]["remove"] > 0
    assert r.table("clusters").num_rows == 100
    sw = neardup.sweep(tmp_path / "out" / "store", tmp_path / "sweep", tau_max=6)
    assert sw.column("tau").to_pylist() == list(range(7))


def test_explain_answers_as_the_lists_and_the_report_page_is_written(sample, tmp_path):
    r = neardup.dedup([sample], tmp_path / "out")
    assert r.report_page.is_file() and r.summary["report"]["bytes"] == r.report_page.stat().st_size
    rows = [l.split("\t") for l in (tmp_path / "out" / "remove.tsv").read_text().splitlines()[1:]]
    assert rows, "the sample crawl has near-duplicates"
    removed, kept = rows[0][0], rows[0][1]
    e = r.explain(removed)
    assert e["status"] == "removed" and e["kept"] == kept
    assert e["score"] == pytest.approx(float(rows[0][3]), abs=5e-7)
    assert e["diff"]["shared_words"] > 0
    k = r.explain(kept)
    assert k["status"] == "kept"
    assert removed in [x["id"] for x in k["removed_for_it"]]
    assert r.explain("no-such-page")["status"] == "unknown"
    # The pair side by side: put together, near-duplicates by the run's rule, at its score.
    p = r.explain(removed, other=kept)
    assert p["status"] == "pair" and p["together"] and p["near_duplicates"]
    assert p["first"]["removed_for"] == kept and p["second"]["status"] == "kept"
    assert p["score"] == pytest.approx(float(rows[0][3]), abs=5e-7)


def test_errors_are_exceptions_with_the_message(tmp_path):
    with pytest.raises(neardup.NeardupError, match="missing"):
        neardup.Store(tmp_path / "missing")
    with pytest.raises(neardup.NeardupError, match="--tau"):
        neardup.run(["join", str(tmp_path), "--tau", "many"])
    with pytest.raises(neardup.NeardupError):
        neardup.fingerprint([tmp_path / "nothing-here"], tmp_path / "s")


def test_python_m_neardup_runs_the_cli(sample, tmp_path):
    o = subprocess.run(
        [sys.executable, "-m", "neardup", "-q", "fingerprint", str(sample), "-o", str(tmp_path / "s")],
        capture_output=True,
        text=True,
    )
    assert o.returncode == 0, o.stderr
    assert len(neardup.Store(tmp_path / "s")) == 100
    o = subprocess.run([sys.executable, "-m", "neardup", "--help"], capture_output=True, text=True)
    assert o.returncode == 0 and "dedup" in o.stdout
    o = subprocess.run(
        [sys.executable, "-m", "neardup", "info", str(tmp_path / "none")], capture_output=True, text=True
    )
    assert o.returncode == 2 and o.stderr.startswith("error")


def test_messages_go_to_logging_while_the_command_runs(crawl, sample, tmp_path, caplog):
    neardup.set_progress_interval(0)
    try:
        with caplog.at_level(logging.INFO, logger="neardup"):
            neardup.fingerprint([crawl], tmp_path / "store", threads=2)
        progress = [r for r in caplog.records if " MB read (" in r.getMessage()]
        assert progress, caplog.messages
        # Said by the command's worker threads as it read, not gathered at its end.
        assert {r.threadName for r in progress} - {"MainThread"}, [r.threadName for r in progress]
        assert any("MB of input to read" in m for m in caplog.messages)
        assert any("documents from 6 shards" in m for m in caplog.messages)
        assert all(r.levelno == logging.INFO for r in caplog.records)
    finally:
        neardup.set_progress_interval(5)
    # dedup's steps, and a shard that cannot be read as an ERROR record (the rest is done).
    bad = tmp_path / "bad"
    bad.mkdir()
    for f in sample.glob("*.warc.gz"):
        (bad / f.name).symlink_to(f)
    # A shard cut short in its first gzip member.
    first = sorted(sample.glob("*.warc.gz"))[0].read_bytes()
    (bad / "broken.warc.gz").write_bytes(first[:3000])
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="neardup"):
        neardup.dedup([bad], tmp_path / "out", no_verify=True)
    msgs = caplog.messages
    assert any(m.startswith("[2/4] join at tau") for m in msgs), msgs
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("broken.warc.gz" in m for m in errors), errors
    # quiet: warnings and errors only.
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="neardup"):
        neardup.fingerprint([sample], tmp_path / "q", quiet=True)
    info = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert info == [f"fingerprinted 100 documents into {tmp_path / 'q'}"], info


def test_ids_that_differ_only_in_control_characters_come_back_as_they_were(tmp_path):
    # Two copies of one page whose ids print alike once a line break is a space: the lists
    # escape them (docs/FORMATS.md, "TSV fields"), and Python reads them back unescaped.
    text = " ".join(f"w{i % 37} t{i % 11}" for i in range(200))
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": i, "text": text}) + "\n" for i in ["a\nb", "a b", "c\\d"]))
    r = neardup.dedup([docs], tmp_path / "out", quiet=True)
    assert r.keep() == ["a\nb"]
    store = neardup.Store(tmp_path / "out" / "store")
    t = neardup.join([store], tau=0)
    assert sorted(t.column("id_a").to_pylist() + t.column("id_b").to_pylist()) == sorted(
        ["a\nb", "a b", "a\nb", "c\\d", "a b", "c\\d"]
    )


def test_trec_and_reuse_jobs_equal_the_cli(sample, tmp_path):
    """The TREC and reuse jobs called by name write what their command lines write."""
    from neardup import reuse, trec

    store = neardup.fingerprint(sample, tmp_path / "s", chunks=True, minhash=True, quiet=True)
    out = tmp_path / "d"
    neardup.run(["dedup", str(tmp_path / "s"), "-o", str(out)], quiet=True)
    ids = store.ids()
    run = tmp_path / "run.txt"
    run.write_text("".join(f"1 Q0 {d} {i + 1} {100 - i} t\n" for i, d in enumerate(ids[:40])))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"1 0 {d} {i % 3}\n" for i, d in enumerate(ids[:40])))

    summary = trec.runs([run], out, tmp_path / "py-runs")
    neardup.run(["trec", "run", str(run), "--clusters", str(out), "-o", str(tmp_path / "cli-runs")], quiet=True)
    assert (tmp_path / "py-runs" / "run.txt").read_bytes() == (tmp_path / "cli-runs" / "run.txt").read_bytes()
    cli = json.loads((tmp_path / "cli-runs" / "trec.json").read_text())
    assert [r["stats"] for r in summary["runs"]] == [r["stats"] for r in cli["runs"]]
    assert summary["runs"][0]["stats"]["duplicates"] > 0

    trec.qrels(qrels, out, tmp_path / "py.qrels", by="component")
    neardup.run(["trec", "qrels", str(qrels), "--clusters", str(out), "--by", "component", "-o", str(tmp_path / "cli.qrels")], quiet=True)
    assert (tmp_path / "py.qrels").read_bytes() == (tmp_path / "cli.qrels").read_bytes()

    found = reuse.discover([store], tmp_path / "py-reuse", min_count=2, memory="16M")
    neardup.run(["reuse", "discover", str(tmp_path / "s"), "--min-count", "2", "--memory", "16M", "-o", str(tmp_path / "cli-reuse")], quiet=True)
    assert (tmp_path / "py-reuse" / "labeled.tsv").read_bytes() == (tmp_path / "cli-reuse" / "labeled.tsv").read_bytes()
    assert found["labeled"] == json.loads((tmp_path / "cli-reuse" / "summary.json").read_text())["labeled"]

    t = reuse.top([store], n=5)
    assert t.schema.names == ["count", "sites", "stop", "hash", "sample"]
    counts = t.column("count").to_pylist()
    assert 0 < len(counts) <= 5 and counts == sorted(counts, reverse=True)

    with pytest.raises(neardup.NeardupError, match="not a trec-run option"):
        trec.runs([run], out, tmp_path / "x", rules="mark")
    with pytest.raises(neardup.NeardupError, match="below the 16 MiB"):
        reuse.top([store], memory="1M")


def test_headless_nvidia_driver_is_added_on_import_only_where_the_rule_says():
    """On import the package applies the command line's rule for NVIDIA's headless Vulkan
    driver (``neardup.gpu.icd``): the loader's variable is set to name the manifest written, or
    left unset with the reason, and ``NEARDUP_VULKAN_AS_IS`` turns it off."""
    code = (
        "import os, neardup\n"
        "from neardup import _neardup\n"
        "s, why = _neardup.vulkan_driver()\n"
        "var = s[0] if s else 'VK_ADD_DRIVER_FILES'\n"
        "print(s[1] if s else None); print(why); print(os.environ.get(var))\n"
    )
    drop = ("VK_ADD_DRIVER_FILES", "NEARDUP_VULKAN_AS_IS", "DISPLAY", "WAYLAND_DISPLAY")
    env = {k: v for k, v in os.environ.items() if k not in drop}

    def imported(extra):
        r = subprocess.run(
            [sys.executable, "-c", code], env={**env, **extra}, capture_output=True, text=True
        )
        assert r.returncode == 0, r.stderr
        return r.stdout.splitlines()

    off = imported({"NEARDUP_VULKAN_AS_IS": "1"})
    assert off == ["None", "left as is: VK_ADD_DRIVER_FILES or NEARDUP_VULKAN_AS_IS is set", "None"]
    path, why, var = imported({})
    if not Path("/dev/nvidiactl").exists():
        assert (path, why, var) == ("None", "left as is: no NVIDIA device node", "None")
    elif path == "None":
        assert why.startswith("left as is: ") and var == "None", why
    else:
        manifest = path.split(":")[-1]
        assert why.startswith("added ") and var == path and Path(manifest).is_file(), why
