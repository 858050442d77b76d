"""Modules for the python output's test: each exercises what torch.fx
prints in GraphModule.code (operators, method calls, module calls,
attributes, globals and wrap() lines, constants of every kind, frees,
defaults and annotations, tuple returns), with a partition policy.

A policy is make(traced) -> callback(node) -> partition id; test_codegen.py
records the callback's decisions and replays them with the map partitioner.
"""
import math
import operator
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F


# ---- policies ------------------------------------------------------------------

def modulo(n):
    def make(traced):
        counter = [0]

        def callback(node):
            counter[0] += 1
            return (counter[0] - 1) % n
        return callback
    return make


def contiguous(k):
    """k stages of nearly equal numbers of call nodes, in graph order."""
    def make(traced):
        calls = [n.name for n in traced.graph.nodes if n.op.startswith("call_")]
        stage = {name: i * k // len(calls) for i, name in enumerate(calls)}
        return lambda node: stage[node.name]
    return make


def by_name(table, default=0):
    def make(traced):
        return lambda node: table.get(node.name, default)
    return make


@dataclass
class Case:
    name: str
    module: Callable[[], nn.Module]
    inputs: Callable[[], tuple]
    policy: Callable
    keep_original_order: bool = False
    # Set when torch 1.13's split_module cannot be the reference because
    # fxsplit follows a rule of current PyTorch it lacks: the code texts are
    # then checked against torch 1.13's printing of fxsplit's own graphs,
    # and the outputs against the unsplit module.
    current_pytorch_only: Optional[str] = None


def rand(*shapes):
    def make():
        g = torch.Generator().manual_seed(0)
        return tuple(torch.rand(*s, generator=g) for s in shapes)
    return make


# ---- functions torch.fx keeps as calls (torch.fx.wrap) ---------------------------

def combine(parts, weights):
    """A dict argument and a tuple of floats."""
    return parts["a"] * weights[0] + parts["b"] * weights[1]


def tagged(x, label):
    """A string argument with quotes, escapes and non-ASCII text."""
    return x * len(label)


torch.fx.wrap("combine")
torch.fx.wrap("tagged")


# ---- modules ----------------------------------------------------------------------

class Docstring(nn.Module):
    """split_module's docstring example."""
    def __init__(self):
        super().__init__()
        self.param = nn.Parameter(torch.rand(3, 4))
        self.linear = nn.Linear(4, 5)

    def forward(self, x, y):
        z = self.linear(x + self.param).clamp(min=0.0, max=1.0)
        w = self.linear(y).clamp(min=0.0, max=1.0)
        return z + w


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Sequential(nn.Linear(4, 4), nn.ReLU())])


class AllOps(nn.Module):
    """Every op kind; parameters, buffers and plain tensors as attributes."""
    def __init__(self):
        super().__init__()
        self.param = nn.Parameter(torch.rand(4))
        self.register_buffer("buf", torch.ones(4))
        self.const = torch.full((4,), 0.5)
        self.block = Block()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        a = x + self.param
        b = self.block.layers[0](a)
        c = torch.relu(b) * self.buf
        d = F.linear(c, self.lin.weight, self.lin.bias)
        e = d.clamp(min=0.0, max=1.0) - self.const
        f = -e
        g = ~(f > 0)
        return f.sum(dim=-1, keepdim=True), g


class Defaults(nn.Module):
    """Inputs with default values."""
    def forward(self, x, scale=2.0, dims=(0, 1), offset=None, name="it's"):
        y = torch.softmax(x * scale, dim=-1)
        return y.sum(dim=dims), offset, name


class Annotated(nn.Module):
    """Annotated inputs (types in the signature) with defaults."""
    def forward(self, x: torch.Tensor, n: int = 2, eps: float = 1e-05) -> torch.Tensor:
        y = torch.relu(x) + eps
        return y.pow(n)


class TupleOutputs(nn.Module):
    """Functions returning tuples (getitem), nested outputs."""
    def forward(self, x):
        parts = torch.chunk(x, 2, dim=1)
        top = torch.topk(x, 2)
        a = parts[0] + 1
        b = parts[1] * 2
        return (a, b), [top[0], top[1]], {"sum": a + b, "max": top.values}


class Constants(nn.Module):
    """Constants of every kind torch.fx prints with repr()."""
    def forward(self, x):
        a = x.to(torch.float64)
        b = torch.ones_like(x, dtype=torch.float32, device=torch.device("cpu"))
        c = torch.zeros_like(x, layout=torch.strided, memory_format=torch.contiguous_format)
        d = x[:, 1:3]
        e = x[..., 0]
        f = x[None, :, ::2]
        g = torch.clamp(x, min=-math.inf, max=math.inf)
        h = torch.nan_to_num(x.masked_fill(x > 0.5, float("nan")), nan=-1.0, posinf=1e30, neginf=-1e-30)
        i = x.permute((1, 0)) / 3.0
        j = torch.stack([x, x * 0.1, x + 1e-05, x - 1e16], dim=0)
        k = torch.einsum("ij,ij->i", x, x)
        m = F.pad(x, [1, 1, 0, 0], mode="constant", value=0.25)
        n = x.reshape((2, -1)).view(-1)
        o = x.new_full((2, 2), 1.5)
        return a, b + c, d, e, f, g, h, i, j, k, m, n, o


class DictsAndStrings(nn.Module):
    """Dict and tuple arguments and strings, through wrapped functions."""
    def forward(self, x):
        y = combine({"a": x, "b": x.relu()}, (0.5, 2.0))
        z = tagged(y, "it's \"quoted\"\t\u00e9\u20ac\n")
        # a quote run that CODE's raw literal cannot hold
        w = tagged(z, "'" * 3)
        return tagged(w, 'plain'), combine({"a": z, "b": y}, [1.0, -1.0])


class Nested(nn.Module):
    """Module targets several levels deep, and names that are not identifiers."""
    def __init__(self):
        super().__init__()
        self.stages = nn.ModuleDict({
            "first": nn.Sequential(nn.Linear(4, 4), nn.Tanh()),
            "second-stage": nn.Sequential(nn.Linear(4, 4), nn.ReLU()),
        })
        self.head = nn.ModuleList([nn.Linear(4, 2)])

    def forward(self, x):
        y = self.stages["first"](x)
        z = self.stages["second-stage"](y)
        return self.head[0](z + y)


class SharedParam(nn.Module):
    """A parameter used in several partitions."""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(4, 4))

    def forward(self, x):
        a = torch.relu(x @ self.w)
        b = torch.tanh(a @ self.w)
        return b + self.w.sum()


class Builtins(nn.Module):
    """getattr (printed as attribute access), sizes, builtin operators."""
    def forward(self, x):
        n = x.shape[0]
        y = x.view(n, -1)
        t = getattr(y, "T")
        return t * x.size(1) + (n // 2), operator.truediv(y, 2)


class Independent(nn.Module):
    """Independent branches: partition order depends on the rules."""
    def forward(self, x, y):
        a = torch.relu(x)
        b = torch.tanh(y)
        c = torch.sigmoid(x)
        return a + b, b + c


class Chain(nn.Module):
    """A long chain: many names of one base and a free on every line."""
    def forward(self, x):
        for i in range(60):
            x = torch.relu(x + i) * 0.5 if i % 2 else x - 1.0
        return x


CASES = [
    Case("docstring-modulo3", Docstring, rand((3, 4), (3, 4)), modulo(3)),
    Case("docstring-keep-order", Docstring, rand((3, 4), (3, 4)), modulo(3),
         keep_original_order=True),
    Case("all-ops", AllOps, rand((2, 4)), contiguous(3)),
    Case("all-ops-one-partition", AllOps, rand((2, 4)), by_name({})),
    Case("defaults", Defaults, rand((3, 4)), contiguous(2)),
    Case("annotated", Annotated, rand((3, 4)), contiguous(2),
         current_pytorch_only="current PyTorch gives submodule inputs the original "
                              "input's annotation (x : torch.Tensor); torch 1.13 drops it"),
    Case("tuple-outputs", TupleOutputs, rand((4, 4)), contiguous(3)),
    Case("constants", Constants, rand((4, 4)), contiguous(4)),
    Case("dicts-and-strings", DictsAndStrings, rand((2, 3)), contiguous(2)),
    Case("nested-targets", Nested, rand((2, 4)), contiguous(2)),
    Case("shared-param", SharedParam, rand((4, 4)), contiguous(3)),
    Case("builtins", Builtins, rand((4, 6)), contiguous(2)),
    Case("independent", Independent, rand((4, 4), (4, 4)),
         by_name({"relu": 0, "tanh": 1, "sigmoid": 2, "add": 3, "add_1": 3})),
    Case("independent-keep-order", Independent, rand((4, 4), (4, 4)),
         by_name({"relu": 0, "tanh": 1, "sigmoid": 2, "add": 3, "add_1": 3}),
         keep_original_order=True),
    Case("negative-and-huge-ids", Docstring, rand((3, 4), (3, 4)),
         by_name({"add": -5, "linear": -5, "clamp": 2**40, "linear_1": 2**40, "clamp_1": 7})),
    Case("chain", Chain, rand((3, 3)), contiguous(7)),
]
