#!/usr/bin/env bash
# Benchmark: `postmortem analyze` against `wc -l` (the floor) and, where
# installed, GoAccess and lnav, on deterministic inputs made by
# examples/gen_bench.rs. Prints MB/s, the ratio to postmortem and peak RSS.
#
#   benches/run.sh                      # 1 GiB access log, 1 GiB JSON lines, 4 GiB access log
#   ACCESS_MIB=256 JSON_MIB=256 BIG_MIB=0 benches/run.sh   # a quicker run
#   GZIP_ROW=0 benches/run.sh           # without the gzipped-input row
#   RUNS=5 benches/run.sh               # postmortem's rows: the median of 5 runs (3 by default)
#   MATRIX=0 benches/run.sh             # without the shape matrix (spans x tenants, both kinds)
#   ACCESS_MIB=0 JSON_MIB=0 BIG_MIB=0 benches/run.sh   # the shape matrix alone
#
# MB/s is always of the uncompressed bytes.
#
# Inputs go to $BENCH_DIR (default /tmp/postmortem-bench) and are reused.
set -euo pipefail
cd "$(dirname "$0")/.."
ACCESS_MIB=${ACCESS_MIB:-1024}
JSON_MIB=${JSON_MIB:-1024}
BIG_MIB=${BIG_MIB:-4096}
BENCH_DIR=${BENCH_DIR:-/tmp/postmortem-bench}
mkdir -p "$BENCH_DIR"

cargo build --release --quiet --bin postmortem --example gen_bench
BIN=target/release/postmortem
GEN=target/release/examples/gen_bench

make_input() { # kind mib [hours tenants] -> path
    local f="$BENCH_DIR/$1-$2${3:+-${3}h-${4}t}.log"
    [ -s "$f" ] || "$GEN" "$1" "$2" "$f" ${3:+"$3" "$4"} >&2
    echo "$f"
}

# "seconds peak_kib" of a command, output discarded.
measure() {
    /usr/bin/time -f "%e %M" -o "$BENCH_DIR/time.out" "$@" >/dev/null 2>"$BENCH_DIR/stderr.out" || {
        echo "failed: $*" >&2
        cat "$BENCH_DIR/stderr.out" >&2
        return 1
    }
    cat "$BENCH_DIR/time.out"
}

# "median-seconds peak_kib" of $RUNS runs of a command (a VM's timings vary
# by a few percent from run to run; the median is the run to quote).
RUNS=${RUNS:-3}
measure_median() {
    local i times=() peak=0 s k
    for ((i = 0; i < RUNS; i++)); do
        read -r s k < <(measure "$@") || return 1
        times+=("$s")
        [ "$k" -gt "$peak" ] && peak=$k
    done
    printf '%s %s\n' "$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" "$peak"
}

row() { # tool input-label bytes seconds kib postmortem-seconds
    awk -v t="$1" -v i="$2" -v b="$3" -v s="$4" -v k="$5" -v p="$6" 'BEGIN {
        mbs = b / 1e6 / s;
        printf("| %s | %s | %.0f | %.2fx | %.0f MiB |\n", t, i, mbs, p / s, k / 1024) }'
}

run_input() { # kind mib
    local f bytes label pm
    f=$(make_input "$1" "$2")
    bytes=$(stat -c %s "$f")
    label="$1 $2 MiB ($(wc -l <"$f") lines)"
    cat "$f" >/dev/null # warm the page cache
    read -r pm pm_kib < <(measure_median "$BIN" analyze "$f")
    row "postmortem analyze" "$label" "$bytes" "$pm" "$pm_kib" "$pm"
    read -r s k < <(measure_median "$BIN" analyze --threads 1 "$f")
    row "postmortem analyze --threads 1" "$label" "$bytes" "$s" "$k" "$pm"
    read -r s k < <(measure wc -l "$f")
    row "wc -l" "$label" "$bytes" "$s" "$k" "$pm"
    if [ "$1" = access ] && [ "${GZIP_ROW:-1}" = 1 ] && [ "$2" -le 1024 ]; then
        # The same log gzipped: inflated on a thread of its own.
        [ -s "$f.gz" ] || gzip -1 -c "$f" >"$f.gz"
        read -r s k < <(measure_median "$BIN" analyze "$f.gz")
        row "postmortem analyze (.gz, $(($(stat -c %s "$f.gz") / 1048576)) MiB)" "$label" "$bytes" "$s" "$k" "$pm"
    fi
    # The other tools once each, and at 1 GiB at most (GoAccess takes nine
    # minutes over 4 GiB).
    [ "$2" -le 1024 ] || return 0
    if [ "$1" = access ] && command -v goaccess >/dev/null; then
        read -r s k < <(measure goaccess "$f" --log-format=COMBINED -o "$BENCH_DIR/goaccess.html")
        row "goaccess" "$label" "$bytes" "$s" "$k" "$pm"
    fi
    if command -v lnav >/dev/null; then
        read -r s k < <(measure lnav -n -c ';SELECT count(*) FROM all_logs' "$f")
        row "lnav count(*)" "$label" "$bytes" "$s" "$k" "$pm"
    fi
}

if [ "$ACCESS_MIB" -gt 0 ] || [ "$JSON_MIB" -gt 0 ] || [ "$BIG_MIB" -gt 0 ]; then
    printf '| tool | input | MB/s | vs postmortem | peak RSS |\n|---|---|---:|---:|---:|\n'
fi
[ "$ACCESS_MIB" -gt 0 ] && run_input access "$ACCESS_MIB"
[ "$JSON_MIB" -gt 0 ] && run_input json "$JSON_MIB"
[ "$BIG_MIB" -gt 0 ] && run_input access "$BIG_MIB"

# The shape matrix: the same kinds of input over other spans and tenant
# counts, and the bundled samples. "after parsing" is what the binary
# reports with POSTMORTEM_TIMINGS set: merging the workers' aggregates,
# correlating, detecting and building the report, which must not grow
# with the span or the number of tenants. Each row is the median of $RUNS.
shape_row() { # label bytes path...
    local label=$1 bytes=$2 i s k a times=() afters=() peak=0
    shift 2
    for ((i = 0; i < RUNS; i++)); do
        read -r s k < <(POSTMORTEM_TIMINGS=1 measure "$BIN" analyze "$@") || return 1
        a=$(sed -n 's/^timings: .*after parsing \([0-9.]*\) s$/\1/p' "$BENCH_DIR/stderr.out")
        times+=("$s")
        afters+=("${a:-0}")
        [ "$k" -gt "$peak" ] && peak=$k
    done
    s=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    a=$(printf '%s\n' "${afters[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    awk -v l="$label" -v b="$bytes" -v s="$s" -v k="$peak" -v a="$a" 'BEGIN {
        printf("| %s | %.0f MB | %.2f s | %.0f | %.0f MiB | %.2f s (%.0f%%) |\n",
            l, b / 1e6, s, b / 1e6 / s, k / 1024, a, 100 * a / s) }'
}
if [ "${MATRIX:-1}" = 1 ]; then
    echo
    printf '| shape | input | time | MB/s | peak RSS | after parsing |\n|---|---:|---:|---:|---:|---:|\n'
    # kind mib hours tenants
    for shape in "access 1024 1 200" "access 256 1 100000" "access 256 24 20000" \
        "access 128 168 200" "access 128 168 100000" \
        "json 1024 1 200" "json 256 1 100000" "json 256 24 20000" \
        "json 128 168 200" "json 128 168 100000"; do
        read -r kind mib hours tenants <<<"$shape"
        f=$(make_input "$kind" "$mib" "$hours" "$tenants")
        cat "$f" >/dev/null
        shape_row "$kind, ${hours} h, $tenants tenants" "$(stat -c %s "$f")" "$f"
    done
    for d in samples/*/; do
        [ -d "$d" ] || continue
        # Uncompressed bytes of what the run reads (the README and truth
        # too: a few KiB).
        bytes=$(find "$d" -type f -exec sh -c 'case $1 in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac' _ {} \; | wc -c)
        shape_row "sample $(basename "$d")" "$bytes" "$d"
    done
fi
echo
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $("$BIN" --version)"
