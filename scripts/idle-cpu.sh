#!/usr/bin/env bash
# idle-cpu.sh [SECONDS]: the CPU an idle chat uses, beside a blank Bubble
# Tea program at the same frame rate (scripts/idlecpu), each in a tmux
# pane of 100×30 for SECONDS (default 30) after a 5 s start. The chat runs
# against the fake Ollama in a throwaway data dir. Prints % of one core.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs=${1:-30}
d=$(mktemp -d)
sock="$d/tmux.sock"
go build -o "$d/mneme" .
go build -o "$d/fakeollama" ./internal/fakeollama/cmd/fakeollama
go build -o "$d/blank" ./scripts/idlecpu
port=$((20000 + RANDOM % 20000))
"$d/fakeollama" -addr "127.0.0.1:$port" >/dev/null 2>&1 &
fo=$!
trap 'kill $fo 2>/dev/null; tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$d"' EXIT

# cpu PID SECONDS: the process's CPU time over SECONDS, in % of one core.
cpu() {
	local hz u1 s1 u2 s2
	hz=$(getconf CLK_TCK)
	read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$1/stat")
	sleep "$2"
	read -r u2 s2 < <(awk '{print $14, $15}' "/proc/$1/stat")
	awk -v t=$((u2 + s2 - u1 - s1)) -v hz="$hz" -v s="$2" 'BEGIN { printf "%.2f%%", 100 * t / hz / s }'
}

run() { # run NAME COMMAND…: start it in a pane, wait, measure
	local name=$1
	shift
	tmux -S "$sock" new-session -d -s "$name" -x 100 -y 30 "$@"
	sleep 5 # let it start and settle; not synchronisation: the reading is over the next $secs
	local pid
	pid=$(tmux -S "$sock" display-message -p -t "$name" '#{pane_pid}')
	echo "$name: $(cpu "$pid" "$secs") of a core over $secs s"
	tmux -S "$sock" kill-session -t "$name"
}

run blank "$d/blank"
run chat env HOME="$d" XDG_CONFIG_HOME="$d/config" MNEME_DATA_DIR="$d/data" MNEME_USER=idle \
	OLLAMA_HOST="127.0.0.1:$port" MNEME_OLLAMA_REGISTRY=off TERM=xterm-256color "$d/mneme"
