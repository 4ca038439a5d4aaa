#!/bin/bash
# The command sandbox through the real binary: inside the workspace a
# command builds and writes; writes to $HOME, /etc, a directory outside,
# .git/hooks and .tandem/ fail with the read-only file system and the result
# says so; 127.0.0.1 is out of reach with the network off and in reach with
# it on; what a command leaves running (setsid, double fork) is gone after it,
# sandboxed or not; a sandboxed command needs no prompt in ask mode, an ask
# rule still asks; a kernel without Landlock or user namespaces (simulated)
# is said once and commands are asked about as before.  No skips: CI's
# kernel has what the sandbox needs, so a missing piece fails here.
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
git init -q . && mkdir -p .git/hooks .tandem
OUTSIDE="$top_builddir/sandbox-probe.$$"
mkdir -p "$OUTSIDE"
trap 'rm -rf "$OUTSIDE"; mock_stop' EXIT

# check_all DESCRIPTION TEST...: ok when every TEST (shell text, run by eval) succeeds.
check_all() { local d=$1 c; shift; for c in "$@"; do eval "$c" || { fail "$d"; return; }; done; ok "$d"; }
sandbox_active() { jq -r 'select(.type=="sandbox") | .active' "$T/$1.jsonl"; }
approval() { jq -r 'select(.type=="approval") | .by + ":" + .decision' "$T/$1.jsonl"; }

# --- the kernel has it: no silent skip on CI ---------------------------------
bash_run probe 'true' --sandbox workspace-write --permission-mode yolo
check "the sandbox is active on this kernel (else: $(jq -r 'select(.type=="sandbox") | .reason // ""' "$T/probe.jsonl"))" \
    [ "$(jq -r 'select(.type=="sandbox") | .active' "$T/probe.jsonl")" = true ]
check "it reports Landlock ABI 3 or later" \
    [ "$(jq -r 'select(.type=="sandbox") | .landlock_abi' "$T/probe.jsonl")" -ge 3 ]

# --- writes ---------------------------------------------------------------------
cat >Makefile <<'M'
hello: hello.c
	cc -o hello hello.c
M
printf '#include <stdio.h>\nint main(void){puts("built and ran");return 0;}\n' >hello.c
bash_run build 'make -s && ./hello && echo data >out.txt && mkdir -p sub && echo t >"$TMPDIR/t" && cat "$TMPDIR/t"' \
    --sandbox workspace-write --permission-mode yolo
check "a command builds and runs in the workspace" grep -q 'built and ran' <(result build)
check_all "and writes there" '[ "$(cat out.txt 2>/dev/null)" = data ]' '[ -d sub ]'
check "and writes its private TMPDIR" grep -q '^t$' <(result build)
check "the build result is not an error" [ "$(jq -r 'select(.type=="tool_result") | .is_error' "$T/build.jsonl")" = false ]

bash_run writes 'id -u; for f in "$HOME/x" /etc/tandem-sandbox-x "'"$OUTSIDE"'/x" .git/hooks/pre-commit .tandem/settings.json; do echo planted >"$f" && echo "WROTE $f"; done; exit 1' \
    --sandbox workspace-write --permission-mode yolo
check "writing \$HOME fails" [ ! -e "$HOME/x" ]
check "writing /etc fails" [ ! -e /etc/tandem-sandbox-x ]
check "writing a directory outside the workspace fails" [ ! -e "$OUTSIDE/x" ]
check "writing .git/hooks fails" [ ! -e .git/hooks/pre-commit ]
check "writing .tandem/ fails" [ ! -e .tandem/settings.json ]
check "nothing says it wrote" not grep -q WROTE <(result writes)
check "the refusal is the read-only file system" grep -q 'Read-only file system' <(result writes)
check "the result says the sandbox refused it" grep -q '^\[sandbox: a write was refused' <(result writes)
check "and how to run it outside" grep -q '"sandbox": false; the user is asked first' <(result writes)
check "uid 0 in the sandbox is tandem's own uid, mapped to itself" \
    [ "$(result writes | head -n 1)" = "$(id -u)" ]

# Root in the sandbox has no capability left to undo the read-only mounts.
bash_run remount 'mount -o remount,rw / 2>&1; mount -o remount,bind,rw .git 2>&1; echo x >.git/y 2>&1; sudo true 2>&1; grep ^CapEff /proc/self/status; grep NoNewPrivs /proc/self/status' \
    --sandbox workspace-write --permission-mode yolo
check "a remount read-write fails and .git stays read-only" [ ! -e .git/y ]
check "no effective capability" grep -q 'CapEff:.0000000000000000' <(result remount)
check "no_new_privs is set" grep -q 'NoNewPrivs:.1' <(result remount)

bash_run ro 'echo x >inws; cat Makefile >/dev/null && echo read-ok' --sandbox read-only --permission-mode yolo
check "read-only mode: the workspace reads" grep -q read-ok <(result ro)
check "read-only mode: the workspace does not write" [ ! -e inws ]

# Older Landlock ABIs (as the kernel would offer them): the sandbox uses what there is.
for abi in 3 4 5 6; do
	TANDEM_SANDBOX_SIMULATE=landlock=$abi bash_run "abi$abi" "echo x >.git/abi$abi; echo ok >abi$abi.txt; echo >/dev/tcp/127.0.0.1/1 && echo NET" \
	    --sandbox workspace-write --permission-mode yolo
	check_all "Landlock ABI $abi: active, writes the workspace, not .git, no network" \
	    '[ "$(sandbox_active "abi$abi")" = true ]' \
	    '[ -s "abi$abi.txt" ]' '[ ! -e ".git/abi$abi" ]' 'not grep -q NET <(result "abi$abi")'
done

# --- the session and the environment -------------------------------------------
SSH_AUTH_SOCK=/tmp/agent.sock DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus \
    bash_run envs 'echo "ssh=${SSH_AUTH_SOCK-unset} dbus=${DBUS_SESSION_BUS_ADDRESS-unset} tmp=$TMPDIR"; echo "run=$(ls -A /run/user /run/systemd /run/dbus 2>/dev/null | grep -vc ":$\|^$")"; (: >/dev/tty) 2>/dev/null && echo has-tty || echo no-tty' \
    --sandbox workspace-write --permission-mode yolo
check "SSH_AUTH_SOCK and DBus are removed, TMPDIR is private" \
    grep -q '^ssh=unset dbus=unset tmp=/tmp$' <(result envs)
check "the command has no controlling terminal" grep -q no-tty <(result envs)
check "/run/user, /run/systemd and /run/dbus are empty inside" grep -q '^run=0$' <(result envs)
check "(and not empty outside, or the check proves nothing)" [ -n "$(ls -A /run/systemd /run/dbus 2>/dev/null)" ]

# --- the network ----------------------------------------------------------------
python3 -c 'import socket,sys
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(5); print(s.getsockname()[1]); sys.stdout.flush()
import time; time.sleep(60)' >"$T/port" &
LISTENER=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.05; done
PORT=$(cat "$T/port")
bash_run netoff "echo >/dev/tcp/127.0.0.1/$PORT && echo CONNECTED; s=\$(date +%s%N); getent hosts example.com; echo dns=\$? ms=\$(( (\$(date +%s%N) - s) / 1000000 )); exit 2" \
    --sandbox workspace-write --permission-mode yolo
check "with the network off, 127.0.0.1:$PORT cannot be reached" not grep -q CONNECTED <(result netoff)
check "DNS fails" grep -q 'dns=2' <(result netoff)
ms=$(result netoff | sed -n 's/.*ms=\([0-9]*\).*/\1/p')
check "DNS fails fast (${ms} ms)" [ "${ms:-9999}" -lt 1000 ]
mkdir -p "$XDG_CONFIG_HOME/tandem"
echo '{"sandbox":{"network":true}}' >"$XDG_CONFIG_HOME/tandem/settings.json"
bash_run neton "echo >/dev/tcp/127.0.0.1/$PORT && echo CONNECTED" --sandbox workspace-write --permission-mode yolo
check "with sandbox.network on, it can" grep -q CONNECTED <(result neton)
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
kill "$LISTENER" 2>/dev/null
wait "$LISTENER" 2>/dev/null

# --- Unix sockets ------------------------------------------------------------------
# A service's socket by its path (not in a hidden directory) is out of reach;
# a socketpair between a program's own processes still works.
# (in the workspace: the sandbox has its own /tmp, and $OUTSIDE may be below /tmp)
SOCK="$T/ws/service.sock"
python3 -c 'import socket,sys,os
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(5); open(sys.argv[1]+".up","w").close()
while True:
    c,_=s.accept(); c.sendall(b"PONG\n"); c.close()' "$SOCK" &
ULISTENER=$!
for _ in $(seq 50); do [ -e "$SOCK.up" ] && break; sleep 0.05; done
ucli="python3 -c 'import socket,sys
a,b=socket.socketpair(); a.sendall(b\"x\"); print(\"PAIR\", b.recv(1).decode())
try:
    s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(\"GOT\", s.recv(5).decode().strip())
except OSError as e:
    print(\"REFUSED\", e.errno)' $SOCK"
bash_run unixout "$ucli" --permission-mode yolo
check "outside the sandbox the service answers (the check works)" grep -q '^GOT PONG' <(result unixout)
bash_run unixin "$ucli" --sandbox workspace-write --permission-mode yolo
check "in the sandbox a Unix socket by path is refused (EPERM)" grep -q '^REFUSED 1$' <(result unixin)
check "and nothing of the service came through" not grep -q PONG <(result unixin)
check "a socketpair still works in the sandbox" grep -q '^PAIR x' <(result unixin)
# A 32-bit (i386) program: socketcall is refused whole, i386's own socket(AF_UNIX) too.
mkdir -p "$T/i386"
printf '%s\n' '.globl _start' '.text' '_start: movl $102, %eax' 'movl $1, %ebx' 'movl $args, %ecx' \
    'int $0x80' 'movl %eax, %ebx' 'movl $1, %eax' 'int $0x80' '.data' 'args: .long 1, 1, 0' >"$T/i386/sc.s"
printf '%s\n' '.globl _start' '.text' '_start: movl $359, %eax' 'movl $1, %ebx' 'movl $1, %ecx' \
    'xorl %edx, %edx' 'int $0x80' 'movl %eax, %ebx' 'movl $1, %eax' 'int $0x80' >"$T/i386/s359.s"
for p in sc s359; do
	as --32 -o "$T/i386/$p.o" "$T/i386/$p.s" && ld -m elf_i386 -o "$p.i386" "$T/i386/$p.o"
done
check_all "i386 test programs are built (binutils)" '[ -x sc.i386 ]' '[ -x s359.i386 ]'
bash_run i386out './sc.i386; echo sc=$?; ./s359.i386; echo s359=$?' --permission-mode yolo
check_all "i386: outside the sandbox both make a Unix socket (the check works)" \
    'grep -q sc=3 <(result i386out)' 'grep -q s359=3 <(result i386out)'
bash_run i386in './sc.i386; echo sc=$?; ./s359.i386; echo s359=$?' --sandbox workspace-write --permission-mode yolo
check "i386: socketcall is refused in the sandbox (EPERM)" grep -q 'sc=255' <(result i386in)
check "i386: its socket(AF_UNIX) too" grep -q 's359=255' <(result i386in)
rm -f sc.i386 s359.i386
bash_run unixfail "python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect(\"$SOCK\")'" \
    --sandbox workspace-write --permission-mode yolo
check "a command failing on it is told why" grep -q 'Unix sockets cannot be created inside the sandbox' <(result unixfail)
echo '{"sandbox":{"unix_sockets":true}}' >"$XDG_CONFIG_HOME/tandem/settings.json"
bash_run unixon "$ucli" --sandbox workspace-write --permission-mode yolo
check "with sandbox.unix_sockets true, it is reached" grep -q '^GOT PONG' <(result unixon)
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"sandbox":{"unix_sockets":true}}' >.tandem/settings.json
bash_run unixproj "$ucli" --sandbox workspace-write --permission-mode yolo
check "an untrusted project cannot turn Unix sockets on" grep -q '^REFUSED 1$' <(result unixproj)
rm -f .tandem/settings.json
kill "$ULISTENER" 2>/dev/null
wait "$ULISTENER" 2>/dev/null
rm -f "$SOCK" "$SOCK.up"

# --- what a command starts ends with it -----------------------------------------
bash_run daemon 'setsid sleep 3171 & (sleep 3172 >/dev/null 2>&1 &) ; nohup sleep 3173 >/dev/null 2>&1 & echo started' \
    --sandbox workspace-write --permission-mode yolo
check "the sandboxed command ran" grep -q started <(result daemon)
sleep 0.3
check "its setsid, double-forked and nohup children are gone" not pgrep -f '^sleep 317[123]$'
bash_run daemon_off 'setsid sleep 3174 & (sleep 3175 >/dev/null 2>&1 &) ; echo started' --permission-mode yolo
check "the unsandboxed command ran" grep -q started <(result daemon_off)
sleep 0.3
check "without the sandbox too, its daemons are gone" not pgrep -f '^sleep 317[45]$'
check "and nothing of it is left a zombie of tandem" not pgrep -f 'sleep 317' 

# --- the gate ---------------------------------------------------------------------
bash_run ask 'echo asked-not' --sandbox workspace-write --permission-mode ask
check "ask mode: a sandboxed command runs without a prompt" [ "$(approval ask)" = "sandbox:allow" ]
check "and it ran" grep -q asked-not <(result ask)
bash_run accept 'echo accepted' --sandbox workspace-write --permission-mode accept-edits
check "accept-edits mode: the same" [ "$(approval accept)" = "sandbox:allow" ]
echo '{"permissions":{"ask":["run_bash(git *)"]}}' >"$XDG_CONFIG_HOME/tandem/settings.json"
bash_run askrule 'git status' --sandbox workspace-write --permission-mode ask
check "an ask rule still asks (headless: refused)" [ "$(approval askrule)" = "mode:deny" ]
check "and the refusal names the ask rule" grep -q 'run_bash(git \*)' <(result askrule)
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
mkdir -p "$XDG_CONFIG_HOME/tandem"
bash_run denyrule 'rm -rf sub' --sandbox workspace-write --permission-mode ask --deny 'run_bash(rm *)'
check_all "a deny rule still denies" '[ "$(approval denyrule)" = "rule:deny" ]' '[ -d sub ]'
echo '{"sandbox":{"network":true}}' >"$XDG_CONFIG_HOME/tandem/settings.json"
bash_run netask 'echo x' --sandbox workspace-write --permission-mode ask
check "with the network on, nothing is auto-allowed" [ "$(approval netask)" = "mode:deny" ]
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"sandbox":{"auto_allow":false}}' >"$XDG_CONFIG_HOME/tandem/settings.json"
bash_run noauto 'echo x' --sandbox workspace-write --permission-mode ask
check "sandbox.auto_allow false: asked as before" [ "$(approval noauto)" = "mode:deny" ]
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# Outside the sandbox on request: never auto-allowed; where allowed, it runs unconfined.
mock_start "$(scenario outside <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_o","name":"run_bash","input":{"command":"echo out >$OUTSIDE/o","sandbox":false}}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
"$TANDEM" -p x --output-format events --sandbox workspace-write --permission-mode ask >"$T/outside.jsonl" 2>&1
check_all "\"sandbox\": false is not auto-allowed" '[ "$(approval outside)" = "mode:deny" ]' '[ ! -e "$OUTSIDE/o" ]'
mock_start "$(scenario outside2 <"$T/outside.json")"
"$TANDEM" -p x --output-format events --sandbox workspace-write --permission-mode yolo >"$T/outside2.jsonl" 2>&1
check "allowed, it runs outside the sandbox" [ "$(cat "$OUTSIDE/o" 2>/dev/null)" = out ]

# Hooks are not sandboxed: a PostToolUse hook writes where a command cannot
# (the command exits 0 though its write was refused: a failed call would run
# PostToolUseFailure instead).
echo '{"sandbox":{"mode":"workspace-write"},"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo hook >'"$OUTSIDE"'/hook"}]}]}}' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
bash_run hook 'echo cmd >"'"$OUTSIDE"'/cmd" || true' --permission-mode yolo
check_all "a hook runs unconfined while the command was confined" \
    '[ "$(cat "$OUTSIDE/hook" 2>/dev/null)" = hook ]' '[ ! -e "$OUTSIDE/cmd" ]'
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# --- a kernel that cannot (simulated) ------------------------------------------------
for sim in nolandlock nouserns landlock=2; do
	TANDEM_SANDBOX_SIMULATE=$sim bash_run "sim_${sim%%=*}" 'echo ran' --sandbox workspace-write --permission-mode ask
	f="$T/sim_${sim%%=*}.jsonl"
	check "$sim: tandem says the sandbox cannot run, once" \
	    [ "$(jq -s '[.[] | select(.type=="error" and (.message | test("the sandbox \\(workspace-write\\) cannot run here")))] | length' "$f")" -eq 1 ]
	check "$sim: and the command is asked about as before" [ "$(approval "sim_${sim%%=*}")" = "mode:deny" ]
done
check "the no-Landlock message names the minimum ABI" grep -q 'needs Landlock ABI 3 or later' "$T/sim_nolandlock.jsonl"
check "the no-userns message names user namespaces" grep -q 'user namespaces' "$T/sim_nouserns.jsonl"

# --- settings ---------------------------------------------------------------------------
mkdir -p "$XDG_CONFIG_HOME/tandem"
echo '{"sandbox":{"mode":"workspace-write","allow_write":["~/cache"],"deny_read":["secret"],"bogus":1}}' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
"$TANDEM" config >"$T/config.txt" 2>"$T/config.err"
check "tandem config shows sandbox.mode and its file" grep -q '^sandbox.mode  *workspace-write  \[.*settings.json\]' "$T/config.txt"
check "tandem config shows auto_allow on by default with a mode" grep -q '^sandbox.auto_allow  *true  \[default\]' "$T/config.txt"
check "an unknown sandbox key is warned about" grep -q '"sandbox.bogus" is not a sandbox setting' "$T/config.err"
mkdir -p "$HOME/cache" secret && echo hidden >secret/key
bash_run allowed 'echo c >"$HOME/cache/c"; cat secret/key 2>&1; echo done' --permission-mode yolo
check "sandbox.allow_write is writable" [ "$(cat "$HOME/cache/c" 2>/dev/null)" = c ]
check_all "sandbox.deny_read is hidden" 'grep -q done <(result allowed)' 'not grep -q hidden <(result allowed)'
check "and still there outside" [ "$(cat secret/key)" = hidden ]
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
echo '{"sandbox":{"mode":"workspace-write","allow_write":["/"]}}' >.tandem/settings.json
"$TANDEM" config >"$T/config2.txt" 2>&1
check "an untrusted project's sandbox confines, without its own writable places or auto-allow" \
    grep -q '^sandbox.mode  *workspace-write' "$T/config2.txt" && \
    grep -q '^sandbox.allow_write  *\[\]' "$T/config2.txt" && grep -q '^sandbox.auto_allow  *false' "$T/config2.txt"
rm -f .tandem/settings.json
bash_run badflag 'true' --sandbox wide-open
check "a bad --sandbox is one clear sentence" grep -q 'must be "off", "read-only" or "workspace-write"' "$T/badflag.err"

finish
