#!/bin/sh
# The functions STYLE.md bans (as curl's checksrc does): none may appear in
# tandem's sources.  One TAP case per function.
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 1
n=0
failed=0
for f in sprintf vsprintf strcpy strcat strtok atoi atol gets; do
	n=$((n + 1))
	hits=$(grep -nE "(^|[^_a-zA-Z0-9.>])$f[[:space:]]*\(" main.c demo.c lib/*.[ch] agent/*.[ch] agent/*/*.[ch] \
	    tools/*.[ch] tui/*.[ch] tests/*.[ch] tests/mock/*.[ch] tests/tui/*.c bench/*.c 2>/dev/null |
	    grep -v '^[^:]*:[0-9]*:[[:space:]]*\*' | grep -v '/\*.*'"$f"'.*\*/' | head -n 5)
	if [ -z "$hits" ]; then
		echo "ok $n - no $f"
	else
		echo "not ok $n - $f is used:"
		echo "$hits" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
done
echo "1..$n"
[ $failed -eq 0 ]
