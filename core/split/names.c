/* torch.fx 1.13's naming rules (torch/fx/graph.py): _target_to_str,
 * _snake_case, the cleaning of create_name and the names it never gives
 * out.  The namespace that hands out names is namespace.c. */
#include "names.h"

#include <stdlib.h>
#include <string.h>

/* Python 3.11 keywords, builtins.__dict__ (as Debian's python3 has it,
 * with site's copyright/credits/exit/help/license/quit) and torch.fx's
 * custom builtins, sorted bytewise for bsearch. */
static const char *const reserved_names[] = {
  "ArithmeticError", "AssertionError", "AttributeError", "BaseException",
  "BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError",
  "BytesWarning", "ChildProcessError", "ConnectionAbortedError", "ConnectionError",
  "ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError",
  "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup",
  "False", "FileExistsError", "FileNotFoundError", "FloatingPointError",
  "FutureWarning", "GeneratorExit", "IOError", "ImportError", "ImportWarning",
  "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError",
  "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError",
  "NameError", "None", "NoneType", "NotADirectoryError", "NotImplemented",
  "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning",
  "PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError",
  "ResourceWarning", "RuntimeError", "RuntimeWarning", "StopAsyncIteration",
  "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit",
  "TabError", "TimeoutError", "True", "TypeError", "UnboundLocalError",
  "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError",
  "UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError",
  "__build_class__", "__debug__", "__doc__", "__import__", "__loader__", "__name__",
  "__package__", "__spec__", "abs", "aiter", "all", "and", "anext", "any", "as",
  "ascii", "assert", "async", "await", "bin", "bool", "break", "breakpoint",
  "bytearray", "bytes", "callable", "chr", "class", "classmethod", "compile",
  "complex", "continue", "copyright", "credits", "def", "del", "delattr", "device",
  "dict", "dir", "divmod", "elif", "else", "enumerate", "eval", "except", "exec",
  "exit", "filter", "finally", "float", "for", "format", "from", "frozenset",
  "fx_pytree", "getattr", "global", "globals", "hasattr", "hash", "help", "hex", "id",
  "if", "import", "in", "inf", "input", "int", "is", "isinstance", "issubclass",
  "iter", "lambda", "len", "license", "list", "locals", "map", "max", "memoryview",
  "min", "nan", "next", "nonlocal", "not", "object", "oct", "open", "or", "ord",
  "pass", "pow", "print", "property", "pytree", "quit", "raise", "range", "repr",
  "return", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod",
  "str", "sum", "super", "torch", "try", "tuple", "type", "vars", "while", "with",
  "yield", "zip",
};

static int
compare_reserved (const void *name, const void *member)
{
  return strcmp (name, *(const char *const *) member);
}

gboolean
fxs_name_is_reserved (const char *name)
{
  /* most names have digits, which no reserved name has */
  for (const char *p = name; *p; p++)
    if (g_ascii_isdigit (*p))
      return FALSE;
  return bsearch (name, reserved_names, G_N_ELEMENTS (reserved_names), sizeof (char *),
                  compare_reserved) != NULL;
}

/* ---- _snake_case ---------------------------------------------------------- */

typedef struct {
  gunichar first, last;
} CharRange;

/* Python's str.isupper/islower use the Uppercase/Lowercase properties (Lu
 * and Ll plus Other_Uppercase/Other_Lowercase); GLib knows only Lu/Ll.
 * These are the differences for Python 3.11's Unicode 14 tables. */
static const CharRange other_uppercase[] = {
  { 0x2160, 0x216f }, { 0x24b6, 0x24cf }, { 0x1f130, 0x1f149 }, { 0x1f150, 0x1f169 },
  { 0x1f170, 0x1f189 },
};
static const CharRange other_lowercase[] = {
  { 0xaa, 0xaa }, { 0xba, 0xba }, { 0x2b0, 0x2b8 }, { 0x2c0, 0x2c1 }, { 0x2e0, 0x2e4 },
  { 0x345, 0x345 }, { 0x37a, 0x37a }, { 0x1d2c, 0x1d6a }, { 0x1d78, 0x1d78 },
  { 0x1d9b, 0x1dbf }, { 0x2071, 0x2071 }, { 0x207f, 0x207f }, { 0x2090, 0x209c },
  { 0x2170, 0x217f }, { 0x24d0, 0x24e9 }, { 0x2c7c, 0x2c7d }, { 0xa69c, 0xa69d },
  { 0xa770, 0xa770 }, { 0xa7f8, 0xa7f9 }, { 0xab5c, 0xab5f }, { 0x10780, 0x10780 },
  { 0x10783, 0x10785 }, { 0x10787, 0x107b0 }, { 0x107b2, 0x107ba },
};
/* Lowercase letters of Unicode 15 that Python 3.11 does not know yet. */
static const CharRange unknown_to_python[] = { { 0x1df25, 0x1df2a } };

static gboolean
in_ranges (gunichar c, const CharRange *ranges, guint n)
{
  for (guint i = 0; i < n; i++)
    if (c >= ranges[i].first && c <= ranges[i].last)
      return TRUE;
  return FALSE;
}

static gboolean
py_isupper (gunichar c)
{
  return g_unichar_isupper (c) || in_ranges (c, other_uppercase, G_N_ELEMENTS (other_uppercase));
}

static gboolean
py_islower (gunichar c)
{
  if (in_ranges (c, unknown_to_python, G_N_ELEMENTS (unknown_to_python)))
    return FALSE;
  return g_unichar_islower (c) || in_ranges (c, other_lowercase, G_N_ELEMENTS (other_lowercase));
}

/* str.lower() of one character.  GLib's simple mapping agrees with
 * Python's except for U+0130 (two characters) and the Roman numerals and
 * circled letters, which GLib does not treat as letters. */
static void
append_py_lower (GString *out, gunichar c)
{
  if (c == 0x130)
    g_string_append (out, "i\xcc\x87");
  else if (c >= 0x2160 && c <= 0x216f)
    g_string_append_unichar (out, c + 0x10);
  else if (c >= 0x24b6 && c <= 0x24cf)
    g_string_append_unichar (out, c + 0x1a);
  else
    g_string_append_unichar (out, g_unichar_tolower (c));
}

/* _snake_case(s) appended to @out ("pascalCase" -> "pascal_case"). */
static void
snake_case (const char *s, GString *out)
{
  gboolean prev_lower = FALSE;
  const char *p = s;
  while (*p)
    {
      /* a run of ASCII without capitals (most targets) goes as it is */
      const char *run = p;
      while ((guchar) *p - 1u < 0x7fu && !g_ascii_isupper (*p))
        p++;
      if (p > run)
        {
          g_string_append_len (out, run, p - run);
          prev_lower = g_ascii_islower (p[-1]);
          continue;
        }
      if (g_ascii_isupper (*p))
        {
          if (prev_lower)
            g_string_append_c (out, '_');
          g_string_append_c (out, g_ascii_tolower (*p++));
          prev_lower = FALSE;
          continue;
        }
      gunichar c = g_utf8_get_char_validated (p, -1);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* not UTF-8: keep the byte; create_name turns it into "_" */
          g_string_append_c (out, *p++);
          prev_lower = FALSE;
          continue;
        }
      /* not ASCII: the cases above took every ASCII byte */
      if (prev_lower && py_isupper (c))
        g_string_append_c (out, '_');
      append_py_lower (out, c);
      prev_lower = py_islower (c);
      p = g_utf8_next_char (p);
    }
}

/* Where the __name__ of the function a call_function target names starts:
 * after the last dot ("torch.relu" -> "relu"), except for an operator
 * overload "torch.ops.NS.OP.OVERLOAD", whose __name__ is "OP.OVERLOAD"
 * (torch.fx names such a node "add_tensor", not "tensor"). */
static const char *
callable_name (const char *target)
{
  static const char ops[] = "torch.ops.";
  const char *dot = strrchr (target, '.');
  if (strncmp (target, ops, sizeof ops - 1) == 0)
    {
      const char *ns_end = strchr (target + sizeof ops - 1, '.');
      const char *op_end = ns_end ? strchr (ns_end + 1, '.') : NULL;
      if (op_end && op_end == dot)
        return ns_end + 1;
    }
  return dot ? dot + 1 : target;
}

void
fxs_node_name_candidate (FxsOp op, const char *target, GString *out)
{
  gsize len = strlen (target);
  if (op == FXS_OP_CALL_FUNCTION)
    snake_case (callable_name (target), out);
  else if (g_str_has_prefix (target, "__") && g_str_has_suffix (target, "__"))
    {
      /* Python's op[2:-2], empty for "__" and "___" */
      char *inner = len > 4 ? g_strndup (target + 2, len - 4) : g_strdup ("");
      snake_case (inner, out);
      g_free (inner);
    }
  else
    snake_case (target, out);
}

static gboolean
is_identifier_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* Splits the cleaned text of @c into base and number. */
static void
analyse_candidate (FxsNameCandidate *c)
{
  const char *text = c->text;
  gsize len = c->len;
  c->hint_epoch = 0;
  c->number = 0;
  c->digits = NULL;
  /* (.*)_(\d+)$: the digits after the last "_" that is followed by digits only */
  gsize d = len;
  while (d > 0 && g_ascii_isdigit (text[d - 1]))
    d--;
  if (d == len || d == 0 || text[d - 1] != '_')
    {
      c->form = FXS_NAME_PLAIN;
      c->base_len = (guint32) len;
    }
  else
    {
      c->base_len = (guint32) (d - 1);
      const char *digits = text + d;
      while (digits[0] == '0' && digits[1] != '\0')
        digits++;                   /* int("007") == 7 */
      c->digits = digits;
      if (strlen (digits) > 19)
        c->form = FXS_NAME_BIG;
      else
        {
          c->form = FXS_NAME_NUMBERED;
          c->number = g_ascii_strtoull (digits, NULL, 10);
        }
    }
  c->hash = fxs_name_hash (text, c->base_len);
}

/* "_" + re.sub('[^0-9a-zA-Z_]+', '_', candidate) (the "_" only when it
 * starts with a digit), "_unnamed" when empty.  Bytes work as well as code
 * points: UTF-8 sequences consist of non-ASCII bytes only. */
void
fxs_name_candidate_init (FxsNameCandidate *c, const char *candidate, FxsArena *arena)
{
  char *text = fxs_arena_take (arena, MAX (strlen (candidate) + 2, sizeof "_unnamed"));
  gsize len = 0;
  if (g_ascii_isdigit (candidate[0]))
    text[len++] = '_';
  for (const char *p = candidate; *p; p++)
    {
      if (is_identifier_char (*p))
        text[len++] = *p;
      else if (p == candidate || is_identifier_char (p[-1]))
        text[len++] = '_';
    }
  if (len == 0)
    {
      memcpy (text, "_unnamed", sizeof "_unnamed");
      len = sizeof "_unnamed" - 1;
    }
  text[len] = '\0';
  c->text = text;
  c->len = (guint32) len;
  analyse_candidate (c);
}

void
fxs_name_candidate_init_for_node (FxsNameCandidate *c, FxsOp op, const char *target,
                                  GString *scratch, FxsArena *arena)
{
  const char *s = op == FXS_OP_CALL_FUNCTION ? callable_name (target) : target;
  /* most targets ("layers_7_fc", "add", "layers.7.scale") are [a-z0-9_]
   * with single dots, which the cleaning makes "_" */
  gsize len = 0, dots = 0;
  for (;; len++)
    {
      char a = s[len];
      if (a == '.' && (len == 0 || s[len - 1] != '.'))
        dots++;
      else if (!((a >= 'a' && a <= 'z') || a == '_' || (a >= '0' && a <= '9' && len > 0)))
        break;
    }
  gboolean magic = op != FXS_OP_CALL_FUNCTION && len >= 2 && s[0] == '_' && s[1] == '_'
                   && s[len - 2] == '_' && s[len - 1] == '_';
  if (len > 0 && s[len] == '\0' && !magic)
    {
      if (dots)
        {
          char *copy = fxs_arena_take (arena, len + 1);
          for (gsize i = 0; i <= len; i++)
            copy[i] = s[i] == '.' ? '_' : s[i];
          s = copy;
        }
      c->text = s;
      c->len = (guint32) len;
      analyse_candidate (c);
      return;
    }
  g_string_truncate (scratch, 0);
  fxs_node_name_candidate (op, target, scratch);
  fxs_name_candidate_init (c, scratch->str, arena);
}
