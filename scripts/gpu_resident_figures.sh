#!/usr/bin/env bash
# The figures of issue 55's target table on one GPU machine, side by side in one run: the
# resident GPU join (its comparisons one and four columns a step: --unroll), the batched GPU
# join (--batched) and the machine's CPU cores, each
# `neardup bench` line at most LIMIT seconds; then the tau sweep on both backends.
#
# On an H100/H200 machine, after `bash ../shared/gpu/prepare.sh` here (which puts the
# stripped binary and the Vulkan loader into .device/), copy this script into .device/ and
# run it there instead of on-device.sh:
#     cp scripts/gpu_resident_figures.sh .device/   # here
#     bash .device/gpu_resident_figures.sh          # on the device, timeout_s 540
# Everything goes to $OUT/resident.log, one line per figure to $OUT/resident.tsv.
# ONLY="resident_exact_tau6 batched_exact_tau6 cpu_exact_tau6 sweep" runs only those figures
# (the whole set may take longer than one 540 s call at full size).
# A dry run on Mesa's lavapipe here: ND=target/release/neardup MID=200000 BIG=200000 bash scripts/gpu_resident_figures.sh
set -uo pipefail
OUT="${OUT:-/tmp/device-out}"; mkdir -p "$OUT"
exec > >(tee "$OUT/resident.log") 2>&1
cd "$(dirname "$0")/.."
ND="${ND:-$PWD/.device/neardup}"; W=/tmp/nd-resident; rm -rf "$W"; mkdir -p "$W"
MID=${MID:-82500000}; BIG=${BIG:-100000000}; LIMIT=${LIMIT:-100}
fig() { printf '%s\t%s\n' "$1" "$2" >> "$OUT/resident.tsv"; echo "FIGURE $1: $2"; }

# The Vulkan loader and NVIDIA's driver, as on-device.sh sets them up.
if ls .device/gl/*.deb >/dev/null 2>&1; then for f in .device/gl/*.deb; do dpkg -x "$f" /; done; ldconfig; fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
date -u; nvidia-smi --query-gpu=name,memory.total --format=csv 2>&1 | tail -1
"$ND" gpus || true

want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
bench() {
  local name=$1; shift
  want "$name" || return 0
  local t0=$SECONDS
  timeout "$LIMIT" "$ND" bench "$@" > "$W/last.log" 2>&1; local rc=$?
  cat "$W/last.log"
  fig "$name" "$(grep -E '^(join|gpu|device|comparisons|bound|table weight)' "$W/last.log" | tr '\n' ' ' | cut -c1-700) [rc $rc, $((SECONDS - t0)) s]"
}
for spec in "exact_tau6 $MID --tau 6" "exact_tau8 $MID --tau 8" "exact_tau3 $BIG --tau 3" \
            "random_tau6 $BIG --tau 6 --method random --bits 16 --iterations 20"; do
  set -- $spec; name=$1; docs=$2; shift 2
  bench "resident_$name" --docs "$docs" "$@" --backend gpu
  bench "unrolled_$name" --docs "$docs" "$@" --backend gpu --unroll
  bench "batched_$name" --docs "$docs" "$@" --backend gpu --batched
  bench "cpu_$name" --docs "$docs" "$@" --backend cpu
done

want sweep || { date -u; exit 0; }
echo "== tau sweep 0..8 of $MID fingerprints, one join at tau 8"
"$ND" synth --docs "$MID" -q -o "$W/mid" || echo "synth failed"
for b in gpu cpu; do
  t0=$SECONDS
  timeout "$LIMIT" "$ND" sweep "$W/mid" --tau-max 8 --backend $b -q -o "$W/sw$b"
  fig "sweep_tau8_$b" "rc $? in $((SECONDS - t0)) s (whole command)"
done
cmp -s "$W/swgpu/sweep.tsv" "$W/swcpu/sweep.tsv" && fig sweep_same "equal" || fig sweep_same "DIFFER or missing"
date -u
