#!/usr/bin/python3
"""What torch's split_module produces for the cases of tests/unit/split/test-split.c.

Run with Debian's torch 1.13:  /usr/bin/python3 tests/oracle/split_cases.py
Each section's lines are hard-coded in the C test of the same name.  Torch
1.13 lacks some of current PyTorch's behaviour (zero-output partitions,
module get_attr inputs, keep_original_node_name / keep_original_input_name /
partition_affix / tuple_return, global-state regions, symbolic sizes); the
C tests derive those cases by hand from the 1.13 output of a case below and
current PyTorch's source, and say so.
"""
import operator
import sys

import torch
import torch.fx
from torch.fx import Graph, GraphModule, symbolic_trace
from torch.fx.passes.split_module import split_module

sys.path.insert(0, __import__("os").path.dirname(__file__))
from fxdump import print_split  # noqa: E402


def by_name(ids):
    return lambda node: ids[node.name]


def run(title, gm, callback, **kwargs):
    qualname_map = {}
    try:
        split = split_module(gm, None, callback, qualname_map, **kwargs)
    except Exception as e:  # the cases that fail print the failure
        print(f"=== {title}\n--- original")
        for n in gm.graph.nodes:
            print(n.format_node())
        print(f"--- raises {type(e).__name__}: {e}\n")
        return
    print_split(title, gm, split, qualname_map)


# split_module's docstring example: partitions by a modulo-3 counter.
class MyModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.param = torch.nn.Parameter(torch.rand(3, 4))
        self.linear = torch.nn.Linear(4, 5)

    def forward(self, x, y):
        z = self.linear(x + self.param).clamp(min=0.0, max=1.0)
        w = self.linear(y).clamp(min=0.0, max=1.0)
        return z + w


def docstring():
    counter = [0]

    def mod_partition(node):
        p = counter[0] % 3
        counter[0] += 1
        return p

    run("docstring", symbolic_trace(MyModule()), mod_partition)


# Three partitions that depend on nothing: the stack pops the last root
# first, keep_original_order keeps first appearance.
class Independent(torch.nn.Module):
    def forward(self, x):
        return (torch.relu(x), torch.neg(x), torch.sin(x))


def independent():
    ids = {"relu": 0, "neg": 1, "sin": 2}
    run("independent", symbolic_trace(Independent()), by_name(ids))
    run("independent_keep_order", symbolic_trace(Independent()), by_name(ids),
        keep_original_order=True)


# One parameter used by two partitions, a list argument crossing partitions.
class SharedParam(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p = torch.nn.Parameter(torch.rand(4))

    def forward(self, x):
        a = x + self.p
        b = torch.neg(x)
        c = torch.cat([a, b * self.p], dim=0)
        return c


def shared_param():
    ids = {"add": 0, "neg": 1, "mul": 1, "cat": 2}
    run("shared_param", symbolic_trace(SharedParam()), by_name(ids))


# call_module targets under nested modules.
class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)


class Nested(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.ModuleList([Inner(), Inner()])

    def forward(self, x):
        a = self.layer[0].linear(x)
        b = self.layer[1].linear(a)
        c = self.layer[0].linear(b)
        return self.layer[1].linear(c)


def nested():
    ids = {"layer_0_linear": 0, "layer_1_linear": 1, "layer_0_linear_1": 1,
           "layer_1_linear_1": 1}
    run("nested", symbolic_trace(Nested()), by_name(ids))


# Names torch.fx may not use: builtins and keywords.
class Builtins(torch.nn.Module):
    def forward(self, input, y=2):
        s = torch.sum(input)
        t = input.type(torch.float64)
        g = getattr(t, "T")
        return s + g + y


def builtins_and_defaults():
    ids = {"sum_1": 0, "type_1": 1, "getattr_1": 1, "add": 2, "add_1": 2}
    run("builtins", symbolic_trace(Builtins()), by_name(ids))


# A placeholder named x_1, then nodes whose names derive from a function x.
def x(t):
    return t + 1


def collide_x():
    g = Graph()
    p = g.placeholder("x_1")
    a = g.call_function(x, (p,))
    b = g.call_function(x, (a,))
    c = g.call_function(x, (b,))
    g.output(c)
    gm = GraphModule(torch.nn.Module(), g)
    run("collide_x", gm, by_name({"x": 0, "x_2": 0, "x_3": 1}))


# Partitions that depend on each other both ways.
class Cycle(torch.nn.Module):
    def forward(self, x):
        return torch.sin(torch.neg(torch.relu(x)))


def cycle():
    run("cycle", symbolic_trace(Cycle()), by_name({"relu": 0, "neg": 1, "sin": 0}))


# Extreme partition ids: names like submod_-1 go through the namespace.
class Chain(torch.nn.Module):
    def forward(self, x):
        return torch.cos(torch.sin(torch.neg(torch.relu(x))))


def extreme_ids():
    ids = {"relu": 2**63 - 1, "neg": -2**63, "sin": -1, "cos": 0}
    run("extreme_ids", symbolic_trace(Chain()), by_name(ids))


# Two partitions in a chain: the base case the option tests change.
def chain2():
    run("chain2", symbolic_trace(Chain()), by_name({"relu": 0, "neg": 0, "sin": 1, "cos": 1}))


# A module attribute passed as a value (torch 1.13 passes it as a
# placeholder; current PyTorch fetches it inside the submodule).
def apply_mod(m, t):
    return m(t)


def module_input():
    root = torch.nn.Module()
    root.sub = torch.nn.Linear(4, 4)
    g = Graph()
    p = g.placeholder("x")
    m = g.get_attr("sub")
    a = g.call_function(apply_mod, (m, p))
    b = g.call_function(torch.relu, (a,))
    g.output(b)
    run("module_input", GraphModule(root, g), by_name({"apply_mod": 0, "relu": 1}))


# Attributes fetched per partition with keep_original_order.
class TwoParams(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.rand(4))
        self.w2 = torch.nn.Parameter(torch.rand(4))

    def forward(self, x):
        return (x + self.w1) * self.w2


def keep_order_attrs():
    run("keep_order_attrs", symbolic_trace(TwoParams()), by_name({"add": 0, "mul": 1}))


# Two module targets that flatten to the same name ("a.b" and "a_b"): the
# submodule's attribute is a dict entry, so the last assignment wins.
def flat_clash():
    root = torch.nn.Module()
    root.a = torch.nn.Module()
    root.a.b = torch.nn.ReLU()
    root.a_b = torch.nn.Tanh()
    g = Graph()
    p = g.placeholder("x")
    m1 = g.call_module("a.b", (p,))
    m2 = g.call_module("a_b", (m1,))
    m3 = g.call_module("a.b", (m2,))
    g.output(m3)
    gm = GraphModule(root, g)
    split = split_module(gm, None, lambda n: 0, qualname_map := {})
    print_split("flat_clash", gm, split, qualname_map)
    print("--- submod_0.a_b is", type(split.submod_0.a_b).__name__, "\n")


if __name__ == "__main__":
    torch.manual_seed(0)
    docstring()
    independent()
    shared_param()
    nested()
    builtins_and_defaults()
    collide_x()
    cycle()
    extreme_ids()
    chain2()
    module_input()
    keep_order_attrs()
    flat_clash()
