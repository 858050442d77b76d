#!/usr/bin/python3
"""torch.fx 1.13's node naming for the cases of tests/unit/split/test-names.c.

Run with Debian's torch 1.13:  /usr/bin/python3 tests/oracle/names_cases.py
Prints, for each sequence of candidates given to one fresh _Namespace, the
names create_name returns; then _snake_case and Graph._target_to_str of
single strings (repr'd, since some are not ASCII).
"""
import torch.fx.graph as fxg

SEQUENCES = [
    ["x_1", "x", "x", "x"],
    ["add_3", "add", "add", "add", "add", "add"],
    ["add_01", "add_1", "add_0", "add_0", "add"],
    ["sum", "input", "getattr", "type", "print", "torch", "inf", "nan", "NoneType",
     "device", "fx_pytree", "pytree", "None", "class", "for", "__import__", "copyright",
     "sum"],
    ["a.b-c", "1abc", "a..b", "a b", "x__", "_", "__", "_0", "0", "_1", "a_0", "a_00"],
    ["café", "caf_", "\u00e9t\u00e9", "a\u00e9\u00e9b"],
    ["submod_-1", "submod__1", "submod_-9223372036854775808", "submod_9223372036854775807",
     "submod_9223372036854775807"],
    ["x_99999999999999999999999", "x_99999999999999999999999", "x_0099999999999999999999999"],
    ["y_9999999999999999999", "y_9999999999999999999", "y_18446744073709551615",
     "y_18446744073709551615"],
    ["getitem", "getitem", "getitem_1", "getitem"],
    ["output", "output"],
    ["x_3", "x_2", "x", "x", "x", "x", "x_2", "x_0", "x_0", "x"],
    ["y_0", "y", "y", "y_1", "y", "y_7", "y_5", "y_6", "y_4", "y", "y", "y"],
    ["z_2", "z_1", "z_1", "z_1", "z", "z"],
]

SNAKE = ["camelCase", "HTTPServer", "ALL_CAPS", "mod.pascalCase", "snake_case", "aB1C",
         "\u24b6b", "a\u24b6", "\u00e9A", "\u0130x", "a\u212a", "\u01c5a", "\u00aaB", "x\u2160"]

TARGETS = ["__add__", "__", "___", "____", "__x___", "_private", "submod_Stage_0",
           "layer.0.linear", "Conv2d"]


def main():
    for seq in SEQUENCES:
        ns = fxg._Namespace()
        names = [ns.create_name(c, None) for c in seq]
        print(" ".join(seq), "->", " ".join(names))
    print()
    for s in SNAKE:
        print(repr(s), "->", repr(fxg._snake_case(s)))
    print()
    g = fxg.Graph()
    for t in TARGETS:
        print(repr(t), "->", repr(g._target_to_str(t)))


if __name__ == "__main__":
    main()
