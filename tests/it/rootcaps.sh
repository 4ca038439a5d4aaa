#!/bin/bash
# Commands tandem starts hold no CAP_SYS_PTRACE, so a command run as root
# outside the sandbox cannot read tandem's memory: a run_bash command, a
# background shell, a hook and the apiKeyHelper look in /proc/<tandem>/mem
# for the API key and are refused, and their bounding set lacks the
# capability while the rest of root's stays.  CI runs as root; as another
# user a command has no capability to begin with, and the test says so.
. "$(dirname "$0")/lib.sh"
cd "$T/ws" || exit 1
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP not root: a command has no capability to drop"
	rm -rf "$T"
	exit 0
fi
export ANTHROPIC_API_KEY=sk-tandem-memprobe-5d1e0c7a9b
# probe.py PID NAME: look for the key in PID's writable memory; say what came of it.
cat >"$T/probe.py" <<'P'
import os, re, sys
pid, name = sys.argv[1], sys.argv[2]

def parent(p):
    return re.search(r"PPid:\s*(\d+)", open("/proc/%s/status" % p).read()).group(1)

def comm(p):
    return open("/proc/%s/comm" % p).read().strip()

# "tandem": tandem itself, above the keepers (forks of tandem, so named tandem too) and shells.
if pid == "tandem":
    p = str(os.getppid())
    while p != "1" and not (comm(p) == "tandem" and comm(parent(p)) != "tandem"):
        p = parent(p)
    pid = p
key = os.environb.get(b"PROBE_KEY", b"")
bnd = int(re.search(r"CapBnd:\s*([0-9a-f]+)", open("/proc/self/status").read()).group(1), 16)
print(name, "ptrace-in-bounding" if bnd & (1 << 19) else "no-ptrace", "chown" if bnd & 1 else "no-chown")
try:
    mem = open("/proc/%s/mem" % pid, "rb", buffering=0)
    found = False
    for line in open("/proc/%s/maps" % pid):
        f = line.split()
        if "rw" not in f[1]:
            continue
        a, b = (int(x, 16) for x in f[0].split("-"))
        try:
            mem.seek(a)
            if key in mem.read(b - a):
                found = True
                break
        except OSError:
            pass
    print(name, "FOUND" if found else "NOTFOUND")
except OSError as e:
    print(name, "DENIED", e.errno)
P
# The key to look for reaches the probe by another name: tandem removes the API key from commands.
export PROBE_KEY=$ANTHROPIC_API_KEY
probe() { echo "python3 $T/probe.py tandem $1 >>$T/seen 2>&1"; }

# The mock: a command, then a background shell, each probing its parent, tandem;
# then a command that waits (up to 20 s) for the background one's word, since
# tandem ends its background shells when it ends.
mock_start "$(scenario caps <<J
{"responses":[
 {"tool_uses":[{"id":"toolu_1","name":"run_bash","input":$(jq -nc --arg c "$(probe run_bash)" '{command:$c}')}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_2","name":"run_bash","input":$(jq -nc --arg c "$(probe background); sleep 0.2" '{command:$c, run_in_background:true}')}],"stop_reason":"tool_use"},
 {"tool_uses":[{"id":"toolu_3","name":"run_bash","input":$(jq -nc --arg c "for i in \$(seq 400); do grep -q '^background [FND]' $T/seen && break; sleep 0.05; done" '{command:$c}')}],"stop_reason":"tool_use"},
 {"text":"ok","stop_reason":"end_turn"}
]}
J
)"
mkdir -p "$XDG_CONFIG_HOME/tandem"
# Each probe looks up tandem itself, above its keeper and any shell between.
cat >"$T/helper.sh" <<H
#!/bin/sh
python3 $T/probe.py tandem apiKeyHelper >>$T/seen 2>&1
echo $ANTHROPIC_API_KEY
H
chmod +x "$T/helper.sh"
jq -n --arg hook "$(probe hook)" --arg helper "$T/helper.sh" \
    '{apiKeyHelper: $helper, hooks: {PostToolUse: [{matcher: "Bash", hooks: [{type: "command", command: $hook}]}]}}' \
    >"$XDG_CONFIG_HOME/tandem/settings.json"
: >"$T/seen"
"$TANDEM" -p x --output-format events --permission-mode yolo >"$T/caps.jsonl" 2>"$T/caps.err"
diag "$T/seen"

# First: the probe works, or its refusals prove nothing (this shell's memory holds the key).
check "the probe finds the key in a process's memory when it may read it" \
    grep -q '^self FOUND$' <(python3 "$T/probe.py" $$ self)
for who in run_bash background hook apiKeyHelper; do
	check "$who ran" grep -q "^$who " "$T/seen"
	check "$who: CAP_SYS_PTRACE is not in its bounding set" grep -q "^$who no-ptrace chown$" "$T/seen"
	check "$who: reading tandem's memory is refused" grep -q "^$who DENIED" "$T/seen"
	check "$who: the key was not found" not grep -q "^$who FOUND" "$T/seen"
done
rm -f "$XDG_CONFIG_HOME/tandem/settings.json"
finish
