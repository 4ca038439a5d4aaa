#!/bin/bash
# Every route from the sandbox to a host's Unix socket the seccomp filter
# can see, through the real binary, against real listeners started here:
# a stream service answering PONG at a path, a datagram receiver logging
# what reaches it, and an abstract listener.  Each route is shown to reach
# its listener outside the sandbox (the check works) and to be refused
# inside: socket(AF_UNIX), io_uring's IORING_OP_SOCKET and IORING_OP_CONNECT,
# a datagram socketpair's end sendto() a path or connect()ed to it, i386
# programs (socketpair, connect, io_uring_setup), x32 calls, AF_VSOCK, the
# session keyring; stream and seqpacket socketpairs keep working, and so do
# git, make and node (whose libuv falls back from io_uring).  With the
# network on, an abstract socket outside is out of reach where Landlock
# has ABI 6 (tests/it/sandbox_abi.sh runs the lower ABIs), and with Unix
# sockets allowed the keyring and AF_VSOCK stay refused.  A build for an
# architecture the filter does not know says so (simulated).
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
git init -q . && mkdir -p .tandem
trap 'kill $SERVERS 2>/dev/null; mock_stop' EXIT

# bash_run ID COMMAND [tandem args...]: one run_bash call through the mock.
bash_run() {
	local id=$1 cmd=$2
	shift 2
	mock_start "$(scenario "$id" <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_$id","name":"run_bash","input":$(jq -nc --arg c "$cmd" '{command:$c}')}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
	"${IN_SESSION[@]}" "$TANDEM" -p x --output-format events "$@" >"$T/$id.jsonl" 2>"$T/$id.err"
}
result() { jq -r 'select(.type=="tool_result") | .content' "$T/$1.jsonl"; }
# route ID NAME: the prober's line for one route
route() { result "$1" | sed -n "s/^$2 //p" | head -n 1; }
SB=(--sandbox workspace-write --permission-mode yolo)
# logged WORD: whether the datagram receiver logged WORD, given up to 10 s on a loaded machine.
logged() { local i; for i in $(seq 200); do grep -q "$1" "$DLOG" && return 0; sleep 0.05; done; return 1; }
# check_all DESCRIPTION TEST...: ok when every TEST (shell text, run by eval) succeeds.
check_all() { local d=$1 c; shift; for c in "$@"; do eval "$c" || { fail "$d"; return; }; done; ok "$d"; }

# --- the listeners (in the workspace: the sandbox has its own /tmp) ------------
STREAM="$T/ws/svc.sock" DGRAM="$T/ws/dgram.sock" ABS="tandem-routes-$$" DLOG="$T/dgram.log"
: >"$DLOG"
python3 -c 'import socket,sys,threading
def serve(s):
    while True:
        c,_=s.accept(); c.sendall(b"PONG"); c.close()
st=socket.socket(socket.AF_UNIX); st.bind(sys.argv[1]); st.listen(16)
ab=socket.socket(socket.AF_UNIX); ab.bind("\0"+sys.argv[3]); ab.listen(16)
dg=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); dg.bind(sys.argv[2])
threading.Thread(target=serve, args=(st,), daemon=True).start()
threading.Thread(target=serve, args=(ab,), daemon=True).start()
open(sys.argv[1]+".up","w").close()
log=open(sys.argv[4],"a")
while True:
    m=dg.recv(256); log.write(m.decode(errors="replace")); log.flush()' "$STREAM" "$DGRAM" "$ABS" "$DLOG" &
SERVERS=$!
for _ in $(seq 100); do [ -e "$STREAM.up" ] && break; sleep 0.05; done
check_all "the listeners are up" '[ -S "$STREAM" ]' '[ -S "$DGRAM" ]'

# --- the prober, compiled here --------------------------------------------------
cc -O2 -o routes "$top_srcdir/tests/it/sandbox_routes.c"
check "the route prober is built (cc)" [ -x routes ]
export PROBE_SECRET=keyring-secret-4711
PROBE="./routes $STREAM $DGRAM $ABS"
# tandem runs in a session keyring holding the secret, and its commands with it.
IN_SESSION=("$T/ws/routes" session "$PROBE_SECRET")

bash_run out "$PROBE" --permission-mode yolo
for r in unix-socket io_uring abstract; do
	check "outside the sandbox $r reaches its listener (the check works)" [ "$(route out $r)" = REACHED ]
done
check_all "outside, a datagram socketpair's end sendto() a path reaches the receiver" \
    '[ "$(route out dgram-sendto)" = SENT ]' 'logged SENDTO'
check_all "outside, one connect()ed to it too" '[ "$(route out dgram-connect)" = SENT ]' 'logged CONNECT'
check_all "outside, a SOCK_RAW socketpair (a datagram one to the kernel) too" \
    '[ "$(route out raw-sendto)" = SENT ]' 'logged RAWSENT'
check "outside, the session keyring's secret is read (the check works)" [ "$(route out keyring)" = READ ]
: >"$DLOG"

bash_run in "$PROBE" "${SB[@]}"
check "the sandbox is active" [ "$(jq -r 'select(.type=="sandbox") | .active' "$T/in.jsonl")" = true ]
check "it says it confines Unix sockets" \
    [ "$(jq -r 'select(.type=="sandbox") | .unix_sockets_confined' "$T/in.jsonl")" = true ]
check "in the sandbox socket(AF_UNIX) is refused (EPERM)" [ "$(route in unix-socket)" = "REFUSED 1" ]
check "io_uring is refused at its setup (EPERM)" [ "$(route in io_uring)" = "REFUSED 1" ]
check "a datagram socketpair is refused, so nothing is sendto() a path" \
    [ "$(route in dgram-sendto)" = "REFUSED 1" ]
check "nor connect()ed to it" [ "$(route in dgram-connect)" = "REFUSED 1" ]
check "nor a SOCK_RAW socketpair (only stream and seqpacket types pass)" [ "$(route in raw-sendto)" = "REFUSED 1" ]
check "and nothing reached the datagram receiver" [ ! -s "$DLOG" ]
check "a nonblocking datagram socketpair is refused too (flags are masked)" \
    [ "$(route in pair-dgram-nonblock)" = "REFUSED 1" ]
for p in pair-stream pair-seqpacket pair-stream-cloexec-nonblock; do
	check "$p still works" [ "$(route in $p)" = WORKS ]
done
check "AF_VSOCK (a virtual machine's host) is refused (EAFNOSUPPORT)" [ "$(route in vsock)" = "REFUSED 97" ]
check "the inherited session keyring is refused (EPERM)" [ "$(route in keyring)" = "REFUSED 1" ]
check "the abstract socket is out of reach with the network off" [ "$(route in abstract)" != REACHED ]
check "no route reached a listener" not grep -q REACHED <(result in)

# --- i386 and x32 programs (binutils) ---------------------------------------------
mkdir -p "$T/asm"
# i386: socketpair(AF_UNIX, SOCK_DGRAM) then connect() to the receiver's path and write.
printf '%s\n' '.globl _start' '.text' \
    '_start: movl $360, %eax' 'movl $1, %ebx' 'movl $2, %ecx' 'xorl %edx, %edx' 'movl $sv, %esi' 'int $0x80' \
    'testl %eax, %eax' 'js fail' \
    'movl $362, %eax' 'movl sv, %ebx' 'movl $addr, %ecx' "movl \$$((${#DGRAM} + 3)), %edx" 'int $0x80' \
    'testl %eax, %eax' 'js noconn' \
    'movl $4, %eax' 'movl sv, %ebx' 'movl $msg, %ecx' 'movl $5, %edx' 'int $0x80' \
    'xorl %ebx, %ebx' 'movl $1, %eax' 'int $0x80' \
    'noconn: movl $100, %ebx' 'movl $1, %eax' 'int $0x80' \
    'fail: movl %eax, %ebx' 'movl $1, %eax' 'int $0x80' \
    '.data' 'sv: .long 0, 0' 'msg: .ascii "I386\n"' 'addr: .word 1' ".asciz \"$DGRAM\"" >"$T/asm/dg.s"
# i386: io_uring_setup(4, &params); the exit status is its result.
printf '%s\n' '.globl _start' '.text' '_start: movl $425, %eax' 'movl $4, %ebx' 'movl $params, %ecx' \
    'int $0x80' 'movl %eax, %ebx' 'movl $1, %eax' 'int $0x80' '.data' 'params: .space 120' >"$T/asm/ur.s"
# x32 (the x32 bit in an x86_64 call's number): socketpair(AF_UNIX, SOCK_DGRAM) and io_uring_setup.
x32() {
	printf '%s\n' '.globl _start' '.text' "_start: movl \$$((0x40000000 + $2)), %eax" 'movl $1, %edi' \
	    "movl \$$3, %esi" 'xorl %edx, %edx' 'leaq sv(%rip), %r10' 'syscall' \
	    'movl %eax, %edi' 'movl $60, %eax' 'syscall' '.data' 'sv: .space 128' >"$T/asm/$1.s"
}
x32 x32pair 53 2
x32 x32uring 425 0
ok_asm=true
for p in dg ur; do
	as --32 -o "$T/asm/$p.o" "$T/asm/$p.s" && ld -m elf_i386 -o "$p.i386" "$T/asm/$p.o" || ok_asm=false
done
for p in x32pair x32uring; do
	as --64 -o "$T/asm/$p.o" "$T/asm/$p.s" && ld -o "$p" "$T/asm/$p.o" || ok_asm=false
done
check "the i386 and x32 programs are built (binutils)" $ok_asm
ABIS='./dg.i386; echo dg=$?; ./ur.i386; echo ur=$?; ./x32pair; echo x32pair=$?; ./x32uring; echo x32uring=$?'
: >"$DLOG"
bash_run abiout "$ABIS" --permission-mode yolo
check_all "i386 outside: a datagram socketpair connect()ed to the receiver's path reaches it" \
    'grep -q "^dg=0\$" <(result abiout)' 'logged I386'
check "i386 outside: io_uring_setup gives a ring (the check works)" grep -q '^ur=3$' <(result abiout)
# This kernel may have no x32 (ENOSYS, 218): inside, the filter's EPERM (255) shows it was seen.
x32out=$(result abiout | sed -n 's/^x32pair=//p')
check "x32 outside: the kernel runs or lacks x32 ($x32out), never the filter's EPERM" [ "$x32out" != 255 ]
: >"$DLOG"
bash_run abiin "$ABIS" "${SB[@]}"
check "i386 in the sandbox: the datagram socketpair is refused (EPERM)" grep -q '^dg=255$' <(result abiin)
check "i386: nothing reached the receiver" [ ! -s "$DLOG" ]
check "i386: io_uring_setup is refused (EPERM)" grep -q '^ur=255$' <(result abiin)
check "x32: its socketpair is refused by the filter (EPERM)" grep -q '^x32pair=255$' <(result abiin)
check "x32: its io_uring_setup too" grep -q '^x32uring=255$' <(result abiin)

# --- the network on: abstract sockets (Landlock ABI 6) -----------------------------
mkdir -p "$XDG_CONFIG_HOME/tandem"
echo '{"sandbox":{"network":true,"unix_sockets":true}}' >"$XDG_CONFIG_HOME/tandem/settings.json"
bash_run abs "$PROBE" "${SB[@]}"
abi=$(jq -r 'select(.type=="sandbox") | .landlock_abi' "$T/abs.jsonl")
check "network and Unix sockets on: a socket by path is reached (the check works)" \
    [ "$(route abs unix-socket)" = REACHED ]
# Below ABI 6 (an older kernel) it is reached, as tandem-config(5) says.
if [ "$abi" -ge 6 ]; then want="REFUSED 1"; else want=REACHED; fi
check "Landlock ABI $abi: the abstract socket outside the sandbox: $want (6 on: Landlock's scope)" \
    [ "$(route abs abstract)" = "$want" ]
check "with Unix sockets on, io_uring and datagram socketpairs are allowed too" \
    [ "$(route abs io_uring)" = REACHED ]
check_all "but the session keyring and AF_VSOCK stay refused" '[ "$(route abs keyring)" = "REFUSED 1" ]' \
    '[ "$(route abs vsock)" = "REFUSED 97" ]' '[ "$(route abs dgram-sendto)" = SENT ]'
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"

# --- workloads still run ------------------------------------------------------------------
printf 'all: out.txt\nout.txt:\n\techo made >out.txt\n' >Makefile
echo '{"name":"w","version":"1.0.0","scripts":{"test":"node -e \"console.log(1 + 1)\""}}' >package.json
git add Makefile && git -c user.email=t@t -c user.name=t commit -qm init
bash_run work 'git status --short | head -n 3; echo git=$?; make -s && cat out.txt; npm test --silent; echo npm=$?; node -e "require(\"fs\").readFile(\"Makefile\", (e, d) => { require(\"child_process\").exec(\"echo child\", (e2, o) => console.log(\"node\", d.length > 0, o.trim())); })"' \
    "${SB[@]}"
check "git status runs in the sandbox" grep -q '^git=0$' <(result work)
check "make runs" grep -q '^made$' <(result work)
check_all "npm test runs" 'grep -q "^2\$" <(result work)' 'grep -q "^npm=0\$" <(result work)'
check "node runs, reads a file and starts a child (libuv without io_uring)" \
    grep -q '^node true child$' <(result work)

# --- an architecture the filter does not know (simulated) ----------------------------------
TANDEM_SANDBOX_SIMULATE=unknownarch bash_run unknown 'true' "${SB[@]}"
check "an unknown architecture: the sandbox does not claim to confine Unix sockets" \
    [ "$(jq -r 'select(.type=="sandbox") | .unix_sockets_confined' "$T/unknown.jsonl")" = false ]
check "and says so in one sentence" \
    [ "$(jq -s '[.[] | select(.type=="error" and (.message | test("no seccomp filter for this build.s architecture")))] | length' "$T/unknown.jsonl")" -eq 1 ]

kill $SERVERS 2>/dev/null
wait $SERVERS 2>/dev/null
finish
