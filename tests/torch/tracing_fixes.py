"""Fixes later PyTorch made to torch.fx's tracing helpers for Python 3.11,
applied while tracing the test corpus only.

Debian's torch 1.13 predates Python 3.11: symbolic_trace fails on tuple
unpacking of a traced value (`n, c, h, w = x.shape`, torchvision's
vit_b_16) because Proxy.__iter__ indexes bytecode by f_lasti // 2, which
3.11's inline caches break, and on `forward(*args, **kwargs)` because
_patch_function builds a code object with the pre-3.11 constructor
signature.  split_module itself is never patched.
"""
import bisect
import contextlib
import dis
import inspect
import sys
import types

import torch.fx._symbolic_trace as _symbolic_trace
import torch.fx.proxy as _proxy


def _current_instruction(frame):
    insts = list(dis.get_instructions(frame.f_code))
    if sys.version_info >= (3, 11):
        return insts[bisect.bisect_left([i.offset for i in insts], frame.f_lasti)]
    return insts[frame.f_lasti // 2]


def _proxy_iter(self):
    calling_frame = inspect.currentframe().f_back
    inst = _current_instruction(calling_frame)
    if inst.opname == "UNPACK_SEQUENCE":
        return (self[i] for i in range(inst.argval))
    return self.tracer.iter(self)


def _patch_function(fn, nargs):
    co = fn.__code__
    co_flags = co.co_flags & ~_symbolic_trace.HAS_VARSTUFF
    new_code = co.replace(co_argcount=nargs, co_posonlyargcount=0,
                          co_kwonlyargcount=0, co_flags=co_flags)
    return types.FunctionType(new_code, fn.__globals__, fn.__name__,
                              fn.__defaults__, fn.__closure__)


@contextlib.contextmanager
def python311_tracing():
    """Within this block torch.fx traces on Python 3.11 as later PyTorch does."""
    saved = (_proxy.Proxy.__iter__, _symbolic_trace._patch_function)
    _proxy.Proxy.__iter__ = _proxy_iter
    _symbolic_trace._patch_function = _patch_function
    try:
        yield
    finally:
        _proxy.Proxy.__iter__, _symbolic_trace._patch_function = saved


def symbolic_trace(module, **kwargs):
    with python311_tracing():
        return _symbolic_trace.symbolic_trace(module, **kwargs)
