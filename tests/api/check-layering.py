"""The folders of core/ call each other in one direction only, and plugin
folders never use each other's files.

Usage: check-layering.py SOURCE_ROOT [LIBFXSPLIT_CORE.A]

The allowed direction is the line "# Layers: a <- b <- c" at the top of
core/meson.build: a file in a folder may use the folders to its left, never
those to its right.  An arrow is
  - a line `#include "AREA/..."` in core/AREA2/ (AREA != AREA2), and
  - with the static core library given, a function one folder's object
    calls that another folder's object defines (`nm`), which also sees
    calls through the public headers.
Every arrow against the direction is printed, one a line with the file
that makes it, and fails the test; so does a circle, which always has one
such arrow.  In plugins/, a `#include "../` or a meson.build source path
into another plugin folder fails too (shared code is plugins/common/'s)."""
import os
import re
import subprocess
import sys

LAYERS = re.compile(r"^# Layers: (.*)$", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z]+)/', re.M)

# Arrows against the direction that the branches of issue 17 remove (the
# other side of the change is in files this branch leaves alone); each
# entry names why.  Delete an entry when its arrow is gone.
PENDING = {}


def layers(root):
    with open(os.path.join(root, "core", "meson.build"), encoding="utf-8") as f:
        m = LAYERS.search(f.read())
    if not m:
        sys.exit("core/meson.build: no '# Layers: a <- b <- ...' line")
    return {name.strip(): rank for rank, name in enumerate(m.group(1).split("<-"))}


def include_arrows(root, rank):
    core = os.path.join(root, "core")
    for area in sorted(os.listdir(core)):
        folder = os.path.join(core, area)
        if not os.path.isdir(folder):
            continue
        if area not in rank:
            yield f"core/{area}/: folder missing from the Layers line", None, None
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for used in INCLUDE.findall(f.read()):
                    if used != area and used in rank:
                        yield f"core/{area}/{name} includes {used}/", area, used


def symbol_arrows(library):
    """(caller object, callee object, symbol) for calls between objects."""
    out = subprocess.run(["nm", "-A", library], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = {}, []
    for line in out.splitlines():
        where, _, rest = line.rpartition(":")
        obj = where.rsplit(":", 1)[-1]
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "TDBRV":
            defined[parts[2]] = obj
        elif len(parts) == 2 and parts[0] == "U":
            undefined.append((obj, parts[1]))
    for obj, symbol in undefined:
        if symbol in defined:
            yield obj, defined[symbol], symbol


def object_area(obj):
    # meson names core/host/context.c's object host_context.c.o
    return obj.split("_", 1)[0]


def plugin_problems(root):
    plugins = os.path.join(root, "plugins")
    for folder, _, files in os.walk(plugins):
        for name in files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if name.endswith((".c", ".h")):
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        if re.match(r'\s*#\s*include\s+"\.\./', line):
                            yield f"{rel}:{number}: includes another folder's header"
            elif name == "meson.build":
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        for target in re.findall(r"'(\.\./[^']*)'", line):
                            if "/python/fxsplit_torch/" not in target:
                                yield f"{rel}:{number}: builds {target}"


def main():
    root = sys.argv[1]
    rank = layers(root)
    problems, pending = [], set()

    def arrow(what, a, b):
        if a is None:
            problems.append(what)
        elif rank[a] < rank[b]:
            if (a, b) in PENDING:
                pending.add((a, b))
            else:
                problems.append(f"{what}: {a} -> {b} goes against the Layers line")

    for what, a, b in include_arrows(root, rank):
        arrow(what, a, b)
    if len(sys.argv) > 2:
        for caller, callee, symbol in symbol_arrows(sys.argv[2]):
            a, b = object_area(caller), object_area(callee)
            if a != b and a in rank and b in rank:
                arrow(f"{caller} calls {symbol} ({callee})", a, b)
    problems += plugin_problems(root)
    for a, b in sorted(pending):
        print(f"note: pending arrow {a} -> {b}: {PENDING[(a, b)]}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
