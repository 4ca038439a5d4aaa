#!/bin/sh
# The shape of the sources (scripts/layers.py): the include graph of lib/,
# tools/, agent/ and tui/ has no cycle, no file includes another folder's
# private header (NAME_int.h), each module of agent/turn/ owns its state
# (its struct is complete only in its file), and the file-level call graph
# has no circle of more than two files.
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 is not installed"
	exit 0
fi
exec python3 "$top/scripts/layers.py" --top "$top" ${LAYERS_CHECK:-all}
