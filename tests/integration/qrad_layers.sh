#!/bin/bash
# qrad's files call one another one way (issue 24): no file calls, through
# any chain, a file that calls it, and each file calls exactly the files
# docs/qrad.md's "Source layout" table lists for it. The calls are read
# from the symbols each object of the qrad_stages library takes from the
# others (nm); skipped (77) without nm, python3 or the library, or where
# nm reads no symbols (objects it does not know).
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
q2m_need Q2MAP_SRC
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
lib="$BIN/../libqrad_stages.a"
[ -f "$lib" ] || { echo "SKIP: $lib not found"; exit 77; }

nm -A "$lib" >"$TMP/nm.txt" 2>/dev/null || { echo "SKIP: nm cannot read $lib"; exit 77; }
python3 - "$TMP/nm.txt" "$Q2MAP_SRC/docs/qrad.md" <<'EOF'
import re
import sys

defined, wanted = {}, {}
for line in open(sys.argv[1], errors="replace"):
    # archive:member: [value] type name
    parts = line.rstrip("\n").split(":", 2)
    if len(parts) < 3:
        continue
    f = parts[1]
    if not f.endswith(".o") and not f.endswith(".obj"):
        continue
    f = re.sub(r"\.(c\.)?o(bj)?$", "", f)
    fields = parts[2].split()
    if len(fields) < 2:
        continue
    kind, name = fields[-2], fields[-1]
    if kind == "U":
        wanted.setdefault(f, set()).add(name)
    elif kind in "TDBR" and not name.startswith("."):
        defined.setdefault(name, f)
    wanted.setdefault(f, set())
if not defined:
    print("SKIP: nm read no symbols")
    sys.exit(77)
calls = {f: sorted({defined[s] for s in w if s in defined and defined[s] != f}) for f, w in wanted.items()}

fail = 0
# no circle: a depth-first walk that meets a file on its own path
state = {}
def walk(f, path):
    global fail
    state[f] = 1
    for g in calls.get(f, []):
        if state.get(g) == 1:
            print("FAIL: a circle: %s" % " -> ".join(path[path.index(g):] + [g]))
            fail = 1
        elif g not in state:
            walk(g, path + [g])
    state[f] = 2
for f in sorted(calls):
    if f not in state:
        walk(f, [f])

# the table's "calls" column
text = open(sys.argv[2]).read()
sec = text[text.index("## Source layout"):]
listed = {}
for m in re.finditer(r"^\| `(\w+)\.c` \|[^\n]*\| ([^|\n]*) \|$", sec, re.M):
    cell = m.group(2).strip()
    listed[m.group(1)] = None if cell == "every stage" else sorted(
        x.strip() for x in cell.split(",") if x.strip() not in ("", "-"))
for f in sorted(set(calls) | set(listed)):
    if f not in listed:
        print("FAIL: %s.c is in the library but not in docs/qrad.md's table" % f)
        fail = 1
    elif f not in calls:
        print("FAIL: docs/qrad.md lists %s.c, which the library does not hold" % f)
        fail = 1
    elif listed[f] is not None and listed[f] != calls[f]:
        print("FAIL: %s.c calls %s; docs/qrad.md says %s" % (f, ", ".join(calls[f]) or "-",
                                                             ", ".join(listed[f]) or "-"))
        fail = 1
print("%d files, %d calls between them%s" % (len(calls), sum(len(v) for v in calls.values()),
                                              "" if fail else ", one way, as docs/qrad.md lists them"))
sys.exit(fail)
EOF
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || bad "qrad's files and docs/qrad.md"
exit $fail
