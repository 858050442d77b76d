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


typedef struct {
  const char *name;
  gsize len;
} Key;

static int
compare_reserved (const void *key, const void *member)
{
  const Key *k = key;
  const char *r = *(const char *const *) member;
  int c = strncmp (k->name, r, k->len);
  return c ? c : -(r[k->len] != '\0');
}

gboolean
fxs_name_is_reserved_len (const char *name, gsize len)
{
  /* most names have digits, which no reserved name has */
  for (gsize i = 0; i < len; i++)
    if (g_ascii_isdigit (name[i]))
      return FALSE;
  Key key = { name, len };
  return bsearch (&key, reserved_names, G_N_ELEMENTS (reserved_names), sizeof (char *),
                  compare_reserved) != NULL;
}

gboolean
fxs_name_is_reserved (const char *name)
{
  return fxs_name_is_reserved_len (name, strlen (name));
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
  if (c < 0x80)
    return c >= 'A' && c <= 'Z';
  return g_unichar_isupper (c) || in_ranges (c, other_uppercase, G_N_ELEMENTS (other_uppercase));
}

static gboolean
py_islower (gunichar c)
{
  if (c < 0x80)
    return c >= 'a' && c <= 'z';
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

void
fxs_snake_case (const char *s, GString *out)
{
  gboolean prev_lower = FALSE;
  const char *p = s;
  while (*p)
    {
      if ((guchar) *p < 0x80)
        {
          char a = *p++;
          gboolean upper = a >= 'A' && a <= 'Z';
          if (prev_lower && upper)
            g_string_append_c (out, '_');
          g_string_append_c (out, upper ? (char) (a + ('a' - 'A')) : a);
          prev_lower = a >= 'a' && a <= 'z';
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
      if (prev_lower && py_isupper (c))
        g_string_append_c (out, '_');
      if (c < 0x80)
        g_string_append_c (out, (char) g_ascii_tolower ((char) c));
      else
        append_py_lower (out, c);
      prev_lower = py_islower (c);
      p = g_utf8_next_char (p);
    }
}

void
fxs_target_to_str (const char *target, gboolean callable_name, GString *out)
{
  gsize len = strlen (target);
  if (!callable_name && g_str_has_prefix (target, "__") && g_str_has_suffix (target, "__"))
    {
      /* Python's op[2:-2], empty for "__" and "___" */
      char *inner = len > 4 ? g_strndup (target + 2, len - 4) : g_strdup ("");
      fxs_snake_case (inner, out);
      g_free (inner);
      return;
    }
  fxs_snake_case (target, out);
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
  if (op == FXS_OP_CALL_FUNCTION)
    fxs_target_to_str (callable_name (target), TRUE, out);
  else
    fxs_target_to_str (target, FALSE, out);
}

static gboolean
is_identifier_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* "_" + re.sub('[^0-9a-zA-Z_]+', '_', candidate) (the "_" only when it
 * starts with a digit) into @c, "_unnamed" when empty; returns the length.
 * Bytes work as well as code points: UTF-8 sequences consist of non-ASCII
 * bytes only. */
static gsize
clean_into (const char *candidate, char *out)
{
  gsize len = 0;
  if (g_ascii_isdigit (candidate[0]))
    out[len++] = '_';
  for (const char *p = candidate; *p; p++)
    {
      if (is_identifier_char (*p))
        out[len++] = *p;
      else if (p == candidate || is_identifier_char (p[-1]))
        out[len++] = '_';
    }
  if (len == 0)
    {
      memcpy (out, "_unnamed", sizeof "_unnamed");
      len = sizeof "_unnamed" - 1;
    }
  out[len] = '\0';
  return len;
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

void
fxs_name_candidate_init (FxsNameCandidate *c, const char *candidate, FxsNameAllocFunc alloc,
                         gpointer alloc_data)
{
  /* the room clean_into() may need */
  char *text = alloc (alloc_data, MAX (strlen (candidate) + 2, sizeof "_unnamed"));
  c->len = (guint32) clean_into (candidate, text);
  c->text = text;
  analyse_candidate (c);
}

typedef enum {
  CHAR_OTHER,
  CHAR_LOWER,
  CHAR_UPPER,
  CHAR_DIGIT,
  CHAR_UNDERSCORE,
} CharClass;

#define RANGE_4(c, k) [c] = k, [c + 1] = k, [c + 2] = k, [c + 3] = k
#define RANGE_8(c, k) RANGE_4 (c, k), RANGE_4 (c + 4, k)
static const guint8 ascii_class[128] = {
  RANGE_8 ('0', CHAR_DIGIT), ['8'] = CHAR_DIGIT, ['9'] = CHAR_DIGIT,
  RANGE_8 ('a', CHAR_LOWER), RANGE_8 ('i', CHAR_LOWER), RANGE_8 ('q', CHAR_LOWER),
  ['y'] = CHAR_LOWER, ['z'] = CHAR_LOWER,
  RANGE_8 ('A', CHAR_UPPER), RANGE_8 ('I', CHAR_UPPER), RANGE_8 ('Q', CHAR_UPPER),
  ['Y'] = CHAR_UPPER, ['Z'] = CHAR_UPPER,
  ['_'] = CHAR_UNDERSCORE,
};

/* [0-9a-z_]: what a clean, lower-case identifier is made of (not NUL) */
static const guint8 lower_ident[256] = {
  RANGE_8 ('0', 1), ['8'] = 1, ['9'] = 1,
  RANGE_8 ('a', 1), RANGE_8 ('i', 1), RANGE_8 ('q', 1), ['y'] = 1, ['z'] = 1,
  ['_'] = 1,
};

/* Makes @c the candidate of the @len clean bytes at @text (copied). */
static void
set_candidate_text (FxsNameCandidate *c, const char *text, gsize len, FxsNameAllocFunc alloc,
                    gpointer alloc_data)
{
  char *copy = alloc (alloc_data, len + 1);
  memcpy (copy, text, len);
  copy[len] = '\0';
  c->text = copy;
  c->len = (guint32) len;
  analyse_candidate (c);
}

/* fxs_node_name_candidate() and its cleaning in one pass, for targets of
 * ASCII only and of moderate length (the usual case); FALSE otherwise. */
static gboolean
candidate_for_node_fast (FxsNameCandidate *c, FxsOp op, const char *target, FxsNameAllocFunc alloc,
                         gpointer alloc_data)
{
  const char *s = op == FXS_OP_CALL_FUNCTION ? callable_name (target) : target;
  /* the clean, lower-case prefix, measuring the string on the way: most
   * targets ("layers_7_fc", "add_5") are that prefix and need no strlen */
  gsize k = 0;
  while (lower_ident[(guchar) s[k]])
    k++;
  gsize len = s[k] == '\0' ? k : k + strlen (s + k);
  /* _target_to_str: op[2:-2] of a "__magic__" name ("__" is in the
   * prefix, so the prefix of the inner text is k - 2 bytes long) */
  if (op != FXS_OP_CALL_FUNCTION && len >= 2 && s[0] == '_' && s[1] == '_'
      && s[len - 2] == '_' && s[len - 1] == '_')
    {
      s += 2;
      len = len > 4 ? len - 4 : 0;
      k = MIN (k - 2, len);
    }
  /* already a clean, lower-case identifier: as it is */
  if (k == len && len > 0 && ascii_class[(guchar) s[0]] != CHAR_DIGIT)
    {
      if (s[len] == '\0')
        {
          /* the target's own text (or its end): shared, not copied */
          c->text = s;
          c->len = (guint32) len;
          analyse_candidate (c);
        }
      else
        set_candidate_text (c, s, len, alloc, alloc_data);
      return TRUE;
    }
  char buf[256];
  if (2 * len + 2 > sizeof buf)
    return FALSE;
  gsize o = 0;
  gboolean prev_lower = FALSE;   /* _snake_case's state */
  gboolean prev_ident = FALSE;   /* the cleaning's: the last character it saw */
  if (k > 0)
    {
      /* the clean prefix comes out as it is ("layers" of "layers.7.weight") */
      if (ascii_class[(guchar) s[0]] == CHAR_DIGIT)
        buf[o++] = '_';
      memcpy (buf + o, s, k);
      o += k;
      prev_lower = ascii_class[(guchar) s[k - 1]] == CHAR_LOWER;
      prev_ident = TRUE;
    }
  for (gsize i = k; i < len; i++)
    {
      guchar a = (guchar) s[i];
      if (a >= 0x80)
        return FALSE;
      CharClass cls = ascii_class[a];
      if (cls == CHAR_UPPER)
        {
          if (prev_lower)
            buf[o++] = '_';
          a += 'a' - 'A';
        }
      if (cls != CHAR_OTHER)
        {
          if (o == 0 && cls == CHAR_DIGIT)
            buf[o++] = '_';
          buf[o++] = (char) a;
          prev_ident = TRUE;
        }
      else
        {
          /* a run of other characters becomes one "_" */
          if (o == 0 || prev_ident)
            buf[o++] = '_';
          prev_ident = FALSE;
        }
      prev_lower = cls == CHAR_LOWER;
    }
  if (o == 0)
    {
      memcpy (buf, "_unnamed", sizeof "_unnamed" - 1);
      o = sizeof "_unnamed" - 1;
    }
  set_candidate_text (c, buf, o, alloc, alloc_data);
  return TRUE;
}

void
fxs_name_candidate_init_for_node (FxsNameCandidate *c, FxsOp op, const char *target,
                                  FxsNameAllocFunc alloc, gpointer alloc_data)
{
  if (candidate_for_node_fast (c, op, target, alloc, alloc_data))
    return;
  GString *candidate = g_string_new (NULL);
  fxs_node_name_candidate (op, target, candidate);
  fxs_name_candidate_init (c, candidate->str, alloc, alloc_data);
  g_string_free (candidate, TRUE);
}
