/* torch.fx 1.13 node naming: _target_to_str, _snake_case, create_name.
 *
 * create_name takes the FIRST free "<base>_<n>" at or after the candidate's
 * number.  A linear scan from there would be quadratic on graphs with many
 * nodes of one base ("add", "add_1", ... "add_99999"), so every taken
 * numbered name remembers a number up to which all names of its base are
 * known to be taken (a union-find "next free" pointer with path
 * compression).  Names are never removed, so the pointers never go stale. */
#include "names.h"
#include "model/graph-private.h"

#include <stdatomic.h>
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

/* reserved_names as a set, made on first use (kept for the process): one
 * hash and one comparison per question. */
#define RESERVED_MAX_LEN 25     /* the longest one */
/* table.h entries: (hash, index in reserved_names + 1) */
static FxsTable reserved_set;
/* per length, the first characters of reserved names of that length (a
 * bit per ASCII character): most names are told apart without hashing */
static guint64 reserved_starts[RESERVED_MAX_LEN + 1][2];

static const FxsTable *
reserved_table (void)
{
  static gsize ready = 0;
  if (g_once_init_enter (&ready))
    {
      fxs_table_init (&reserved_set, sizeof (FxsTableHead));
      fxs_table_reserve (&reserved_set, G_N_ELEMENTS (reserved_names));
      for (guint i = 0; i < G_N_ELEMENTS (reserved_names); i++)
        {
          const char *r = reserved_names[i];
          gsize len = strlen (r);
          g_assert (len <= RESERVED_MAX_LEN && (guchar) r[0] < 128);
          reserved_starts[len][r[0] >> 6] |= G_GUINT64_CONSTANT (1) << (r[0] & 63);
          ((FxsTableHead *) fxs_table_add (&reserved_set, fxs_name_hash (r, len)))->tag = i + 1;
        }
      g_once_init_leave (&ready, 1);
    }
  return &reserved_set;
}

static gboolean
is_reserved_len (const char *name, gsize len)
{
  if (len < 2 || len > RESERVED_MAX_LEN)     /* the shortest is "as" */
    return FALSE;
  const FxsTable *set = reserved_table ();
  guchar first = (guchar) name[0];
  if (first >= 128 || !(reserved_starts[len][first >> 6] & (G_GUINT64_CONSTANT (1) << (first & 63))))
    return FALSE;
  guint32 hash = fxs_name_hash (name, len);
  for (gsize k = fxs_table_start (set, hash);; k = fxs_table_step (set, k))
    {
      const FxsTableHead *e = fxs_table_at (set, k);
      if (!e->tag)
        return FALSE;
      const char *r = reserved_names[e->tag - 1];
      if (e->hash == hash && strncmp (r, name, len) == 0 && r[len] == '\0')
        return TRUE;
    }
}

gboolean
fxs_name_is_reserved (const char *name)
{
  return is_reserved_len (name, strlen (name));
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
  /* ASCII, the usual case, straight into the buffer (at most one "_" per
   * character) */
  gsize ascii = 0;
  while ((guchar) p[ascii] - 1u < 0x7fu)
    ascii++;
  if (ascii)
    {
      gsize start = out->len;
      g_string_set_size (out, start + 2 * ascii);
      char *o = out->str + start;
      for (gsize i = 0; i < ascii; i++)
        {
          char a = p[i];
          gboolean upper = a >= 'A' && a <= 'Z';
          if (prev_lower && upper)
            *o++ = '_';
          *o++ = upper ? (char) (a + ('a' - 'A')) : a;
          prev_lower = a >= 'a' && a <= 'z';
        }
      g_string_truncate (out, (gsize) (o - out->str));
      p += ascii;
    }
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

/* ---- the namespace -------------------------------------------------------- *
 *
 * A name is either plain ("relu": no "_<digits>" suffix) or numbered
 * ("relu_3": base "relu", number 3); create_name only ever takes canonical
 * numbered names (no leading zeros), so a name is exactly a (base, number)
 * pair.  Per base the namespace keeps whether the plain name is taken and a
 * cursor: every number in [1, cursor) is taken.  Numbers taken beyond the
 * cursor (explicit names, or 0) sit in one sparse table with "next" links:
 * every number in [own, next) is taken.  Generated names (most of them)
 * only move a cursor and never touch a big table, which keeps this fast on
 * graphs of millions of nodes.
 *
 * Both tables are table.h tables: fxs_namespace_reset() empties them in
 * time proportional to what they held, so that a namespace reused for many
 * small graphs costs little per graph. */

typedef struct {
  const char *name;          /* len bytes, not NUL-terminated */
  guint64 cursor;            /* >= 1 */
  guint32 len;
  guint32 sparse_above;      /* sparse entries of this base above the cursor */
  gboolean plain_taken;
} Base;

/* 256 KiB: one block of bases */
#define BASE_CHUNK 8192

/* bases: head.tag is the base index + 1 */

typedef struct {
  FxsTableHead head;         /* tag: base index + 1 */
  guint64 number;
  guint64 next;
} SparseSlot;

/* A growable text buffer (cheaper than GString on this hot path). */
typedef struct {
  char *str;
  gsize len;
  gsize cap;
} Buffer;

struct FxsNamespace {
  FxsGraph *graph;
  FxsNameAllocFunc alloc;    /* where names go; NULL: the graph's arena */
  gpointer alloc_data;
  guint64 epoch;             /* unique per namespace and reset: candidates' hints */
  /* bases in chunks of BASE_CHUNK (never moved: a growing array would
   * copy, touching twice the memory) */
  Base **base_chunks;
  guint32 n_bases;
  guint32 n_base_chunks;
  GStringChunk *base_names;  /* bases that came from fxs_namespace_create_name */
  FxsTable bases;            /* FxsTableHead */
  FxsTable sparse;           /* SparseSlot */
  GHashTable *big;           /* names with numbers beyond 64 bits, or NULL */
  Buffer candidate;
  Buffer name;
  SparseSlot **path;         /* sparse slots one search visited */
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
hash_number (guint32 base, guint64 number)
{
  guint64 h = (number ^ ((guint64) base << 40)) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return (guint32) (h ^ (h >> 31));
}

static guint64
next_epoch (void)
{
  static _Atomic guint64 epochs = 1;
  return atomic_fetch_add (&epochs, 1);
}

FxsNamespace *
fxs_namespace_new (FxsGraph *graph)
{
  FxsNamespace *ns = g_new0 (FxsNamespace, 1);
  ns->graph = graph;
  ns->epoch = next_epoch ();
  fxs_table_init (&ns->bases, sizeof (FxsTableHead));
  fxs_table_init (&ns->sparse, sizeof (SparseSlot));
  return ns;
}

void
fxs_namespace_reset (FxsNamespace *ns, FxsGraph *graph, FxsNameAllocFunc alloc,
                     gpointer alloc_data)
{
  ns->graph = graph;
  ns->alloc = alloc;
  ns->alloc_data = alloc_data;
  ns->epoch = next_epoch ();
  ns->n_bases = 0;
  if (ns->base_names)
    g_string_chunk_clear (ns->base_names);
  if (ns->big)
    g_hash_table_remove_all (ns->big);
  fxs_table_reset (&ns->bases);
  fxs_table_reset (&ns->sparse);
}

void
fxs_namespace_free (FxsNamespace *ns)
{
  if (!ns)
    return;
  for (guint32 i = 0; i < ns->n_base_chunks; i++)
    g_free (ns->base_chunks[i]);
  g_free (ns->base_chunks);
  if (ns->base_names)
    g_string_chunk_free (ns->base_names);
  fxs_table_clear (&ns->bases);
  fxs_table_clear (&ns->sparse);
  if (ns->big)
    g_hash_table_unref (ns->big);
  g_free (ns->candidate.str);
  g_free (ns->name.str);
  g_free (ns->path);
  g_free (ns);
}

/* Memory for a name, as long-lived as the namespace's graph. */
static char *
name_memory (FxsNamespace *ns, gsize size)
{
  return ns->alloc ? ns->alloc (ns->alloc_data, size) : fxs_arena_alloc (&ns->graph->arena, size);
}

/* A copy of @len bytes of @s that lives as long as the namespace's graph. */
static const char *
graph_strndup (FxsNamespace *ns, const char *s, gsize len)
{
  char *copy = name_memory (ns, len + 1);
  memcpy (copy, s, len);
  copy[len] = '\0';
  return copy;
}

/* ---- bases ---- */

static Base *
base_at (const FxsNamespace *ns, guint32 index)
{
  return &ns->base_chunks[index / BASE_CHUNK][index % BASE_CHUNK];
}

/* The index of base @name (@len bytes, hashing to @hash), added when new;
 * a new base keeps @name itself when @keep, else a copy. */
G_GNUC_NO_INLINE static guint32
find_base (FxsNamespace *ns, const char *name, gsize len, guint32 hash, gboolean keep)
{
  for (gsize i = fxs_table_start (&ns->bases, hash);; i = fxs_table_step (&ns->bases, i))
    {
      const FxsTableHead *slot = fxs_table_at (&ns->bases, i);
      if (!slot->tag)
        break;
      const Base *b = base_at (ns, slot->tag - 1);
      if (slot->hash == hash && b->len == len && memcmp (b->name, name, len) == 0)
        return slot->tag - 1;
    }
  if (!keep)
    {
      if (!ns->base_names)
        ns->base_names = g_string_chunk_new (1024);
      name = g_string_chunk_insert_len (ns->base_names, name, (gssize) len);
    }
  Base b = { name, 1, (guint32) len, 0, FALSE };
  guint32 index = ns->n_bases++;
  if (index / BASE_CHUNK == ns->n_base_chunks)
    {
      ns->base_chunks = g_renew (Base *, ns->base_chunks, ns->n_base_chunks + 1);
      ns->base_chunks[ns->n_base_chunks++] = g_malloc (BASE_CHUNK * sizeof (Base));
    }
  *base_at (ns, index) = b;
  ((FxsTableHead *) fxs_table_add (&ns->bases, hash))->tag = index + 1;
  return index;
}

/* ---- numbers taken out of order ---- */

/* The slot of (@base, @number): its entry, or the empty slot where it
 * would go. */
static SparseSlot *
find_sparse (const FxsNamespace *ns, guint32 base, guint64 number)
{
  guint32 hash = hash_number (base, number);
  for (gsize i = fxs_table_start (&ns->sparse, hash);; i = fxs_table_step (&ns->sparse, i))
    {
      SparseSlot *s = fxs_table_at (&ns->sparse, i);
      if (!s->head.tag || (s->head.tag == base + 1 && s->number == number))
        return s;
    }
}

static gboolean
sparse_live (const SparseSlot *s)
{
  return s->head.tag != 0;
}

static void
path_add (FxsNamespace *ns, gsize *n, SparseSlot *slot)
{
  if (*n == ns->path_cap)
    {
      ns->path_cap = ns->path_cap ? 2 * ns->path_cap : 16;
      ns->path = g_renew (SparseSlot *, ns->path, ns->path_cap);
    }
  ns->path[(*n)++] = slot;
}

static void
advance_cursor (Base *b)
{
  b->cursor++;
}

static guint64 take_number_sparse (FxsNamespace *ns, guint32 base, guint64 start);

/* Takes the first free number >= @start of @base and returns it. */
static inline guint64
take_number (FxsNamespace *ns, guint32 base, guint64 start)
{
  Base *b = base_at (ns, base);
  /* the usual case: the cursor, with nothing taken beyond it */
  if (start <= b->cursor && start >= 1 && b->sparse_above == 0)
    {
      guint64 n = b->cursor;
      advance_cursor (b);
      return n;
    }
  return take_number_sparse (ns, base, start);
}

/* take_number() when numbers beyond the cursor are involved: out of line,
 * which keeps the usual case small. */
G_GNUC_NO_INLINE static guint64
take_number_sparse (FxsNamespace *ns, guint32 base, guint64 start)
{
  Base *b = base_at (ns, base);
  /* room first, so that the slots found below stay put */
  fxs_table_room (&ns->sparse);
  guint64 n = start;
  gsize path_len = 0;
  SparseSlot *s;
  for (;;)
    {
      if (n >= 1 && n < b->cursor)
        n = b->cursor;
      if (n == b->cursor && b->sparse_above == 0)
        {
          s = NULL;     /* nothing is taken beyond the cursor */
          break;
        }
      s = find_sparse (ns, base, n);
      if (!sparse_live (s))
        break;
      path_add (ns, &path_len, s);
      n = s->next > n ? s->next : n + 1;
    }
  /* every number on the path up to n is taken now */
  for (gsize i = 0; i < path_len; i++)
    ns->path[i]->next = n + 1;

  if (n == b->cursor)
    {
      /* the cursor moves on, over numbers taken out of order before */
      advance_cursor (b);
      while (b->sparse_above && sparse_live (find_sparse (ns, base, b->cursor)))
        {
          advance_cursor (b);
          b->sparse_above--;
        }
      return n;
    }
  if (!s)
    s = find_sparse (ns, base, n);
  *s = (SparseSlot) { { hash_number (base, n), base + 1 }, n, n + 1 };
  fxs_table_added (&ns->sparse);
  if (n > b->cursor)
    b->sparse_above++;
  return n;
}

/* ---- names ---- */

static const char digit_pairs[] =
  "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
  "8081828384858687888990919293949596979899";

/* The number of decimal digits of @n, without dividing: from its bit
 * length (1233 / 4096 ~ log10(2)), corrected by one comparison. */
static guint
decimal_length (guint64 n)
{
  static const guint64 powers[20] = {
    G_GUINT64_CONSTANT (1), G_GUINT64_CONSTANT (10), G_GUINT64_CONSTANT (100),
    G_GUINT64_CONSTANT (1000), G_GUINT64_CONSTANT (10000), G_GUINT64_CONSTANT (100000),
    G_GUINT64_CONSTANT (1000000), G_GUINT64_CONSTANT (10000000),
    G_GUINT64_CONSTANT (100000000), G_GUINT64_CONSTANT (1000000000),
    G_GUINT64_CONSTANT (10000000000), G_GUINT64_CONSTANT (100000000000),
    G_GUINT64_CONSTANT (1000000000000), G_GUINT64_CONSTANT (10000000000000),
    G_GUINT64_CONSTANT (100000000000000), G_GUINT64_CONSTANT (1000000000000000),
    G_GUINT64_CONSTANT (10000000000000000), G_GUINT64_CONSTANT (100000000000000000),
    G_GUINT64_CONSTANT (1000000000000000000), G_GUINT64_CONSTANT (10000000000000000000),
  };
#if defined(__GNUC__) || defined(__clang__)
  guint bits = 64 - (guint) __builtin_clzll (n | 1);
#else
  guint bits = 1;
  for (guint64 m = n >> 1; m; m >>= 1)
    bits++;
#endif
  guint t = (bits * 1233) >> 12;
  return t + ((n | 1) >= powers[t]);
}

/* Takes a number of @base from @start on and stores "<base>_<n>" in the
 * graph. */
static const char *
take_numbered (FxsNamespace *ns, guint32 base, guint64 start)
{
  guint64 n = take_number (ns, base, start);
  guint k = decimal_length (n);
  /* written in place, digits from the end: the name's length is known */
  const Base *b = base_at (ns, base);
  char *name = name_memory (ns, b->len + 1 + k + 1);
  memcpy (name, b->name, b->len);
  name[b->len] = '_';
  char *d = name + b->len + 1 + k;
  *d = '\0';
  /* two digits per division */
  for (; n >= 100; n /= 100)
    {
      d -= 2;
      memcpy (d, digit_pairs + 2 * (n % 100), 2);
    }
  if (n >= 10)
    memcpy (d - 2, digit_pairs + 2 * n, 2);
  else
    d[-1] = (char) ('0' + n);
  return name;
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

/* Numbers beyond 64 bits (Python ints have no limit) cannot meet the
 * others: a plain scan over a string set, as such names only come from
 * hand-written graphs. */
G_GNUC_NO_INLINE static const char *
take_big (FxsNamespace *ns, const char *base, gsize base_len, const char *digits)
{
  if (!ns->big)
    ns->big = g_hash_table_new (g_str_hash, g_str_equal);
  GString *name = g_string_new (NULL);
  GString *num = g_string_new (digits);
  for (;;)
    {
      g_string_truncate (name, 0);
      g_string_append_len (name, base, (gssize) base_len);
      g_string_append_c (name, '_');
      g_string_append_len (name, num->str, (gssize) num->len);
      if (!g_hash_table_contains (ns->big, name->str))
        break;
      decimal_increment (num);
    }
  const char *taken = graph_strndup (ns, name->str, name->len);
  g_hash_table_add (ns->big, (gpointer) taken);
  g_string_free (name, TRUE);
  g_string_free (num, TRUE);
  return taken;
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

/* Room clean_into() may need for @candidate of @len bytes. */
static gsize
clean_size (gsize len)
{
  return MAX (len + 2, sizeof "_unnamed");
}

static gsize
clean_candidate (const char *candidate, Buffer *c)
{
  buffer_reserve (c, clean_size (strlen (candidate)));
  c->len = clean_into (candidate, c->str);
  return c->len;
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
  char *text = alloc (alloc_data, clean_size (strlen (candidate)));
  c->len = (guint32) clean_into (candidate, text);
  c->text = text;
  analyse_candidate (c);
}

/* create_name for an analysed candidate; a new base keeps pointing into
 * the candidate's text when @keep_text, and a plain name is that text. */
static const char *
create_name (FxsNamespace *ns, FxsNameCandidate *c, gboolean keep_text)
{
  if (c->form == FXS_NAME_BIG)
    return take_big (ns, c->text, c->base_len, c->digits);
  guint32 base;
  if (c->hint_epoch == ns->epoch)
    base = c->hint_base;
  else
    {
      base = find_base (ns, c->text, c->base_len, c->hash, keep_text);
      c->hint_epoch = ns->epoch;
      c->hint_base = base;
    }
  if (c->form == FXS_NAME_NUMBERED)
    return take_numbered (ns, base, c->number);
  Base *b = base_at (ns, base);
  if (!b->plain_taken && !is_reserved_len (c->text, c->len))
    {
      b->plain_taken = TRUE;
      return keep_text ? c->text : graph_strndup (ns, c->text, c->len);
    }
  return take_numbered (ns, base, 1);
}

const char *
fxs_namespace_create_name_from (FxsNamespace *ns, FxsNameCandidate *candidate)
{
  return create_name (ns, candidate, TRUE);
}

const char *
fxs_namespace_create_name (FxsNamespace *ns, const char *candidate)
{
  FxsNameCandidate c;
  c.len = (guint32) clean_candidate (candidate, &ns->candidate);
  c.text = ns->candidate.str;
  analyse_candidate (&c);
  return create_name (ns, &c, FALSE);
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
