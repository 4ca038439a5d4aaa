#!/bin/bash
# web_fetch's WebFetch(domain:...) rules against hosts spelt so that a rule
# and the connection could read them differently: percent-encoded letters,
# an encoded dot, upper case, a trailing dot, userinfo, a backslash.  A
# deny rule denies every spelling of the host it names, also where a
# redirect leads; an allow rule for one host allows no fetch that connects
# to another.
. "$(dirname "$0")/lib.sh"
cd "$T/ws"
web_start

# Loopback stands in for public addresses; both names lead to the test server.
export TANDEM_WEB_TEST_LOOPBACK=1
export TANDEM_WEB_TEST_RESOLVE="evil.test=127.0.0.1 good.test=127.0.0.1"

is_err() { [ "$(cat "$T/$1.err1")" = true ]; }
hits() { wc -l <"$WEB_LOG"; }

# A control: the plain name is denied in yolo mode.
n=$(hits)
web_fetch plain "http://evil.test:$WP/md" -- --permission-mode yolo --deny 'WebFetch(domain:evil.test)'
check "deny: the plain name is denied" is_err plain
check "deny: ...and not served" [ "$(hits)" -eq "$n" ]

k=0
for u in "http://%65vil.test:$WP/md" "http://evil%2etest:$WP/md" "http://EVIL.TEST:$WP/md" \
    "http://evil.test.:$WP/md" "http://good.test@evil.test:$WP/md" "http://%45VIL.test:$WP/md"; do
	k=$((k + 1))
	n=$(hits)
	web_fetch "sp$k" "$u" -- --permission-mode yolo --deny 'WebFetch(domain:evil.test)'
	check "deny: $u is denied" is_err "sp$k"
	check "deny: ...and $u was not served" [ "$(hits)" -eq "$n" ]
done

# A redirect to an encoded spelling of the denied host (curl hands the Location on decoded).
n=$(hits)
web_fetch redir "http://good.test:$WP/toencoded" -- --allow 'WebFetch(domain:*.test)' \
    --deny 'WebFetch(domain:evil.test)'
check "redirect: to http://%65vil.test/ is denied by the rule for evil.test" \
    bash -c "[ \"\$(cat '$T/redir.err1')\" = true ] && grep -q 'denied by rule WebFetch(domain:evil.test)' '$T/redir.txt'"
check "redirect: ...and only the first URL was served" [ "$(hits)" -eq $((n + 1)) ]

# A name outside ASCII: curl would connect to its IDNA form (fullwidth "ｅ" is "e"),
# which no rule reads: refused before any lookup, asking for the xn-- form.
n=$(hits)
web_fetch idn "http://ｅvil.test:$WP/md" -- --permission-mode yolo --deny 'WebFetch(domain:evil.test)'
check "deny: a fullwidth spelling of evil.test is refused, asking for ASCII" \
    bash -c "[ \"\$(cat '$T/idn.err1')\" = true ] && grep -q 'names a host in ASCII' '$T/idn.txt'"
check "deny: ...and not served" [ "$(hits)" -eq "$n" ]

# An allow rule for good.test allows no fetch that goes to evil.test (ask mode, headless: refused).
k=0
for u in "http://%65vil.test:$WP/md" "http://good.test@evil.test:$WP/md" "http://evil.test\\@good.test:$WP/md"; do
	k=$((k + 1))
	n=$(hits)
	web_fetch "al$k" "$u" -- --allow 'WebFetch(domain:good.test)'
	if is_err "al$k"; then
		check "allow good.test: $u is not fetched" [ "$(hits)" -eq "$n" ]
	else
		# it was fetched: it must have gone to good.test (the server logs the Host header)
		check "allow good.test: $u went to good.test" \
		    bash -c "tail -n 1 '$WEB_LOG' | jq -e '(.host // \"\") | startswith(\"good.test\")' >/dev/null"
	fi
done
finish
