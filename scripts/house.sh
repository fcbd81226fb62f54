#!/usr/bin/env bash
# The shape of the house (ARCHITECTURE.md), checked: package and file sizes,
# a thin root, who may import the TUI, and a tidy go.mod. CI runs it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fail=0
complain() { echo "house: $*" >&2; fail=1; }
module=$(go list -m)

# No package over 5,000 non-test lines, no non-test file over 700.
while read -r pkg dir files; do
	[[ -z "$files" ]] && continue
	total=0
	for f in $files; do
		n=$(wc -l <"$dir/$f")
		total=$((total + n))
		((n > 700)) && complain "${dir#"$PWD"/}/$f has $n lines (at most 700)"
	done
	((total > 5000)) && complain "$pkg has $total non-test lines (at most 5,000)"
done < <(go list -f '{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}' ./...)

# The root is wiring only: at most three non-test files.
n=$(go list -f '{{len .GoFiles}}' .)
((n > 3)) && complain "the root has $n non-test Go files (at most 3)"

# Only the chat command imports the TUI; nothing imports up; tui imports no tools.
while read -r pkg imports; do
	for imp in $imports; do
		case "$pkg -> $imp" in
		"$module/tui"* | "$module/cli -> $module/tui"*) ;;
		*" -> $module/tui"*) complain "$pkg imports $imp" ;;
		esac
		case "$pkg -> $imp" in
		"$module/tui"*" -> $module/tools"*) complain "$pkg imports $imp" ;;
		"$module/agent"*" -> $module/cli"* | "$module/tools"*" -> $module/agent"* | "$module/memory"*" -> $module/tools"* | "$module/memory"*" -> $module/agent"*) complain "$pkg imports $imp (nothing imports up)" ;;
		esac
	done
done < <(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./...)
for f in $(git grep -l "\"$module/tui\"" -- 'cli/*.go' ':!*_test.go'); do
	case "$f" in cli/cmd_chat.go | cli/chat_wiring.go) ;; *) complain "$f imports tui (only the chat command may)" ;; esac
done

# go mod tidy changes nothing.
go mod tidy -diff >/dev/null || complain "go mod tidy would change go.mod or go.sum"

exit $fail
