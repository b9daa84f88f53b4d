#!/usr/bin/env bash
# Time and peak memory of `neardup fingerprint` on hostile inputs, for one or more builds side
# by side: a 4.7 MB WARC.gz holding one 1 GiB record, a JSONL.gz holding one 1 GiB line, a
# gzip member of 256 MiB and one of 1 GiB of NUL bytes after a record, and a 10 000-record
# gzip-per-record shard with four bytes flipped 10 MB in (documents kept).
#
#   scripts/hostile_input.sh target/release/neardup [OTHER_BUILD...]
#
# Needs python3, gzip and GNU time (/usr/bin/time). Works in a temporary directory, removed
# at the end.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 NEARDUP [NEARDUP...]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
builds=()
for b in "$@"; do builds+=("$(realpath "$b")"); done
first=${builds[0]}
cd "$work"

python3 - <<'PY'
import gzip, zlib
hdr = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:%s>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body>"
n = 1 << 30
with open("record-1g.warc.gz", "wb") as f:
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    f.write(c.compress(hdr % (b"big", n) + head))
    chunk, rem = b"a" * (1 << 20), n - len(head)
    while rem > 0:
        k = min(rem, len(chunk)); f.write(c.compress(chunk[:k])); rem -= k
    f.write(c.compress(b"\r\n\r\n") + c.flush())
    small = head + b"hello world</body></html>"
    f.write(gzip.compress(hdr % (b"small", len(small)) + small + b"\r\n\r\n"))
with open("line-1g.jsonl.gz", "wb") as f:
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    f.write(c.compress(b'{"id":"a","text":"one two three four five six seven eight nine ten eleven"}\n{"id":"big","text":"'))
    for _ in range(1024):
        f.write(c.compress(b"a " * (1 << 19)))
    f.write(c.compress(b'"}\n{"id":"b","text":"one two three four five six seven eight nine ten"}\n') + c.flush())
PY
for size in 256M 1024M; do
    printf 'WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n' | gzip > "junk-$size.warc.gz"
    head -c "$size" /dev/zero | gzip -1 >> "junk-$size.warc.gz"
done
"$first" -q synth-crawl --docs 10000 --shards 1 --seed 9 -o crawl >/dev/null
python3 - <<'PY'
import glob
b = bytearray(open(glob.glob("crawl/*.warc.gz")[0], "rb").read())
for k in range(4):
    b[10_000_000 + k] ^= 0xFF
open("flipped.warc.gz", "wb").write(b)
PY

printf '%-22s %-26s %8s %10s %s\n' input build seconds "peak MiB" documents
for input in record-1g.warc.gz line-1g.jsonl.gz junk-256M.warc.gz junk-1024M.warc.gz flipped.warc.gz; do
    for i in "${!builds[@]}"; do
        bin=${builds[$i]}
        build=${*:$((i + 1)):1}
        /usr/bin/time -f "%e %M" -o t.txt "$bin" -q fingerprint "$input" -o s --force >/dev/null 2>&1 || true
        read -r secs kb < <(tail -1 t.txt)
        docs=$(python3 -c "import json;print(json.load(open('s/manifest.json'))['docs'])" 2>/dev/null || echo "-")
        printf '%-22s %-26s %8s %10d %s\n' "$input" "$build" "$secs" $((kb / 1024)) "$docs"
    done
done
