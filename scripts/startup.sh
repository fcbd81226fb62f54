#!/usr/bin/env bash
# Startup time a person feels: the mean wall time of cold commands that do
# no work (`mneme --help`, `mneme version`), over N runs each, through the
# binary. Usage: scripts/startup.sh [BIN] [N]   (BIN defaults to a fresh build)
# Also prints the slowest package initialisers (GODEBUG=inittrace=1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${1:-}
n=${2:-20}
if [[ -z "$bin" ]]; then
	bin=$(mktemp -d)/mneme
	go build -o "$bin" .
fi
home=$(mktemp -d)
for args in "--help" "version"; do
	total=0
	for ((i = 0; i < n; i++)); do
		t0=$(date +%s%N)
		HOME=$home XDG_CONFIG_HOME=$home/config "$bin" $args >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		total=$((total + (t1 - t0) / 1000))
	done
	printf 'mneme %-7s mean %5.1f ms over %d runs\n' "$args" "$(echo "$total / $n / 1000" | bc -l)" "$n"
done
echo "slowest package init (ms):"
GODEBUG=inittrace=1 "$bin" version 2>&1 >/dev/null | awk '/^init / {print "  " $5, $2}' | sort -rn | head -5
