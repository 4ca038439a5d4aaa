#!/bin/bash
# Whose settings decide the sandbox: a project's files may only tighten what
# confines a command (mode, network, Unix sockets, writable places), trusted
# or not, unless the user's own sandbox.project_loosens says otherwise; a
# project's mode turns auto-allow on only once the project is trusted.
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
git init -q . && mkdir -p .tandem "$XDG_CONFIG_HOME/tandem"
USER_SETTINGS="$XDG_CONFIG_HOME/tandem/settings.json"

# conf [--trust] [tandem args...]: `tandem config`, the project trusted for it with --trust.
conf() {
	if [ "${1-}" = --trust ]; then
		shift
		mkdir -p "$TANDEM_HOME"
		jq -nc --arg r "$PWD" '{roots:[$r]}' >"$TANDEM_HOME/trusted.json"
		chmod 600 "$TANDEM_HOME/trusted.json"
	fi
	"$TANDEM" config "$@" 2>"$T/config.err"
	untrust
}
# --trust records the trust: each case starts from an untrusted project.
untrust() { rm -f "$TANDEM_HOME/trusted.json"; }
# value KEY [tandem args...]: the effective value `tandem config` shows for KEY.
value() { local k=$1; shift; conf "$@" | awk -v k="$k" '$1 == k { print $2; exit }'; }

# The user's sandbox; a project that turns it off, and a command that writes $HOME in yolo.
echo '{"sandbox":{"mode":"workspace-write"}}' >"$USER_SETTINGS"
echo '{"sandbox":{"mode":"off","network":true,"unix_sockets":true,"allow_write":["~"]}}' >.tandem/settings.json
bash_run off 'echo planted >"$HOME/off-untrusted" && echo WROTE' --permission-mode yolo
check "an untrusted project's \"off\" does not unconfine a yolo command" [ ! -e "$HOME/off-untrusted" ]
check "(the command ran, sandboxed)" [ "$(jq -r 'select(.type=="sandbox") | .active' "$T/off.jsonl")" = true ] && \
    [ "$(result off | wc -l)" -ge 1 ] && not grep -q WROTE <(result off)
bash_run offt 'echo planted >"$HOME/off-trusted" && echo WROTE' --permission-mode yolo --trust
untrust
check "nor does a trusted project's" [ ! -e "$HOME/off-trusted" ]
check "tandem config: the user's mode stands" [ "$(value sandbox.mode --trust)" = workspace-write ]
check "the project's network does not" [ "$(value sandbox.network --trust)" = false ]
check "nor its Unix sockets" [ "$(value sandbox.unix_sockets --trust)" = false ]
check "nor its writable places" [ "$(value sandbox.allow_write --trust)" = "[]" ]

# The user lets trusted projects loosen: then, and only under trust, the project's off holds.
echo '{"sandbox":{"mode":"workspace-write","project_loosens":true}}' >"$USER_SETTINGS"
check "project_loosens: an untrusted project still only tightens" [ "$(value sandbox.mode)" = workspace-write ]
check "project_loosens: a trusted project's off holds" [ "$(value sandbox.mode --trust)" = off ]
check "and its network" [ "$(value sandbox.network --trust)" = true ]

# A project cannot grant itself the right to loosen.
echo '{"sandbox":{"mode":"workspace-write"}}' >"$USER_SETTINGS"
echo '{"sandbox":{"mode":"off","project_loosens":true}}' >.tandem/settings.json
conf --trust >"$T/c3.txt"
check "a project's project_loosens is refused with a warning" \
    grep -q '"sandbox.project_loosens" is the user.s to set, not a project.s' "$T/config.err"
check "and the project's off does not hold" grep -q '^sandbox.mode  *workspace-write' "$T/c3.txt"

# Tightening is honoured, trusted or not: read-only beats the user's workspace-write.
echo '{"sandbox":{"mode":"read-only"}}' >.tandem/settings.json
bash_run ro 'echo x >inws; echo done' --permission-mode yolo
check "an untrusted project's read-only holds" [ ! -e inws ] && grep -q done <(result ro)
check "auto-allow stays the user's (on with their mode)" [ "$(value sandbox.auto_allow)" = true ]

# A project that turns a sandbox on where the user has none: confinement yes, no auto-allow.
rm -f "$USER_SETTINGS"
echo '{"sandbox":{"mode":"workspace-write"}}' >.tandem/settings.json
check "an untrusted project turns the sandbox on" [ "$(value sandbox.mode)" = workspace-write ]
check "but not auto-allow: its commands are still asked about" [ "$(value sandbox.auto_allow)" = false ]
bash_run ask 'echo asked >asked.txt' --permission-mode ask
check "headless, with no one to ask, the command does not run" [ ! -e asked.txt ]
check "a trusted project's mode brings auto-allow" [ "$(value sandbox.auto_allow --trust)" = true ]
echo '{"sandbox":{"mode":"workspace-write","auto_allow":true}}' >.tandem/settings.json
check "an untrusted project cannot turn auto-allow on" [ "$(value sandbox.auto_allow)" = false ]
echo '{"sandbox":{"auto_allow":false}}' >.tandem/settings.json
echo '{"sandbox":{"mode":"workspace-write"}}' >"$USER_SETTINGS"
check "but can turn it off" [ "$(value sandbox.auto_allow)" = false ]

# The user's flag is the user's word.
echo '{"sandbox":{"mode":"read-only"}}' >.tandem/settings.json
check "--sandbox off from the user beats a project's read-only" [ "$(value sandbox.mode --sandbox off)" = off ]

finish
