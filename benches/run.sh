#!/usr/bin/env bash
# Benchmark: `postmortem analyze` against `wc -l` (the floor) and, where
# installed, GoAccess and lnav, on deterministic inputs made by
# examples/gen_bench.rs. Prints MB/s, the ratio to postmortem and peak RSS.
#
#   benches/run.sh                      # 1 GiB access log, 1 GiB JSON lines, 4 GiB access log
#   ACCESS_MIB=256 JSON_MIB=256 BIG_MIB=0 benches/run.sh   # a quicker run
#   GZIP_ROW=0 benches/run.sh           # without the gzipped-input row
#   RUNS=5 benches/run.sh               # postmortem's rows: the median of 5 runs (3 by default)
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

make_input() { # kind mib -> path
    local f="$BENCH_DIR/$1-$2.log"
    [ -s "$f" ] || "$GEN" "$1" "$2" "$f" >&2
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

printf '| tool | input | MB/s | vs postmortem | peak RSS |\n|---|---|---:|---:|---:|\n'
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

[ "$ACCESS_MIB" -gt 0 ] && run_input access "$ACCESS_MIB"
[ "$JSON_MIB" -gt 0 ] && run_input json "$JSON_MIB"
[ "$BIG_MIB" -gt 0 ] && run_input access "$BIG_MIB"
echo
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $("$BIN" --version)"
