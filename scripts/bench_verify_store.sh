#!/usr/bin/env bash
# The default `dedup` of a crawl against `fingerprint --minhash` of it, for two builds side by
# side, alternating (BENCHMARKS.md, "Verification from the store").
#
#   scripts/bench_verify_store.sh OLD_BINARY NEW_BINARY CRAWL ROUNDS [WORK_DIR]
#
# Each round runs, for OLD then NEW: `fingerprint CRAWL --minhash` and `dedup CRAWL`, each
# under /usr/bin/time (wall seconds, user seconds, system seconds, peak RSS in KB), and prints
# one line per run and the ratio dedup / fingerprint of that build in that round. The outputs
# of the two builds' last round must list the same removals (`remove.tsv` and `keep.txt`,
# byte for byte); the script fails if they do not. NEW_DEDUP_ARGS (environment) is added to
# the new build's `dedup`, for example `NEW_DEDUP_ARGS=--keep-shingles`. WORK_DIR (default: a new directory under
# /tmp) holds one store and one output per build at a time; about 4 KB a page with the
# shingle sets, so a 1 M-page crawl needs about 5 GB there.
set -euo pipefail
old=$1 new=$2 crawl=$3 rounds=$4
work=${5:-$(mktemp -d /tmp/bench_verify_store.XXXXXX)}
mkdir -p "$work"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "crawl: $crawl ($(du -sh "$crawl" | cut -f1)); old: $old; new: $new"
run() { # label, then the command: prints "label wall user sys peak_kb"
    local label=$1
    shift
    /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$@" >/dev/null 2>&1
    echo "$label $(tail -1 "$work/time")"
}
for r in $(seq 1 "$rounds"); do
    for b in old new; do
        bin=${!b}
        rm -rf "$work/fp-$b" "$work/dd-$b"
        f=$(run "round $r $b fingerprint-minhash" "$bin" fingerprint "$crawl" --minhash -o "$work/fp-$b" -q)
        echo "$f"
        rm -rf "$work/fp-$b"
        extra=()
        if [ "$b" = new ] && [ -n "${NEW_DEDUP_ARGS:-}" ]; then read -ra extra <<<"$NEW_DEDUP_ARGS"; fi
        d=$(run "round $r $b dedup" "$bin" dedup "$crawl" -o "$work/dd-$b" -q "${extra[@]}")
        echo "$d"
        # Fields: round R BUILD WHAT wall user sys peak.
        awk -v f="$f" -v d="$d" -v r="$r" -v b="$b" 'BEGIN { split(f, a, " "); split(d, c, " ");
            printf "round %s %s ratio dedup/fingerprint: wall %.3f, cpu %.3f\n", r, b,
                c[5] / a[5], (c[6] + c[7]) / (a[6] + a[7]) }'
    done
    for f in remove.tsv keep.txt; do
        cmp "$work/dd-old/$f" "$work/dd-new/$f"
    done
    echo "round $r: remove.tsv and keep.txt identical"
done
