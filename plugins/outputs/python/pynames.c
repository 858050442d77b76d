/* Reserved Python names.
 *
 * libfxsplit's core/split/names.c has one merged table of these for node names,
 * but it is internal to the library and cannot tell a builtin from a
 * keyword, which add_global needs (a builtin may be named after itself:
 * the global for `getattr` is "getattr").  So the plugin keeps its own
 * tables; tests/unit/plugins/test-codegen.c checks that they agree with the core's. */
#include "pynames.h"

#include <stdlib.h>
#include <string.h>

/* Sorted bytewise, for bsearch. */
static const char *const keywords[] = {
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
  "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
  "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass",
  "raise", "return", "try", "while", "with", "yield",
};

/* sorted(builtins.__dict__) of `/usr/bin/python3 script.py` (site adds
 * copyright, credits, exit, help, license and quit). */
static const char *const builtins[] = {
  "ArithmeticError", "AssertionError", "AttributeError", "BaseException",
  "BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError",
  "BytesWarning", "ChildProcessError", "ConnectionAbortedError", "ConnectionError",
  "ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning",
  "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception",
  "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError",
  "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
  "ImportWarning", "IndentationError", "IndexError", "InterruptedError",
  "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError",
  "MemoryError", "ModuleNotFoundError", "NameError", "None", "NotADirectoryError",
  "NotImplemented", "NotImplementedError", "OSError", "OverflowError",
  "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
  "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError",
  "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError",
  "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError", "True",
  "TypeError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError",
  "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning",
  "ValueError", "Warning", "ZeroDivisionError", "__build_class__", "__debug__",
  "__doc__", "__import__", "__loader__", "__name__", "__package__", "__spec__",
  "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint",
  "bytearray", "bytes", "callable", "chr", "classmethod", "compile", "complex",
  "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval",
  "exec", "exit", "filter", "float", "format", "frozenset", "getattr", "globals",
  "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance",
  "issubclass", "iter", "len", "license", "list", "locals", "map", "max",
  "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print",
  "property", "quit", "range", "repr", "reversed", "round", "set", "setattr",
  "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars",
  "zip",
};

const char *const fxs_py_custom_builtins[] = {
  "inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree", NULL,
};

static int
compare_name (const void *key, const void *entry)
{
  return strcmp (key, *(const char *const *) entry);
}

static gboolean
in_sorted (const char *name, const char *const *table, gsize n)
{
  return bsearch (name, table, n, sizeof table[0], compare_name) != NULL;
}

gboolean
fxs_py_is_keyword (const char *name)
{
  return in_sorted (name, keywords, G_N_ELEMENTS (keywords));
}

gboolean
fxs_py_is_builtin (const char *name)
{
  return in_sorted (name, builtins, G_N_ELEMENTS (builtins));
}

gboolean
fxs_py_is_custom_builtin (const char *name)
{
  for (const char *const *c = fxs_py_custom_builtins; *c; c++)
    if (strcmp (*c, name) == 0)
      return TRUE;
  return FALSE;
}
