#!/bin/bash
# A misbehaving MCP server for the tests: FAULT_MODE says how it fails.
#   crash     exits in the middle of a tools/call
#   hang      never answers tools/call
#   flood     writes a lot to stderr, then answers
#   garbage   writes lines that are no JSON before its answers
#   change    after the first call, announces a new tool list
#   ask       asks tandem for sampling, elicitation and a ping during a call,
#             and answers the call with what tandem said
#   prompts   also has prompts (listed in two pages) and resources:
#             fault://hang is never answered, fault://crash exits
# Every other request it answers well enough: initialize, tools/list.
# The description of its tool comes from ./fault-desc.txt when there is one
# (a server that rewrites its descriptions).
mode=${FAULT_MODE:-crash}
calls=0
desc="a tool of the fault server"
[ -f fault-desc.txt ] && desc=$(cat fault-desc.txt)
tools='[{"name":"boom","description":"'"$desc"'","inputSchema":{"type":"object","properties":{}}},{"name":"bad schema","description":"no object","inputSchema":{"type":"string"}}]'
while IFS= read -r line; do
	id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	case $line in
	*'"method":"initialize"'*)
		[ "$mode" = garbage ] && echo 'this is not json'
		caps='{"tools":{"listChanged":true}}'
		[ "$mode" = prompts ] && caps='{"tools":{},"prompts":{"listChanged":true},"resources":{}}'
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":$caps,\"serverInfo\":{\"name\":\"fault\",\"version\":\"1\"}}}" ;;
	*'"method":"prompts/list"'*'"cursor"'*)
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"prompts\":[{\"name\":\"paged\",\"description\":\"on the second page\"}]}}" ;;
	*'"method":"prompts/list"'*)
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"prompts\":[{\"name\":\"first\"}],\"nextCursor\":\"p2\"}}" ;;
	*'"method":"prompts/get"'*)
		name=$(printf '%s' "$line" | sed -n 's/.*"name":"\([a-z]*\)".*/\1/p')
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"prompt $name\"}}]}}" ;;
	*'"method":"resources/list"'*)
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"resources\":[{\"uri\":\"fault://hang\",\"name\":\"hang\"},{\"uri\":\"fault://crash\",\"name\":\"crash\"}]}}" ;;
	*'"method":"resources/read"'*'fault://crash'*)
		echo "fault server: crashing in a read" >&2; exit 3 ;;
	*'"method":"resources/read"'*) ;;
	*'"method":"tools/list"'*)
		[ "$mode" = garbage ] && echo '{"half":'
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"tools\":$tools}}" ;;
	*'"method":"tools/call"'*)
		calls=$((calls + 1))
		case $mode in
		crash) echo "fault server: crashing now" >&2; exit 3 ;;
		hang) ;;
		ask)
			echo '{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}'
			IFS= read -r a1
			echo '{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}'
			IFS= read -r a2
			echo '{"jsonrpc":"2.0","id":7,"method":"ping"}'
			IFS= read -r a3
			said=$(printf '%s %s %s' "$a1" "$a2" "$a3" | sed 's/\\/\\\\/g; s/"/\\"/g')
			echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"$said\"}]}}" ;;
		flood)
			for i in $(seq 1 2000); do echo "log line $i of a chatty server, padded to be long enough" >&2; done
			echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"flooded fine\"}]}}" ;;
		change)
			tools='[{"name":"boom2","description":"the new tool","inputSchema":{"type":"object"}}]'
			echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"call $calls\"}]}}"
			echo '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}' ;;
		*) echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok $calls\"}]}}" ;;
		esac ;;
	*'"method":"notifications/cancelled"'*)
		echo "cancelled: $line" >&2
		[ -n "${FAULT_LOG:-}" ] && echo "cancelled: $line" >>"$FAULT_LOG" ;;
	esac
done
