"""How fxsplit_torch.distributed sends a value that has no tensor metadata
to go by: a header of int64 words describing the value, then one message
per tensor in it.  No pickle: a header is numbers only, decoded by the
table below, so a rank never runs code another rank sent.

A header is one message of HEADER_WORDS int64: the total number of words,
then the first words of the description (and one more message with the
rest when it is longer).  Descriptions, in prefix order:

  tensor      TENSOR, dtype code, ndim, size...   (its data follows as a message)
  None        NONE
  bool        BOOL, 0|1
  int         INT, value                           (int64 range)
  float       FLOAT, the bits of the float64
  str         STR, byte count                      (utf-8 bytes follow as a uint8 message)
  torch.Size  SIZE, n, size...
  torch.dtype DTYPE, dtype code
  tuple/list  TUPLE|LIST, n, the n items
"""
import struct

import torch

HEADER_WORDS = 16
MAX_WORDS = 1 << 20
MAX_DIMS = 64

TENSOR, NONE, BOOL, INT, FLOAT, STR, SIZE, DTYPE, TUPLE, LIST = range(1, 11)

DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
          torch.int16, torch.int8, torch.uint8, torch.bool, torch.complex64, torch.complex128)
_CODES = {d: i for i, d in enumerate(DTYPES)}


class WireError(ValueError):
    """A value that cannot cross ranks, or a header that makes no sense."""


def encode(value, where):
    """(words, tensors): the description of @value and the tensors whose
    data follow it, in order; WireError naming @where for a value of
    another type."""
    words, tensors = [], []
    _encode(value, words, tensors, where, 0)
    return words, tensors


def _dtype_code(dtype, where):
    code = _CODES.get(dtype)
    if code is None:
        raise WireError(f"{where}: dtype {dtype} cannot cross ranks")
    return code


def _encode(v, words, tensors, where, depth):
    if depth > 32:
        raise WireError(f"{where}: nested more than 32 levels deep")
    if isinstance(v, torch.Tensor):
        if v.dim() > MAX_DIMS:
            raise WireError(f"{where}: a tensor of {v.dim()} dimensions (at most {MAX_DIMS})")
        words += [TENSOR, _dtype_code(v.dtype, where), v.dim(), *v.shape]
        tensors.append(v.contiguous())
    elif v is None:
        words.append(NONE)
    elif isinstance(v, bool):
        words += [BOOL, int(v)]
    elif isinstance(v, int):
        if not -(1 << 63) <= v < (1 << 63):
            raise WireError(f"{where}: the int {v} does not fit in 64 bits")
        words += [INT, v]
    elif isinstance(v, float):
        words += [FLOAT, struct.unpack("<q", struct.pack("<d", v))[0]]
    elif isinstance(v, str):
        data = v.encode("utf-8")
        words += [STR, len(data)]
        tensors.append(torch.frombuffer(bytearray(data), dtype=torch.uint8) if data
                       else torch.empty(0, dtype=torch.uint8))
    elif isinstance(v, torch.Size):
        words += [SIZE, len(v), *v]
    elif isinstance(v, torch.dtype):
        words += [DTYPE, _dtype_code(v, where)]
    elif isinstance(v, (tuple, list)):
        words += [TUPLE if isinstance(v, tuple) else LIST, len(v)]
        for item in v:
            _encode(item, words, tensors, where, depth + 1)
    else:
        raise WireError(f"{where}: a {type(v).__name__} cannot cross ranks (tensors, None, bool, "
                        f"int, float, str, torch.Size, torch.dtype and tuples or lists of these can)")
    if len(words) > MAX_WORDS:
        raise WireError(f"{where}: its description takes more than {MAX_WORDS} words")


def decode(words, receive, where):
    """The value @words describe; @receive(shape, dtype) returns the data
    of the next tensor (its message).  WireError for a malformed header."""
    value, end = _decode(words, 0, receive, where, 0)
    if end != len(words):
        raise WireError(f"{where}: {len(words) - end} words after the value")
    return value


def _word(words, i, where):
    if i >= len(words):
        raise WireError(f"{where}: the header ends early")
    return words[i]


def _decode(words, i, receive, where, depth):
    if depth > 32:
        raise WireError(f"{where}: nested more than 32 levels deep")
    kind = _word(words, i, where)
    if kind == TENSOR or kind == DTYPE:
        code = _word(words, i + 1, where)
        if not 0 <= code < len(DTYPES):
            raise WireError(f"{where}: unknown dtype code {code}")
        if kind == DTYPE:
            return DTYPES[code], i + 2
        ndim = _word(words, i + 2, where)
        if not 0 <= ndim <= MAX_DIMS:
            raise WireError(f"{where}: a tensor of {ndim} dimensions")
        shape = [_word(words, i + 3 + k, where) for k in range(ndim)]
        if any(s < 0 for s in shape):
            raise WireError(f"{where}: a negative size in {shape}")
        return receive(tuple(shape), DTYPES[code]), i + 3 + ndim
    if kind == NONE:
        return None, i + 1
    if kind == BOOL:
        return bool(_word(words, i + 1, where)), i + 2
    if kind == INT:
        return int(_word(words, i + 1, where)), i + 2
    if kind == FLOAT:
        return struct.unpack("<d", struct.pack("<q", _word(words, i + 1, where)))[0], i + 2
    if kind == STR:
        n = _word(words, i + 1, where)
        if not 0 <= n <= (1 << 30):
            raise WireError(f"{where}: a string of {n} bytes")
        data = receive((n,), torch.uint8)
        try:
            return bytes(data.cpu().tolist()).decode("utf-8"), i + 2
        except UnicodeDecodeError:
            raise WireError(f"{where}: a string that is not utf-8") from None
    if kind == SIZE:
        n = _word(words, i + 1, where)
        if not 0 <= n <= MAX_DIMS:
            raise WireError(f"{where}: a torch.Size of {n} sizes")
        return torch.Size([_word(words, i + 2 + k, where) for k in range(n)]), i + 2 + n
    if kind == TUPLE or kind == LIST:
        n = _word(words, i + 1, where)
        if not 0 <= n <= len(words):
            raise WireError(f"{where}: a sequence of {n} items")
        items, i = [], i + 2
        for _ in range(n):
            item, i = _decode(words, i, receive, where, depth + 1)
            items.append(item)
        return (tuple(items) if kind == TUPLE else items), i
    raise WireError(f"{where}: unknown value kind {kind}")
