"""The differential test corpus: small modules and torchvision models, each
with a partition policy, split by PyTorch's split_module and by fxsplit.

A case names a module factory, example inputs, and a policy that maps each
call node to a partition id.  PyTorch's callback records its decisions
(node name -> id), and fxsplit replays them with the `map` partitioner.
"""
import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import torch
import torch.fx
import torch.nn as nn


# ---- partition policies: (graph module) -> callback(node) -> id ------------

def modulo(n):
    def make(gm):
        counter = [0]

        def callback(node):
            pid = counter[0] % n
            counter[0] += 1
            return pid
        return callback
    make.describe = f"round-robin over {n}"
    return make


def contiguous(k):
    """k stages of (nearly) equal node counts in graph order."""
    def make(gm):
        calls = [n.name for n in gm.graph.nodes if n.op.startswith("call_")]
        stage = {name: i * k // len(calls) for i, name in enumerate(calls)}
        return lambda node: stage[node.name]
    make.describe = f"{k} contiguous stages"
    return make


def by_name(table, default=0):
    def make(gm):
        return lambda node: table.get(node.name, default)
    make.describe = "explicit"
    return make


@dataclass
class Case:
    name: str
    module: Callable[[], nn.Module]
    inputs: Callable[[], tuple]
    policy: Callable
    keep_original_order: bool = False
    # When torch 1.13's split_module cannot be the oracle for this case
    # (it lacks a rule current PyTorch has), say why: fxsplit is then
    # checked against the unsplit module's numerics and its own rules only.
    current_pytorch_only: Optional[str] = None
    tags: list = field(default_factory=list)


# ---- small modules --------------------------------------------------------

class Docstring(nn.Module):
    """The example of split_module's docstring."""
    def __init__(self):
        super().__init__()
        self.param = nn.Parameter(torch.rand(3, 4))
        self.linear = nn.Linear(4, 5)

    def forward(self, x, y):
        z = self.linear(x + self.param).clamp(min=0.0, max=1.0)
        w = self.linear(y).clamp(min=0.0, max=1.0)
        return z + w


class AllOps(nn.Module):
    """placeholder, get_attr, call_function, call_method, call_module."""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(4, 4))
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        a = torch.relu(x)
        b = a.transpose(0, 1)
        c = self.lin(b)
        d = c @ self.w
        return torch.sigmoid(d)


class ArgKinds(nn.Module):
    """Every kind of constant argument: dtype, device, memory format,
    Ellipsis, slices, None, inf, lists, tuples, strings, big ints."""
    def forward(self, x):
        a = x.to(torch.float64)
        b = a.to(device=torch.device("cpu"))
        c = b[..., 1:3]
        d = c[:, None, ::2]
        e = torch.clamp(d, min=-math.inf, max=math.inf)
        f = e.reshape([-1])
        g = f.view((2, -1))
        h = torch.nan_to_num(g, nan=0.0, posinf=1e16, neginf=-1e-05)
        i = h.contiguous(memory_format=torch.contiguous_format)
        j = torch.einsum("ij->ji", i)
        k = j * 1099511627776 + (-3)
        return k.float()


class NanConstant(nn.Module):
    def forward(self, x):
        y = x.masked_fill(x > 0.5, float("nan"))
        return torch.nan_to_num(y * 2.0, nan=-1.0)


@torch.fx.wrap
def scaled_shift(params, x):
    return x * params["scale"] + params["shift"]


class DictArg(nn.Module):
    """A dict argument holding a node (through a wrapped function)."""
    def forward(self, x):
        y = torch.tanh(x)
        z = scaled_shift({"scale": 2.0, "shift": y}, x)
        return z - y


class Kwargs(nn.Module):
    def forward(self, x, y):
        a = torch.cat([x, y], dim=1)
        b = a.sum(dim=-1, keepdim=True)
        c = torch.softmax(a, dim=1)
        return torch.add(c, b, alpha=0.5)


class Defaults(nn.Module):
    def forward(self, x, scale=2.0, offset=1):
        return torch.relu(x * scale) + offset


class TupleOutputs(nn.Module):
    def forward(self, x):
        parts = torch.chunk(x, 2, dim=0)
        a = parts[0] * 2
        b = parts[1] + 1
        top = torch.topk(x, 2)
        return a, b, top.values, top[1]


class DeadCode(nn.Module):
    def forward(self, x):
        unused = x * 3
        a = torch.relu(x)
        unused_too = unused.sum()
        b = a + 1
        return b


class SharedParam(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(4, 4))

    def forward(self, x):
        a = x @ self.w
        b = torch.relu(a) @ self.w
        c = torch.tanh(b) + self.w
        return c * self.w


class Nested(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Sequential(nn.Sequential(nn.Linear(4, 8), nn.ReLU()), nn.Linear(8, 4))
        self.head = nn.ModuleDict({"out": nn.Linear(4, 2)})

    def forward(self, x):
        return self.head["out"](self.layer(x) + x)


class ManyOutputs(nn.Module):
    def forward(self, x):
        a = x + 1
        b = x * 2
        c = x - 3
        d = torch.relu(a) + b
        return d * c + a


class Independent(nn.Module):
    """Partitions with no dependency between them (stack vs original order)."""
    def forward(self, x, y):
        a = torch.relu(x)
        b = torch.tanh(y)
        c = torch.sigmoid(x)
        return a + b + c


class BuiltinNames(nn.Module):
    """Names that would shadow builtins or keywords: input, sum, max, type,
    getattr, len-like nodes."""
    def forward(self, input, sum):
        shape = input.shape
        s = input.sum()
        m = torch.max(input)
        t = input.type(torch.float32)
        n = input.size(0)
        return t * s + m + sum + n + shape[1]


class TensorConstant(nn.Module):
    def forward(self, x):
        return x + torch.tensor([1.0, 2.0, 3.0, 4.0]) * 2


class BufferAttr(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.rand(4))
        self.bn = nn.BatchNorm1d(4)

    def forward(self, x):
        return self.bn(x * self.scale) + self.scale


class OutputStructures(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(2, 4))

    def forward(self, x):
        a = torch.relu(x)
        b = a * 2
        return {"a": a, "pair": (b, x), "w": self.w}


class Operators(nn.Module):
    def forward(self, x, y):
        a = -x
        b = a - y
        c = b * y / (y + 1)
        d = c // 1 + c % 2
        e = d ** 2
        f = (e > 0.5) & (x < 0.9)
        g = torch.where(f, e, y)
        return g @ y.t()


class Methods(nn.Module):
    def forward(self, x):
        a = x.permute(0, 2, 1)
        b = a.flatten(1)
        c = b.unsqueeze(-1).expand(-1, -1, 2)
        d = c.mean(dim=(1, 2))
        return d.clamp(min=0.1, max=0.9)


class Chain(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(4, 4)
        self.l2 = nn.Linear(4, 4)
        self.l3 = nn.Linear(4, 4)

    def forward(self, x):
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))


class Cycle(nn.Module):
    def forward(self, x):
        a = torch.relu(x)
        b = a + 1
        c = b * a
        return c


class ZeroOutput(nn.Module):
    def forward(self, x):
        a = torch.relu(x)
        dead = x * 7
        return a + 1


class AtenOverloads(nn.Module):
    """Operator overloads as targets (what make_fx and torch.export produce):
    torch.fx names a node after the overload's __name__ ("add.Tensor" ->
    add_tensor), a packet's after the op ("add")."""
    def forward(self, x, y):
        a = torch.ops.aten.add.Tensor(x, y)
        b = torch.ops.aten.relu.default(a)
        c = torch.ops.aten.mul.Tensor(b, a)
        d = torch.ops.aten.add(c, b)
        e = torch.ops.aten.add.Tensor(d, a)
        return torch.ops.aten.sum.default(e)


class ModuleGetAttr(nn.Module):
    """A get_attr of a submodule, fed to a function: current PyTorch makes it
    a get_attr inside the partition instead of an input."""
    def __init__(self):
        super().__init__()
        self.sub = nn.Linear(4, 4)


def _module_get_attr():
    m = ModuleGetAttr()
    g = torch.fx.Graph()
    x = g.placeholder("x")
    sub = g.get_attr("sub")
    a = g.call_function(torch.relu, (x,))
    b = g.call_function(torch.nn.functional.linear, (a,),
                        {"weight": g.get_attr("sub.weight"), "bias": g.get_attr("sub.bias")})
    c = g.call_method("forward", (sub, b))
    g.output(c)
    return torch.fx.GraphModule(m, g)


def _torchvision(name, **kwargs):
    def make():
        import torchvision
        model = getattr(torchvision.models, name)(**kwargs)
        model.eval()
        return model
    return make


def rand(*shapes):
    return lambda: tuple(torch.rand(*s) for s in shapes)


CASES = [
    Case("docstring-modulo3", Docstring, rand((3, 4), (3, 4)), modulo(3)),
    Case("docstring-keep-order", Docstring, rand((3, 4), (3, 4)), modulo(3), keep_original_order=True),
    Case("docstring-modulo2", Docstring, rand((3, 4), (3, 4)), modulo(2)),
    Case("all-ops-stages", AllOps, rand((4, 4)), contiguous(3)),
    Case("arg-kinds-stages", ArgKinds, rand((4, 4)), contiguous(4)),
    Case("nan-constant", NanConstant, rand((4, 4)), contiguous(2)),
    Case("dict-arg", DictArg, rand((4, 4)), contiguous(2)),
    Case("kwargs", Kwargs, rand((2, 3), (2, 3)), modulo(2)),
    Case("defaults", Defaults, rand((4, 4)), contiguous(2)),
    Case("tuple-outputs-getitem", TupleOutputs, rand((4, 4)), contiguous(3)),
    Case("tuple-outputs-modulo", TupleOutputs, rand((4, 4)), modulo(2)),
    Case("dead-code", DeadCode, rand((4, 4)), by_name({"unused": 0, "a": 0, "unused_too": 1, "add": 1})),
    Case("shared-param", SharedParam, rand((4, 4)), contiguous(4)),
    Case("nested-targets", Nested, rand((2, 4)), contiguous(2)),
    Case("many-outputs", ManyOutputs, rand((4, 4)), by_name({"add": 0, "mul": 0, "sub": 0, "relu": 1, "add_1": 1, "mul_1": 2, "add_2": 2})),
    Case("independent-stack-order", Independent, rand((4, 4), (4, 4)), by_name({"relu": 0, "tanh": 1, "sigmoid": 2, "add": 3, "add_1": 3})),
    Case("independent-keep-order", Independent, rand((4, 4), (4, 4)), by_name({"relu": 0, "tanh": 1, "sigmoid": 2, "add": 3, "add_1": 3}), keep_original_order=True),
    Case("builtin-names", BuiltinNames, rand((3, 4), (3, 4)), contiguous(3)),
    Case("tensor-constant", TensorConstant, rand((4,)), modulo(2)),
    Case("buffer-attr", BufferAttr, rand((3, 4)), modulo(3)),
    Case("output-structures", OutputStructures, rand((2, 4)), modulo(2)),
    Case("operators", Operators, rand((4, 4), (4, 4)), contiguous(4)),
    Case("aten-overloads", AtenOverloads, rand((4, 4), (4, 4)), contiguous(3)),
    Case("methods", Methods, rand((2, 3, 4)), contiguous(2)),
    Case("chain-round-robin", Chain, rand((2, 4)), modulo(3)),
    Case("chain-single-partition", Chain, rand((2, 4)), by_name({})),
    Case("cycle", Cycle, rand((4, 4)), by_name({"relu": 0, "add": 1, "mul": 0})),
    Case("negative-and-huge-ids", Chain, rand((2, 4)), by_name({"l1": -5, "relu": -5, "l2": 2**40, "relu_1": 2**40, "l3": 2**62})),
    Case("zero-output-partition", ZeroOutput, rand((4, 4)), by_name({"relu": 0, "mul": 1, "add": 2}),
         current_pytorch_only="torch 1.13 raises IndexError for a partition with no outputs; current PyTorch returns ()"),
    Case("module-get-attr", _module_get_attr, rand((2, 4)), by_name({"relu": 0, "linear": 1, "forward": 1}),
         current_pytorch_only="torch 1.13 passes a submodule get_attr as an input; current PyTorch makes it a get_attr inside the partition"),
    Case("resnet18-stages", _torchvision("resnet18"), rand((1, 3, 64, 64)), contiguous(4), tags=["torchvision"]),
    Case("resnet18-round-robin", _torchvision("resnet18"), rand((1, 3, 64, 64)), modulo(3), tags=["torchvision"]),
    Case("mobilenet_v2-stages", _torchvision("mobilenet_v2"), rand((1, 3, 64, 64)), contiguous(3), tags=["torchvision"]),
    Case("mobilenet_v2-round-robin", _torchvision("mobilenet_v2"), rand((1, 3, 64, 64)), modulo(2), tags=["torchvision"]),
    Case("googlenet-stages", _torchvision("googlenet", init_weights=False, aux_logits=False), rand((1, 3, 96, 96)), contiguous(5), tags=["torchvision"]),
    Case("vit_b_16-stages", _torchvision("vit_b_16"), rand((1, 3, 224, 224)), contiguous(4), tags=["torchvision"]),
]
