#!/usr/bin/env python3
"""The shape of tandem's sources: the include graph and the call graph.

    scripts/layers.py [--top DIR] [includes|calls|turn|all]

includes: the include graph of lib/, tools/, agent/ (with its folders) and
tui/ must have no cycle, and no file outside a folder may include that
folder's private header (NAME_int.h).
calls: the file-level call graph (file A calls a function file B defines)
must have no strongly connected component of more than two files.
turn: in agent/turn/, each module's struct is complete only in its own
file, and the structs the turn's private header shares (struct agent,
struct conversation) hold no members beyond the listed ones.

Prints TAP: one case per rule, the offenders as comments; the largest
components are printed either way.  Exit status 1 when a rule is broken.
"""
import os
import re
import sys

DIRS = ["lib", "tools", "agent", "tui"]
QUOTE = ["lib", "tools", "agent", "tui", "tests"]	# Makefile.am's -iquote order
CALL_SCC_MAX = 2
# Circles of more than CALL_SCC_MAX files still allowed, each a set of files:
# a circle passes when all its files are in one set.  To go.
CALL_ALLOWED = [
]


def sources(top):
    out = []
    for d in DIRS:
        for root, _dirs, files in os.walk(os.path.join(top, d)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(root, f), top))
    return sorted(out)


INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def resolve(top, src, name):
    for base in [os.path.dirname(src)] + QUOTE:
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(top, p)):
            return p
    return None


def include_graph(top, files):
    g = {}
    for f in files:
        with open(os.path.join(top, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        g[f] = []
        for name in INC.findall(text):
            p = resolve(top, f, name)
            if p is not None and p.split("/")[0] in DIRS:
                g[f].append(p)
    return g


def sccs(g):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    n = 0
    for v0 in sorted(g):
        if v0 in index:
            continue
        work = [(v0, iter(sorted(set(g.get(v0, ())))))]
        index[v0] = low[v0] = n
        n += 1
        stack.append(v0)
        on.add(v0)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(set(g.get(w, ()))))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


# Private headers still reached from outside their folder through another header.
PRIVATE_EXCEPTIONS = set()
# Files outside a folder that still include its private header, each with the
# folder it may reach into: to go, once the folder's module headers offer
# what they read (a prefix of the file's path, the header).
PRIVATE_ALLOWED = [
]


def allowed(f, h):
    return any(f.startswith(p) and h == hh for p, hh in PRIVATE_ALLOWED)


def reached(g, f):
    """The headers f includes, directly or through other headers."""
    seen, todo = set(), list(g.get(f, ()))
    while todo:
        h = todo.pop()
        if h not in seen:
            seen.add(h)
            todo.extend(g.get(h, ()))
    return seen


def private_breaches(g):
    bad = []
    for f in sorted(g):
        direct = set(g[f])
        for h in sorted(reached(g, f)):
            if not os.path.basename(h).endswith("_int.h"):
                continue
            if os.path.dirname(f) == os.path.dirname(h):
                continue
            if h in direct and not allowed(f, h):
                bad.append("%s includes %s" % (f, h))
            elif h in direct:
                continue
            elif h not in PRIVATE_EXCEPTIONS:
                bad.append("%s reaches %s through another header" % (f, h))
    return bad


def module_graph(g):
    """The include graph of modules: NAME.c and NAME.h are one node."""
    mg = {}
    for f, incs in g.items():
        m = f.rsplit(".", 1)[0]
        mg.setdefault(m, set())
        mg[m].update(h.rsplit(".", 1)[0] for h in incs if h.rsplit(".", 1)[0] != m)
    return mg


# --- the call graph -------------------------------------------------------

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
DEFN = re.compile(r"^([A-Za-z_]\w*)\s*\(", re.M)
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "do",
            "_Alignof", "alignof", "__attribute__", "_Static_assert", "offsetof"}


def strip(text):
    text = COMMENT.sub(" ", text)
    text = STRING.sub('""', text)
    # Preprocessor lines are not calls (a #define's body is, where it is used: skip both).
    return re.sub(r"^\s*#.*?(?<!\\)$", " ", text, flags=re.M | re.S)


def definitions(text):
    """The functions a .c defines at column 0, and which are static."""
    lines = text.split("\n")
    defs, statics = set(), set()
    for i, line in enumerate(lines):
        m = DEFN.match(line)
        if not m or m.group(1) in KEYWORDS:
            continue
        # The definition's header ends in ')' and a '{' follows before any ';'.
        rest = "\n".join(lines[i:i + 40])
        brace, semi = rest.find("{"), rest.find(";")
        if brace < 0 or (0 <= semi < brace):
            continue
        prev = lines[i - 1] if i > 0 else ""
        defs.add(m.group(1))
        if re.match(r"\s*static\b", prev):
            statics.add(m.group(1))
    return defs, statics


def call_graph(top, files):
    cfiles = [f for f in files if f.endswith(".c")]
    texts, defs, statics, owner = {}, {}, {}, {}
    for f in cfiles:
        with open(os.path.join(top, f), encoding="utf-8", errors="replace") as fh:
            texts[f] = strip(fh.read())
        defs[f], statics[f] = definitions(texts[f])
        for d in defs[f] - statics[f]:
            owner.setdefault(d, f)
    g = {}
    for f in cfiles:
        g[f] = set()
        for name in set(CALL.findall(texts[f])):
            if name in defs[f] or name in KEYWORDS:
                continue
            o = owner.get(name)
            if o is not None and o != f:
                g[f].add(o)
    return g


def long_circle(g, comp, limit):
    """A simple circle through more than limit files of comp, or None.

    A component can hold more files than its longest circle (a module
    and two helpers that each call it back: two circles of two), so the
    circles themselves are looked for; components are small."""
    nodes = set(comp)
    if len(comp) > 40:
        return comp
    for start in sorted(comp):
        stack = [(start, [start])]
        while stack:
            v, path = stack.pop()
            for w in sorted(set(g.get(v, ())) & nodes):
                if w == start and len(path) > limit:
                    return path
                if w not in path and w > start:
                    stack.append((w, path + [w]))
    return None


def report(kind, comps, limit, out, g=None):
    big = sorted((c for c in comps if len(c) > 1), key=len, reverse=True)
    bad = []
    for c in big:
        if len(c) <= limit or (kind == "calls" and any(set(c) <= set(a) for a in CALL_ALLOWED)):
            continue
        circle = long_circle(g, c, limit) if g is not None else c
        if circle is not None:
            bad.append(circle)
            out.append("%s: a circle of %d files: %s" % (kind, len(circle), " -> ".join(circle)))
    for c in big[:3]:
        out.append("%s: a component of %d files: %s" % (kind, len(c), " ".join(c)))
    if not big:
        out.append("%s: no circle" % kind)
    return bad


# --- the turn's state -----------------------------------------------------

# In agent/turn/, each module owns its state: a module's struct is defined
# in its .c file (or a header no other .c reaches), and the others reach it
# through its functions.  Each struct here, with the file that owns it:
TURN_OWNED = {
    "compaction": "agent/turn/compaction.c",
    "turn_record": "agent/turn/record.c",
    "inbox": "agent/turn/inbox.c",
    "modelset": "agent/turn/modelset.c",
    "usage_acct": "agent/turn/conversation.c",
    "tooluse_guard": "agent/turn/tooluse.c",
    "tooluse_progress": "agent/turn/tooluse.c",
    "prompt_state": "agent/turn/prompt.c",
    "call_retry": "agent/turn/call.c",
    "mcp_notes": "agent/turn/call.c",
    "modelset_conv": "agent/turn/modelset.c",
    "turn_flow": "agent/turn/agent.c",
    "session_facts": "agent/turn/conversation.c",
    "prompt_facts": "agent/turn/prompt.c",
    "session_snaps": "agent/turn/conversation.c",
    "session_perms": "agent/turn/conversation.c",
    "agent": "agent/turn/conversation.c",
    "conversation": "agent/turn/conversation.c",
}
TURN_SHARED_HEADER = "agent/turn/turn_int.h"
# The structs the turn's private header still defines for all its modules,
# with the members they may still hold: to go, a group at a time, into the
# struct of the module that owns it (which then joins TURN_OWNED).  A
# member not listed here is new shared state, and fails; a member listed
# here that is gone fails too, so that the list only shrinks.  None: an
# ops table or the parts one module hands another to build with, which
# hold no state.
TURN_SHARED = {
    "turn_ops": None,
    "agent_services": None,
    "conversation_parts": None,
}

STRUCT_DEF = re.compile(r"^struct\s+(\w+)\s*\{", re.M)


def struct_defs(text):
    """The structs text defines at file level: name -> body (comments out)."""
    text = COMMENT.sub(" ", text)
    out = {}
    for m in STRUCT_DEF.finditer(text):
        i, depth = m.end(), 1
        while i < len(text) and depth > 0:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.setdefault(m.group(1), []).append(text[m.end():i - 1])
    return out


def members(body):
    """The member names of a struct's body (nested structs' own members left out)."""
    flat, depth = [], 0
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            flat.append(ch)
    names = []
    for decl in "".join(flat).split(";"):
        decl = decl.strip()
        if not decl:
            continue
        fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
        if fp:
            names.append(fp.group(1))
            continue
        decl = re.sub(r"\[[^\]]*\]", "", decl)
        for part in decl.split(","):
            m = re.search(r"(\w+)\s*$", part.strip())
            if m:
                names.append(m.group(1))
    return names


def turn_state(top, files, g):
    bad = []
    defs = {}
    for f in files:
        with open(os.path.join(top, f), encoding="utf-8", errors="replace") as fh:
            for name, bodies in struct_defs(fh.read()).items():
                for b in bodies:
                    defs.setdefault(name, []).append((f, b))
    cfiles = [f for f in files if f.endswith(".c")]
    for name, owner in sorted(TURN_OWNED.items()):
        where = [f for f, _b in defs.get(name, [])]
        if not where:
            bad.append("struct %s is not defined (its owner: %s)" % (name, owner))
        for f in where:
            users = [c for c in cfiles if c == f or f in reached(g, c)]
            others = [c for c in users if c != owner]
            if others:
                bad.append("struct %s is complete in %s, not only in its owner %s" %
                           (name, " ".join(others), owner))
    for name, (f, body) in sorted((n, d) for n, ds in defs.items() for d in ds
                                  if d[0] == TURN_SHARED_HEADER):
        if name not in TURN_SHARED:
            bad.append("%s defines struct %s for every module of the turn: "
                       "give it to the module that owns it" % (f, name))
            continue
        if TURN_SHARED[name] is None:
            continue
        have, allowed_now = members(body), TURN_SHARED[name].split()
        for m in have:
            if m not in allowed_now:
                bad.append("struct %s holds %s, which is not among the members it may still "
                           "share: put it in its module's own struct" % (name, m))
        for m in allowed_now:
            if m not in have:
                bad.append("struct %s no longer has %s: take it off TURN_SHARED" % (name, m))
    return bad


def main(argv):
    top = "."
    what = "all"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--top":
            top = args.pop(0)
        else:
            what = a
    files = sources(top)
    lines, n, failed = [], 0, 0

    def case(ok, text, notes):
        nonlocal n, failed
        n += 1
        lines.append("%s %d - %s" % ("ok" if ok else "not ok", n, text))
        lines.extend("# " + x for x in notes)
        if not ok:
            failed += 1

    if what in ("includes", "all"):
        g = include_graph(top, files)
        notes = []
        bad = report("includes", sccs(g), 1, notes)
        cyc = [" -> ".join(c) for c in bad]
        self_inc = ["%s includes itself" % f for f, i in g.items() if f in i]
        case(not cyc and not self_inc, "the include graph has no cycle", notes + cyc + self_inc)
        mods = [c for c in sccs(module_graph(g)) if len(c) > 1]
        big = max(mods, key=len) if mods else []
        lines.append("# modules (NAME.c with NAME.h), for the record: %d circles, the largest of %d: %s"
                     % (len(mods), len(big), " ".join(big)))
        breaches = private_breaches(g)
        case(not breaches, "no file outside a folder includes its private header",
             breaches + ["allowed for now: %s* includes %s" % a for a in PRIVATE_ALLOWED])
    if what in ("turn", "all"):
        g = include_graph(top, files)
        bad = turn_state(top, files, g)
        shared = sum(len(v.split()) for v in TURN_SHARED.values() if v is not None)
        note = ("still shared through %s: %d members of %s" % (TURN_SHARED_HEADER, shared, ", ".join(
            "struct " + n for n, v in sorted(TURN_SHARED.items()) if v is not None)) if shared else
            "%s shares no state: its structs hold none (%s)" % (TURN_SHARED_HEADER, ", ".join(
                "struct " + n for n in sorted(TURN_SHARED))))
        case(not bad, "each module of agent/turn/ owns its state", bad + [note])
    if what in ("calls", "all"):
        g = call_graph(top, files)
        notes = []
        bad = report("calls", sccs(g), CALL_SCC_MAX, notes, g)
        case(not bad, "no circle of more than %d files in the call graph" % CALL_SCC_MAX,
             notes + ["allowed for now: " + " ".join(sorted(a)) for a in CALL_ALLOWED])
    lines.append("1..%d" % n)
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
