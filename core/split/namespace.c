/* torch.fx 1.13's _Namespace.create_name: the FIRST free "<base>_<n>" at
 * or after the candidate's number.  A linear scan from there would be
 * quadratic on graphs with many nodes of one base ("add", "add_1", ...
 * "add_99999"); see below for how it is not. */
#include "names.h"
#include "model/graph-private.h"

#include <stdatomic.h>
#include <string.h>

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

typedef struct {
  FxsTableHead head;         /* tag: base index + 1 */
  guint64 number;
  guint64 next;
} SparseSlot;

struct FxsNamespace {
  FxsGraph *graph;           /* names live in its arena */
  guint64 epoch;             /* unique per namespace and reset: candidates' hints */
  GArray *base_list;         /* Base */
  FxsTable bases;            /* FxsTableHead: tag is the base index + 1 */
  FxsTable sparse;           /* SparseSlot */
  GHashTable *big;           /* names with numbers beyond 64 bits */
  GPtrArray *path;           /* SparseSlot*: the slots one search visited */
};

static guint32
hash_number (guint32 base, guint64 number)
{
  guint64 h = (number ^ ((guint64) base << 40)) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return (guint32) (h ^ (h >> 31));
}

FxsNamespace *
fxs_namespace_new (FxsGraph *graph)
{
  FxsNamespace *ns = g_new0 (FxsNamespace, 1);
  ns->base_list = g_array_new (FALSE, FALSE, sizeof (Base));
  ns->big = g_hash_table_new (g_str_hash, g_str_equal);
  ns->path = g_ptr_array_new ();
  fxs_table_init (&ns->bases, sizeof (FxsTableHead));
  fxs_table_init (&ns->sparse, sizeof (SparseSlot));
  fxs_namespace_reset (ns, graph);
  return ns;
}

void
fxs_namespace_reset (FxsNamespace *ns, FxsGraph *graph)
{
  static _Atomic guint64 epochs = 1;
  ns->graph = graph;
  ns->epoch = atomic_fetch_add (&epochs, 1);
  g_array_set_size (ns->base_list, 0);
  g_hash_table_remove_all (ns->big);
  fxs_table_reset (&ns->bases);
  fxs_table_reset (&ns->sparse);
}

void
fxs_namespace_free (FxsNamespace *ns)
{
  if (!ns)
    return;
  g_array_free (ns->base_list, TRUE);
  fxs_table_clear (&ns->bases);
  fxs_table_clear (&ns->sparse);
  g_hash_table_unref (ns->big);
  g_ptr_array_free (ns->path, TRUE);
  g_free (ns);
}

/* ---- bases ---- */

static Base *
base_at (const FxsNamespace *ns, guint32 index)
{
  return &g_array_index (ns->base_list, Base, index);
}

/* The index of base @name (@len bytes, hashing to @hash), added when new:
 * a new base keeps pointing to @name. */
G_GNUC_NO_INLINE static guint32
find_base (FxsNamespace *ns, const char *name, gsize len, guint32 hash)
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
  Base b = { name, 1, (guint32) len, 0, FALSE };
  guint32 index = ns->base_list->len;
  g_array_append_val (ns->base_list, b);
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
      b->cursor++;
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
  g_ptr_array_set_size (ns->path, 0);
  SparseSlot *s = NULL;
  for (;;)
    {
      if (n >= 1 && n < b->cursor)
        n = b->cursor;
      if (n == b->cursor && b->sparse_above == 0)
        break;      /* nothing is taken beyond the cursor */
      s = find_sparse (ns, base, n);
      if (!s->head.tag)
        break;
      g_ptr_array_add (ns->path, s);
      n = s->next > n ? s->next : n + 1;
    }
  /* every number on the path up to n is taken now */
  for (guint i = 0; i < ns->path->len; i++)
    ((SparseSlot *) ns->path->pdata[i])->next = n + 1;

  if (n == b->cursor)
    {
      /* the cursor moves on, over numbers taken out of order before */
      b->cursor++;
      while (b->sparse_above && find_sparse (ns, base, b->cursor)->head.tag)
        {
          b->cursor++;
          b->sparse_above--;
        }
      return n;
    }
  /* s is n's empty slot: the search ended there */
  *s = (SparseSlot) { { hash_number (base, n), base + 1 }, n, n + 1 };
  fxs_table_added (&ns->sparse);
  if (n > b->cursor)
    b->sparse_above++;
  return n;
}

/* ---- names ---- */

/* Takes a number of @base from @start on and stores "<base>_<n>" in the
 * graph. */
static const char *
take_numbered (FxsNamespace *ns, guint32 base, guint64 start)
{
  guint64 n = take_number (ns, base, start);
  char digits[24];
  guint k = 0;
  do
    digits[sizeof digits - ++k] = (char) ('0' + n % 10);
  while ((n /= 10) != 0);
  const Base *b = base_at (ns, base);
  char *name = fxs_arena_take (&ns->graph->arena, b->len + 1 + k + 1);
  memcpy (name, b->name, b->len);
  name[b->len] = '_';
  memcpy (name + b->len + 1, digits + sizeof digits - k, k);
  name[b->len + 1 + k] = '\0';
  return name;
}

/* Numbers beyond 64 bits (Python ints have no limit) cannot meet the
 * others: a plain scan over a string set, as such names only come from
 * hand-written graphs. */
G_GNUC_NO_INLINE static const char *
take_big (FxsNamespace *ns, const char *base, gsize base_len, const char *digits)
{
  GString *name = g_string_new_len (base, (gssize) base_len);
  g_string_append_c (name, '_');
  g_string_append (name, digits);
  gsize first = base_len + 1;   /* the number's first digit */
  while (g_hash_table_contains (ns->big, name->str))
    {
      /* one more, in decimal */
      gsize i = name->len;
      while (i > first && name->str[i - 1] == '9')
        name->str[--i] = '0';
      if (i > first)
        name->str[i - 1]++;
      else
        g_string_insert_c (name, (gssize) first, '1');
    }
  const char *taken = fxs_arena_strndup (&ns->graph->arena, name->str, name->len);
  g_hash_table_add (ns->big, (gpointer) taken);
  g_string_free (name, TRUE);
  return taken;
}

const char *
fxs_namespace_create_name_from (FxsNamespace *ns, FxsNameCandidate *c)
{
  if (c->form == FXS_NAME_BIG)
    return take_big (ns, c->text, c->base_len, c->digits);
  guint32 base;
  if (c->hint_epoch == ns->epoch)
    base = c->hint_base;
  else
    {
      base = find_base (ns, c->text, c->base_len, c->hash);
      c->hint_epoch = ns->epoch;
      c->hint_base = base;
    }
  if (c->form == FXS_NAME_NUMBERED)
    return take_numbered (ns, base, c->number);
  Base *b = base_at (ns, base);
  if (!b->plain_taken && !fxs_name_is_reserved (c->text))
    {
      b->plain_taken = TRUE;
      return c->text;
    }
  return take_numbered (ns, base, 1);
}

const char *
fxs_namespace_create_name (FxsNamespace *ns, const char *candidate)
{
  /* the candidate's text in the graph: it may become the name */
  FxsNameCandidate c;
  fxs_name_candidate_init (&c, candidate, &ns->graph->arena);
  return fxs_namespace_create_name_from (ns, &c);
}
