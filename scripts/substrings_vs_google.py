#!/usr/bin/env python3
"""neardup substrings side by side with Google's deduplicate-text-datasets, on the same words.

Google's tool (Lee et al., 2022) finds repeated byte strings with a suffix array. Configured
alike, the two find the same thing: the script has neardup write the documents' words as
fixed-width tokens (`substrings --write-tokens`: four bytes a word, 0xFF then a three-byte id,
and a token of its own after each document), so a match of 4*N bytes that starts on a token is
a window of N words, and no match crosses a document. The tool marks every copy (neardup's
`--all-copies`); its `collect` step keeps only the matches that start on a token, with the
filter the tool carries, commented out, for tokenised data (`x % 2 == 0` for its 2-byte GPT-2
tokens; here `x % 4 == 0`), which this script enables in a copy of the tool. Its byte ranges
are mapped back to the words' byte ranges of the normalised text and compared with neardup's
removed.tsv, range by range.

Timing: neardup's whole `substrings` command (reading the texts again from the crawl's shards
included) against the tool's three steps (make_suffix_array.py, self-similar, collect) on the
token file, which neardup made for it (not counted). Peak memory: the largest sum of the
resident sets of the process and all its children, sampled every 20 ms (the suffix-array step
runs several processes at once), for each side.

    git clone https://github.com/google-research/deduplicate-text-datasets /tmp/gdedup
    python3 scripts/substrings_vs_google.py --google /tmp/gdedup --work /tmp/svg \\
        --store out/store --keep out/keep.txt

Needs cargo (to build the tool, with its own profile: opt-level 3 in its dev build, which its
scripts call) and numpy.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import threading
import time

import numpy as np

PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(root):
    """Resident bytes of `root` and all its descendants."""
    children = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(p))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except OSError:
            pass
        todo.extend(children.get(pid, []))
    return total


def run(cmd, cwd=None, stdout=None):
    """Runs `cmd`; returns (seconds, peak resident bytes of its process tree)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=stdout or subprocess.DEVNULL)
    peak = [0]

    def sample():
        while p.poll() is None:
            peak[0] = max(peak[0], tree_rss(p.pid))
            time.sleep(0.02)

    t = threading.Thread(target=sample)
    t.start()
    rc = p.wait()
    t.join()
    secs = time.monotonic() - start
    if rc != 0:
        sys.exit(f"{' '.join(map(str, cmd))} exited with {rc}")
    return secs, peak[0]


def prepare_google(src):
    """Enables the token filter of `collect` for 4-byte tokens and builds the tool."""
    main = os.path.join(src, "src", "main.rs")
    code = open(main).read()
    old = "//let mut all_items:Vec<u64> = all_items.into_iter().filter(|&x| x%2 == 0).collect();"
    new = "let all_items:Vec<u64> = all_items.into_iter().filter(|&x| x%4 == 0).collect(); let mut all_items = all_items;"
    if new not in code:
        if old not in code:
            sys.exit(f"{main}: the commented token filter of collect is not where this script expects it")
        open(main, "w").write(code.replace(old, new))
    subprocess.run(["cargo", "build", "-q"], cwd=src, check=True)
    return os.path.join(src, "target", "debug", "dedup_dataset")


def read_removed(path):
    out = set()
    with open(path) as f:
        next(f)
        for line in f:
            i, s, e, _ = line.rstrip("\n").split("\t")
            out.add((i, int(s), int(e)))
    return out


def google_ranges(ranges_file, words, names, n):
    """The tool's byte ranges of tokens.bin as (document, start, end) of the normalised texts."""
    out = set()
    text = open(ranges_file).read()
    body = text.split("\nout\n", 1)[1] if "\nout\n" in text else text.split("out\n", 1)[-1]
    for a, b in re.findall(r"^(\d+) (\d+)$", body, flags=re.M):
        a, b = int(a), int(b)
        assert a % 4 == 0 and b % 4 == 0 and b - a >= 4 * n, (a, b)
        first, last = words[a // 4], words[b // 4 - 1]
        assert first[0] == last[0] != 0xFFFFFFFF, "a range crosses a document"
        out.add((names[first[0]], int(first[1]), int(last[2])))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--google", required=True, help="a checkout of deduplicate-text-datasets")
    ap.add_argument("--work", required=True, help="a new directory for both runs' files")
    ap.add_argument("--store", action="append", required=True)
    ap.add_argument("--keep", help="dedup's keep.txt: only its documents")
    ap.add_argument("--min-tokens", type=int, default=50)
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--memory", default="1G", help="neardup's --memory")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    a = ap.parse_args()
    if os.path.exists(a.work):
        sys.exit(f"{a.work} exists: give a new directory")
    os.makedirs(a.work)
    nd = os.path.abspath(a.neardup)
    tool = prepare_google(a.google)
    base = [nd, "substrings", *a.store, "--all-copies", "--min-tokens", str(a.min_tokens), "-q"]
    if a.keep:
        base += ["--keep", a.keep]
    ours = os.path.join(a.work, "neardup")
    t_nd, m_nd = run(base + ["-o", ours, "--memory", a.memory])
    # The tokens for the tool (not timed), from a second run.
    tok = os.path.join(a.work, "tokens")
    run(base + ["-o", tok, "--write-tokens"])
    g = os.path.join(a.work, "google")
    os.makedirs(os.path.join(g, "cache"))
    data = os.path.join(g, "tokens.bin")
    shutil.copy(os.path.join(tok, "tokens.bin"), data)
    os.makedirs(os.path.join(a.google, "tmp"), exist_ok=True)
    length = str(4 * a.min_tokens)
    steps = []
    steps.append(run([sys.executable, "scripts/make_suffix_array.py", data], cwd=a.google))
    steps.append(run([tool, "self-similar", "--data-file", data, "--length-threshold", length,
                      "--cache-dir", os.path.join(g, "cache"), "--num-threads", str(a.threads)],
                     cwd=a.google))
    with open(os.path.join(g, "ranges.txt"), "w") as out:
        steps.append(run([tool, "collect", "--data-file", data, "--cache-dir",
                          os.path.join(g, "cache"), "--length-threshold", length],
                         cwd=a.google, stdout=out))
    t_g = sum(s[0] for s in steps)
    m_g = max(s[1] for s in steps)
    words = np.fromfile(os.path.join(tok, "tokens.words.bin"), dtype="<u4").reshape(-1, 3)
    names = open(os.path.join(tok, "tokens.docs.txt")).read().split("\n")
    theirs = google_ranges(os.path.join(g, "ranges.txt"), words, names, a.min_tokens)
    mine = read_removed(os.path.join(ours, "removed.tsv"))
    same = len(mine & theirs)
    b_mine = sum(e - s for _, s, e in mine)
    b_theirs = sum(e - s for _, s, e in theirs)
    text_bytes = int(re.search(r'"text_bytes": (\d+)', open(os.path.join(ours, "summary.json")).read())[1])
    print(f"text: {text_bytes} bytes of normalised text, {len(words)} tokens ({os.path.getsize(data)} bytes for the tool)")
    print(f"neardup substrings: {t_nd:.2f} s, peak {m_nd / 1e6:.0f} MB; {len(mine)} ranges, {b_mine} bytes")
    print(f"deduplicate-text-datasets: {t_g:.2f} s (suffix array {steps[0][0]:.2f}, self-similar {steps[1][0]:.2f}, collect {steps[2][0]:.2f}), "
          f"peak {m_g / 1e6:.0f} MB; {len(theirs)} ranges, {b_theirs} bytes")
    print(f"same ranges: {same} (neardup only {len(mine - theirs)}, tool only {len(theirs - mine)})")
    print(f"speed: {t_g / t_nd:.2f}x; memory: {m_nd / m_g:.2f} of the tool's")
    for x in sorted(mine ^ theirs)[:5]:
        print("differs:", x, "neardup" if x in mine else "tool")
    if mine != theirs:
        sys.exit(1)


if __name__ == "__main__":
    main()
