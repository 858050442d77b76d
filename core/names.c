/* torch.fx 1.13 node naming: _target_to_str, _snake_case, create_name.
 *
 * create_name takes the FIRST free "<base>_<n>" at or after the candidate's
 * number.  A linear scan from there would be quadratic on graphs with many
 * nodes of one base ("add", "add_1", ... "add_99999"), so every taken
 * numbered name remembers a number up to which all names of its base are
 * known to be taken (a union-find "next free" pointer with path
 * compression).  Names are never removed, so the pointers never go stale. */
#include "names.h"
#include "graph-private.h"

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
compare_name (const void *key, const void *entry)
{
  return strcmp (key, *(const char *const *) entry);
}

gboolean
fxs_name_is_reserved (const char *name)
{
  return bsearch (name, reserved_names, G_N_ELEMENTS (reserved_names),
                  sizeof reserved_names[0], compare_name) != NULL;
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

void
fxs_node_name_candidate (FxsOp op, const char *target, GString *out)
{
  if (op == FXS_OP_CALL_FUNCTION)
    {
      const char *dot = strrchr (target, '.');
      fxs_target_to_str (dot ? dot + 1 : target, TRUE, out);
    }
  else
    fxs_target_to_str (target, FALSE, out);
}

/* ---- the namespace -------------------------------------------------------- */

typedef struct {
  const char *name;   /* NULL: empty slot */
  /* Every "<base>_<k>" with from <= k < next is taken, where from is the
   * name's own number, or 1 for a name without one ("add" knows about
   * add_1 ...).  0 when nothing is known. */
  guint64 next;
  guint32 hash;
  guint32 len;
} NameSlot;

/* A growable text buffer (cheaper than GString on this hot path). */
typedef struct {
  char *str;
  gsize len;
  gsize cap;
} Buffer;

struct FxsNamespace {
  FxsGraph *graph;
  NameSlot *slots;
  gsize mask;
  gsize size;
  Buffer candidate;
  Buffer probe;
  NameSlot **path;     /* slots visited by one search, for path compression */
  gsize path_cap;
};

static void
buffer_reserve (Buffer *b, gsize len)
{
  if (len + 1 > b->cap)
    {
      b->cap = MAX (2 * b->cap, len + 1);
      b->str = g_realloc (b->str, b->cap);
    }
}

static guint32
hash_name (const char *s, gsize len)
{
  /* eight bytes at a time, multiply-xorshift mixed */
  const guint64 k = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  guint64 h = len * k;
  for (; len >= 8; s += 8, len -= 8)
    {
      guint64 w;
      memcpy (&w, s, 8);
      h = (h ^ w) * k;
      h ^= h >> 29;
    }
  guint64 w = 0;
  memcpy (&w, s, len);
  h = (h ^ w) * k;
  h ^= h >> 32;
  return (guint32) h;
}

FxsNamespace *
fxs_namespace_new (FxsGraph *graph)
{
  FxsNamespace *ns = g_new0 (FxsNamespace, 1);
  ns->graph = graph;
  ns->mask = 63;
  ns->slots = g_new0 (NameSlot, ns->mask + 1);
  return ns;
}

void
fxs_namespace_free (FxsNamespace *ns)
{
  if (!ns)
    return;
  g_free (ns->slots);
  g_free (ns->candidate.str);
  g_free (ns->probe.str);
  g_free (ns->path);
  g_free (ns);
}

/* The slot of @name, or the empty slot where it would go. */
static NameSlot *
find_slot (const FxsNamespace *ns, const char *name, gsize len, guint32 hash)
{
  gsize i = hash & ns->mask;
  for (;;)
    {
      NameSlot *s = &ns->slots[i];
      if (!s->name || (s->hash == hash && s->len == len && memcmp (s->name, name, len) == 0))
        return s;
      i = (i + 1) & ns->mask;
    }
}

static void
resize (FxsNamespace *ns, gsize capacity)
{
  NameSlot *old = ns->slots;
  gsize old_cap = ns->mask + 1;
  ns->mask = capacity - 1;
  ns->slots = g_new0 (NameSlot, capacity);
  for (gsize i = 0; i < old_cap; i++)
    if (old[i].name)
      {
        gsize j = old[i].hash & ns->mask;
        while (ns->slots[j].name)
          j = (j + 1) & ns->mask;
        ns->slots[j] = old[i];
      }
  g_free (old);
}

void
fxs_namespace_reserve (FxsNamespace *ns, gsize n_names)
{
  gsize capacity = ns->mask + 1;
  while (2 * (ns->size + n_names) > capacity)
    capacity *= 2;
  if (capacity != ns->mask + 1)
    resize (ns, capacity);
}

/* Room for one more name, made before a search so that the slots it
 * finds stay where they are until the name is stored. */
static void
ensure_room (FxsNamespace *ns)
{
  if (2 * (ns->size + 1) > ns->mask + 1)
    resize (ns, 2 * (ns->mask + 1));
}

/* Stores the name in @buf in @slot (the empty slot find_slot gave for it). */
static const char *
fill (FxsNamespace *ns, NameSlot *slot, const Buffer *buf, guint32 hash, guint64 next)
{
  slot->name = fxs_graph_strdup (ns->graph, buf->str);
  slot->hash = hash;
  slot->len = (guint32) buf->len;
  slot->next = next;
  ns->size++;
  return slot->name;
}

static void
path_add (FxsNamespace *ns, gsize *n, NameSlot *slot)
{
  if (*n == ns->path_cap)
    {
      ns->path_cap = ns->path_cap ? 2 * ns->path_cap : 16;
      ns->path = g_renew (NameSlot *, ns->path, ns->path_cap);
    }
  ns->path[(*n)++] = slot;
}

/* The probe buffer holds "<base>_"; appends the digits of @n. */
static void
set_probe_number (Buffer *probe, gsize prefix_len, guint64 n)
{
  char digits[20];
  guint k = 0;
  do
    digits[k++] = (char) ('0' + n % 10);
  while ((n /= 10) != 0);
  for (guint i = 0; i < k; i++)
    probe->str[prefix_len + i] = digits[k - 1 - i];
  probe->len = prefix_len + k;
  probe->str[probe->len] = '\0';
}

/* The first free "<base>_<n>" with n >= @start.  Numbered names are never
 * reserved words, so "free" only means "not taken".  @base_slot is the
 * taken name "<base>" when the search starts at 1, or NULL. */
static const char *
take_numbered (FxsNamespace *ns, const char *base, gsize base_len, guint64 start,
               NameSlot *base_slot)
{
  Buffer *probe = &ns->probe;
  buffer_reserve (probe, base_len + 21);
  memcpy (probe->str, base, base_len);
  probe->str[base_len] = '_';
  guint64 n = base_slot && base_slot->next > start ? base_slot->next : start;
  gsize path_len = 0;
  NameSlot *s;
  guint32 hash;
  for (;;)
    {
      set_probe_number (probe, base_len + 1, n);
      hash = hash_name (probe->str, probe->len);
      s = find_slot (ns, probe->str, probe->len, hash);
      if (!s->name)
        break;
      path_add (ns, &path_len, s);
      n = s->next > n ? s->next : n + 1;
    }
  /* every name on the path now has all numbers up to n taken */
  for (gsize i = 0; i < path_len; i++)
    ns->path[i]->next = n + 1;
  if (base_slot)
    base_slot->next = n + 1;
  return fill (ns, s, probe, hash, n + 1);
}

/* Adds one to a decimal number held as text. */
static void
decimal_increment (GString *digits)
{
  gssize i = (gssize) digits->len - 1;
  while (i >= 0 && digits->str[i] == '9')
    digits->str[i--] = '0';
  if (i >= 0)
    digits->str[i]++;
  else
    g_string_prepend_c (digits, '1');
}

/* The same for numbers beyond 64 bits (Python ints have no limit): a plain
 * scan, as such names only come from hand-written graphs. */
static const char *
take_numbered_big (FxsNamespace *ns, const char *base, gsize base_len, const char *digits)
{
  GString *num = g_string_new (digits);
  Buffer *probe = &ns->probe;
  NameSlot *s;
  guint32 hash;
  for (;;)
    {
      buffer_reserve (probe, base_len + 1 + num->len);
      memcpy (probe->str, base, base_len);
      probe->str[base_len] = '_';
      memcpy (probe->str + base_len + 1, num->str, num->len + 1);
      probe->len = base_len + 1 + num->len;
      hash = hash_name (probe->str, probe->len);
      s = find_slot (ns, probe->str, probe->len, hash);
      if (!s->name)
        break;
      decimal_increment (num);
    }
  g_string_free (num, TRUE);
  return fill (ns, s, probe, hash, 0);
}

static gboolean
is_identifier_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

const char *
fxs_namespace_create_name (FxsNamespace *ns, const char *candidate)
{
  Buffer *c = &ns->candidate;
  /* "_" + re.sub('[^0-9a-zA-Z_]+', '_', candidate) (the "_" only when it
   * starts with a digit).  Bytes work as well as code points: UTF-8
   * sequences consist of non-ASCII bytes only. */
  gsize in_len = strlen (candidate);
  buffer_reserve (c, MAX (in_len + 1, sizeof "_unnamed"));
  gsize len = 0;
  if (g_ascii_isdigit (candidate[0]))
    c->str[len++] = '_';
  for (const char *p = candidate; *p; p++)
    {
      if (is_identifier_char (*p))
        c->str[len++] = *p;
      else if (p == candidate || is_identifier_char (p[-1]))
        c->str[len++] = '_';
    }
  if (len == 0)
    {
      memcpy (c->str, "_unnamed", sizeof "_unnamed");
      len = sizeof "_unnamed" - 1;
    }
  c->str[len] = '\0';
  c->len = len;

  ensure_room (ns);
  /* (.*)_(\d+)$: the digits after the last "_" that is followed by digits only */
  gsize d = len;
  while (d > 0 && g_ascii_isdigit (c->str[d - 1]))
    d--;
  if (d == len || d == 0 || c->str[d - 1] != '_')
    {
      guint32 hash = hash_name (c->str, len);
      NameSlot *s = find_slot (ns, c->str, len, hash);
      if (s->name)
        return take_numbered (ns, c->str, len, 1, s);
      if (fxs_name_is_reserved (c->str))
        return take_numbered (ns, c->str, len, 1, NULL);
      return fill (ns, s, c, hash, 0);
    }

  gsize base_len = d - 1;
  const char *digits = c->str + d;
  while (digits[0] == '0' && digits[1] != '\0')
    digits++;                   /* int("007") == 7 */
  if (strlen (digits) > 19)
    return take_numbered_big (ns, c->str, base_len, digits);
  return take_numbered (ns, c->str, base_len, g_ascii_strtoull (digits, NULL, 10), NULL);
}
