#!/usr/bin/env bash
# Style check run by the test suite: clang-format (.clang-format) on every C
# file, and the .editorconfig basics (final newline, no trailing spaces, tabs
# for C indentation) on every tracked text file.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t cfiles < <(git ls-files '*.c' '*.h')
clang-format --dry-run --Werror "${cfiles[@]}"
bad=0
while IFS= read -r f; do
	[ -s "$f" ] || continue
	case "$f" in tests/data/*|tests/fuzz/corpus/*|*.pcap|*.png|LICENSE) continue ;; esac
	if [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ]; then
		echo "$f: no newline at end of file"; bad=1
	fi
	case "$f" in
	*.md) ;;
	*) if grep -nE '[[:space:]]+$' "$f" | head -3 | grep -q .; then
		echo "$f: trailing whitespace:"; grep -nE '[[:space:]]+$' "$f" | head -3; bad=1
	   fi ;;
	esac
	case "$f" in
	*.c|*.h) if grep -nE '^ +[^ *]' "$f" | head -3 | grep -q .; then
		echo "$f: indented with spaces:"; grep -nE '^ +[^ *]' "$f" | head -3; bad=1
	   fi ;;
	esac
done < <(git ls-files)
[ "$bad" -eq 0 ] && echo "style: ok"
exit "$bad"
