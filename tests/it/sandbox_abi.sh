#!/bin/bash
# The sandbox with Landlock forced to each ABI from the kernel's down to 1,
# and with none (TANDEM_LANDLOCK_ABI), each checked for what it promises:
# at every level the mount namespace keeps writes to the workspace only
# (not .git, not $HOME), hides sandbox.deny_read and the host's /run
# services (root of a nested user namespace cannot undo either), the PID
# namespace hides the processes outside and keeps signals from them, the network namespace keeps 127.0.0.1 out of reach and the
# seccomp filter refuses Unix sockets; Landlock adds, from ABI 1, no
# writable device but the harmless ones; from 2, renames across
# directories (without it they fail with EXDEV); from 4, no TCP bind or
# connect; from 5, no ioctl on devices; from 6, no abstract socket outside
# the sandbox even with the network and Unix sockets on (below 6 one is
# reached, as tandem-config(5) says).  The variable only lowers.
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
git init -q . && mkdir -p .tandem secret && echo hidden >secret/key
trap 'kill $SERVERS 2>/dev/null; mock_stop' EXIT

line() { result "$1" | sed -n "s/^$2 //p" | head -n 1; }
sandbox() { jq -r "select(.type==\"sandbox\") | .$2" "$T/$1.jsonl"; }
SB=(--sandbox workspace-write --permission-mode yolo)
# check_all DESCRIPTION TEST...: ok when every TEST (shell text, run by eval) succeeds.
check_all() { local d=$1 c; shift; for c in "$@"; do eval "$c" || { fail "$d"; return; }; done; ok "$d"; }

# A TCP listener, and a Unix one at a path and at an abstract name, outside.
STREAM="$T/ws/svc.sock" ABS="tandem-abi-$$"
python3 -c 'import socket,sys,threading
def serve(s):
    while True:
        c,_=s.accept(); c.sendall(b"PONG"); c.close()
t=socket.socket(); t.bind(("127.0.0.1",0)); t.listen(16)
st=socket.socket(socket.AF_UNIX); st.bind(sys.argv[1]); st.listen(16)
ab=socket.socket(socket.AF_UNIX); ab.bind("\0"+sys.argv[2]); ab.listen(16)
for s in (st, ab):
    threading.Thread(target=serve, args=(s,), daemon=True).start()
open(sys.argv[1]+".up","w").write(str(t.getsockname()[1]))
serve(t)' "$STREAM" "$ABS" &
SERVERS=$!
for _ in $(seq 100); do [ -s "$STREAM.up" ] && break; sleep 0.05; done
PORT=$(cat "$STREAM.up")
cc -O2 -o routes "$top_srcdir/tests/it/sandbox_routes.c"
check_all "the listeners are up and the route prober is built" '[ -n "$PORT" ]' '[ -x routes ]'

# What Landlock adds, tried from inside: each line "NAME ALLOWED" or "NAME REFUSED errno".
cat >abi_probe.py <<'P'
import fcntl, os, socket
def t(name, f):
    try:
        f(); print(name, "ALLOWED")
    except OSError as e:
        print(name, "REFUSED", e.errno)
t("dev-write", lambda: os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)))
os.makedirs("ra", exist_ok=True); os.makedirs("rb", exist_ok=True); open("ra/f", "w").close()
t("refer", lambda: os.rename("ra/f", "rb/f"))
t("tcp-bind", lambda: socket.socket().bind(("127.0.0.1", 0)))
def ioc():
    fd = os.open("/dev/ptmx", os.O_RDONLY | os.O_NOCTTY)
    try:
        fcntl.ioctl(fd, 0x80045430, b"\0" * 4)   # TIOCGPTN
    finally:
        os.close(fd)
t("ioctl-dev", ioc)
P
mkdir -p "$XDG_CONFIG_HOME/tandem"
echo '{"sandbox":{"deny_read":["secret"]}}' >"$XDG_CONFIG_HOME/tandem/settings.json"
bash_run kernel 'true' "${SB[@]}"
K=$(sandbox kernel landlock_abi)
check "the kernel's Landlock ABI is 3 or later ($K), which the sandbox needs" [ "${K:-0}" -ge 3 ]
TANDEM_LANDLOCK_ABI=99 bash_run raise 'true' "${SB[@]}"
check_all "TANDEM_LANDLOCK_ABI never raises the ABI" '[ "$(sandbox raise landlock_abi)" = "$K" ]' \
    '[ "$(sandbox raise landlock_forced)" = null ]'

CMD="rm -rf ra rb; echo ok >\$ABI.txt; (echo x >.git/\$ABI) 2>/dev/null && echo WROTE-GIT; (echo x >\"\$HOME/\$ABI\") 2>/dev/null && echo WROTE-HOME
cat secret/key 2>/dev/null; echo run=\$(ls -A /run/systemd /run/user 2>/dev/null | grep -vc ':\$\|^\$')
(echo >/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && echo NET
./routes $STREAM $STREAM.none $ABS | grep '^unix-socket\|^io_uring'
python3 abi_probe.py
./routes nested /run/systemd \$PWD/.git; echo nestedrun=\$(ls -A /run/systemd | wc -l)
(kill -0 $SERVERS) 2>/dev/null && echo SIGNALLED; echo procs=\$(ls -d /proc/[0-9]* | wc -l)"
for abi in $(seq "$K" -1 0); do
	id=abi$abi
	TANDEM_LANDLOCK_ABI=$abi ABI=$id bash_run "$id" "ABI=$id; $CMD" "${SB[@]}"
	[ "$abi" -lt "$K" ] && forced=true || forced=null
	check_all "ABI $abi: the sandbox runs with it" '[ "$(sandbox "$id" active)" = true ]' \
	    '[ "$(sandbox "$id" landlock_abi)" = "$abi" ]' '[ "$(sandbox "$id" landlock_forced)" = $forced ]'
	check_all "ABI $abi: the workspace is written, .git and \$HOME are not" \
	    '[ -s "$id.txt" ]' '[ ! -e ".git/$id" ]' '[ ! -e "$HOME/$id" ]' 'not grep -q WROTE <(result "$id")'
	check_all "ABI $abi: sandbox.deny_read and /run's services stay hidden" \
	    'not grep -q hidden <(result "$id")' 'grep -q "^run=0\$" <(result "$id")'
	check_all "ABI $abi: root of a nested user namespace cannot undo the mounts" \
	    'grep -q "^nested-umount REFUSED" <(result "$id")' 'grep -q "^nested-remount REFUSED" <(result "$id")' \
	    'grep -q "^nested-write REFUSED" <(result "$id")' 'grep -q "^nestedrun=0\$" <(result "$id")' \
	    '[ ! -e .git/nested ]'
	check_all "ABI $abi: a process outside is neither seen nor signalled" \
	    'not grep -q SIGNALLED <(result "$id")' '[ "$(result "$id" | sed -n "s/^procs=//p")" -lt 10 ]'
	check "ABI $abi: 127.0.0.1 outside is out of reach" not grep -q NET <(result "$id")
	check_all "ABI $abi: Unix sockets and io_uring are refused" \
	    '[ "$(line "$id" unix-socket)" = "REFUSED 1" ]' '[ "$(line "$id" io_uring)" = "REFUSED 1" ]'
	want() { [ "$abi" -ge "$1" ] && echo "REFUSED $2" || echo ALLOWED; }
	check "ABI $abi: a device other than null, zero, full and random opens for writing: $(want 1 13)" \
	    [ "$(line "$id" dev-write)" = "$(want 1 13)" ]
	if [ "$abi" -eq 1 ]; then r="REFUSED 18"; else r=ALLOWED; fi
	check "ABI $abi: a rename across directories: $r" [ "$(line "$id" refer)" = "$r" ]
	check "ABI $abi: a TCP bind: $(want 4 13)" [ "$(line "$id" tcp-bind)" = "$(want 4 13)" ]
	check "ABI $abi: an ioctl on a device: $(want 5 13)" [ "$(line "$id" ioctl-dev)" = "$(want 5 13)" ]
done

# The network and Unix sockets on: the abstract socket outside, by ABI.
echo '{"sandbox":{"network":true,"unix_sockets":true}}' >"$XDG_CONFIG_HOME/tandem/settings.json"
for abi in $(seq "$K" -1 0); do
	id=absnet$abi
	TANDEM_LANDLOCK_ABI=$abi bash_run "$id" "./routes $STREAM $STREAM.none $ABS" "${SB[@]}"
	check "ABI $abi, network and Unix sockets on: a Unix socket by path is reached" \
	    [ "$(line "$id" unix-socket)" = REACHED ]
	if [ "$abi" -ge 6 ]; then a="REFUSED 1"; else a=REACHED; fi
	check "ABI $abi, network and Unix sockets on: the abstract socket outside: $a" \
	    [ "$(line "$id" abstract)" = "$a" ]
done
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
kill $SERVERS 2>/dev/null
wait $SERVERS 2>/dev/null
finish
