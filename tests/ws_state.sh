# ws_state DIR [find tests...]: every entry below DIR, one line each, sorted:
# its path, its type and mode, and a link's target or a hash of a file's
# content; what two calls print is the same when the tree is.  Sourced by
# tests/it/lib.sh and tests/tui/lib.sh.
ws_state() {
	(cd "$1" && shift && find . -mindepth 1 "$@" | LC_ALL=C sort | while read -r p; do
		if [ -L "$p" ]; then echo "$p link $(readlink "$p")"
		elif [ -d "$p" ]; then echo "$p dir $(stat -c %a "$p")"
		else echo "$p file $(stat -c %a "$p") $(sha256sum <"$p" | cut -c1-16)"; fi
	done)
}
