#!/usr/bin/env python3
"""Writes a C file holding the lines of text files, one after the other, as
a NULL-terminated array of string literals:
embed-text.py INPUT... OUTPUT SYMBOL."""
import sys


def c_literal(line):
    out = []
    for ch in line.encode("utf-8"):
        c = chr(ch)
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif 0x20 <= ch < 0x7f:
            out.append(c)
        else:
            out.append("\\%03o" % ch)
    return '"' + "".join(out) + '"'


def main(sources, dst, symbol):
    lines = []
    for i, src in enumerate(sources):
        with open(src, encoding="utf-8") as f:
            text = f.read()
        if i:
            lines += ["\n", "\n"]  # two blank lines between the files' texts
        lines += (text if text.endswith("\n") else text + "\n").splitlines(keepends=True)
    names = ", ".join(src.rsplit("/", 1)[-1] for src in sources)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(f"/* Generated from {names} by embed-text.py. */\n")
        f.write(f"extern const char *const {symbol}[];\n")
        f.write(f"const char *const {symbol}[] = {{\n")
        for line in lines:
            f.write(f"  {c_literal(line)},\n")
        f.write("  0,\n};\n")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: embed-text.py INPUT... OUTPUT SYMBOL")
    main(sys.argv[1:-2], sys.argv[-2], sys.argv[-1])
