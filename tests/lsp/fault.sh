#!/bin/bash
# A language server for the tests, good or misbehaving as FAULT_MODE says:
#   good      answers initialize; each didOpen or didChange of a text that
#             holds BROKEN publishes one error on that line (its version
#             echoed), and none otherwise
#   crash     exits as soon as a document is opened, saying why on stderr
#   hang      never answers initialize
#   silent    answers initialize, never publishes anything
#   flood     answers initialize, then writes 40 MB to stderr at once
#   garbage   answers initialize, then a header with no Content-Length
#   marker    writes ./BUILD_RAN at start (as a project's build script would), then good
#   pull      offers pull diagnostics (diagnosticProvider) and answers
#             textDocument/diagnostic from the newest text; never publishes
# It logs each method it gets to ./fault-methods.log.
export LC_ALL=C
mode=${FAULT_MODE:-good}
[ "$mode" = marker ] && : >BUILD_RAN

send() {
	printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"
}

diags_of() {	# text: the diagnostics array
	local line=-1 i=0
	while IFS= read -r l; do
		case $l in *BROKEN*) line=$i; break ;; esac
		i=$((i + 1))
	done <<<"$1"
	if [ $line -ge 0 ]; then
		echo '[{"range":{"start":{"line":'$line',"character":0},"end":{"line":'$line',"character":6}},"severity":1,"message":"BROKEN is not a word"}]'
	else
		echo '[]'
	fi
}

publish() {	# uri version text
	send '{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"'"$1"'","version":'"$2"',"diagnostics":'"$(diags_of "$3")"'}}'
}
last=

while :; do
	len=
	while IFS= read -r h; do
		h=${h%$'\r'}
		[ -z "$h" ] && break
		case $h in Content-Length:*) len=${h#Content-Length: } ;; esac
	done
	[ -z "$len" ] && exit 0
	IFS= read -r -N "$len" body || exit 0
	method=$(printf '%s' "$body" | sed -n 's/.*"method":"\([^"]*\)".*/\1/p')
	id=$(printf '%s' "$body" | sed -n 's/^{"id":\([0-9]*\),.*/\1/p')
	echo "$method" >>fault-methods.log
	case $method in
	initialize)
		[ "$mode" = hang ] && continue
		caps='{"textDocumentSync":1}'
		[ "$mode" = pull ] && caps='{"textDocumentSync":1,"diagnosticProvider":{"interFileDependencies":false,"workspaceDiagnostics":false}}'
		send '{"jsonrpc":"2.0","id":'"$id"',"result":{"capabilities":'"$caps"',"serverInfo":{"name":"fault"}}}'
		if [ "$mode" = flood ]; then head -c 40000000 /dev/zero | tr '\0' x >&2; fi
		if [ "$mode" = garbage ]; then printf 'Hello: there\r\n\r\n'; fi ;;
	textDocument/diagnostic)
		send '{"jsonrpc":"2.0","id":'"$id"',"result":{"kind":"full","items":'"$(diags_of "$last")"'}}' ;;
	shutdown)
		send '{"jsonrpc":"2.0","id":'"$id"',"result":null}' ;;
	exit)
		exit 0 ;;
	textDocument/didOpen|textDocument/didChange)
		[ "$mode" = crash ] && { echo "fault: giving up on $method" >&2; exit 3; }
		[ "$mode" = silent ] && continue
		uri=$(printf '%s' "$body" | sed -n 's/.*"uri":"\([^"]*\)".*/\1/p')
		version=$(printf '%s' "$body" | sed -n 's/.*"version":\([0-9]*\).*/\1/p')
		text=$(printf '%s' "$body" | sed -n 's/.*"text":"\(.*\)"}.*/\1/p' | sed 's/\\n/\n/g')
		last=$text
		[ "$mode" = pull ] && continue
		publish "$uri" "$version" "$text" ;;
	esac
done
