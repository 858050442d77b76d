/* _Namespace.create_name of torch 1.13, with add_global's objects.
 *
 * create_name takes the first free "<base>_<n>" at or after the
 * candidate's number.  Every base keeps a cursor below which all numbered
 * names are known to be taken, so asking again and again for "add" stays
 * linear; a probe above the cursor only happens when a global and a node
 * want the same name, which is rare and short. */
#include "pynamespace.h"
#include "pynames.h"

#include <stdio.h>
#include <string.h>

/* Numbers longer than this are handled as decimal strings (Python's ints
 * have no limit). */
#define MAX_SMALL_DIGITS 18

struct FxsPyNamespace {
  GStringChunk *strings;
  GHashTable *used;      /* name -> name, the names given out */
  GHashTable *globals;   /* key -> name */
  GHashTable *cursors;   /* base -> n: every "<base>_<k>" with 1 <= k < n is taken */
  GString *name;         /* scratch */
  GString *base;         /* scratch */
};

FxsPyNamespace *
fxs_py_namespace_new (void)
{
  FxsPyNamespace *ns = g_new0 (FxsPyNamespace, 1);
  ns->strings = g_string_chunk_new (4096);
  ns->used = g_hash_table_new (g_str_hash, g_str_equal);
  ns->globals = g_hash_table_new (g_str_hash, g_str_equal);
  ns->cursors = g_hash_table_new (g_str_hash, g_str_equal);
  ns->name = g_string_new (NULL);
  ns->base = g_string_new (NULL);
  return ns;
}

void
fxs_py_namespace_free (FxsPyNamespace *ns)
{
  if (!ns)
    return;
  g_hash_table_unref (ns->used);
  g_hash_table_unref (ns->globals);
  g_hash_table_unref (ns->cursors);
  g_string_chunk_free (ns->strings);
  g_string_free (ns->name, TRUE);
  g_string_free (ns->base, TRUE);
  g_free (ns);
}

static gboolean
is_used (const FxsPyNamespace *ns, const char *name)
{
  return g_hash_table_contains (ns->used, name);
}

/* _is_illegal_name: keywords always; builtins and custom builtins unless
 * the object is that very builtin. */
static gboolean
is_illegal (const char *name, const char *builtin_name)
{
  if (fxs_py_is_keyword (name))
    return TRUE;
  if (fxs_py_is_builtin (name) || fxs_py_is_custom_builtin (name))
    return !(builtin_name && strcmp (name, builtin_name) == 0);
  return FALSE;
}

static const char *
take (FxsPyNamespace *ns, const char *name)
{
  const char *kept = g_string_chunk_insert (ns->strings, name);
  g_hash_table_add (ns->used, (gpointer) kept);
  return kept;
}

/* Illegal characters (runs of them) become "_", a leading digit gets "_". */
static void
sanitize (const char *candidate, GString *out)
{
  g_string_truncate (out, 0);
  gboolean in_run = FALSE;
  for (const char *p = candidate; *p; p++)
    {
      if (g_ascii_isalnum (*p) || *p == '_')
        {
          g_string_append_c (out, *p);
          in_run = FALSE;
        }
      else if (!in_run)
        {
          g_string_append_c (out, '_');
          in_run = TRUE;
        }
    }
  /* torch 1.13 fails on an empty candidate; later versions use this. */
  if (out->len == 0)
    g_string_assign (out, "_unnamed");
  else if (g_ascii_isdigit (out->str[0]))
    g_string_prepend_c (out, '_');
}

/* The position of the "_" of a "_<digits>" suffix, or -1. */
static gssize
suffix_start (const GString *s)
{
  const char *underscore = strrchr (s->str, '_');
  if (!underscore || underscore[1] == '\0')
    return -1;
  for (const char *p = underscore + 1; *p; p++)
    if (!g_ascii_isdigit (*p))
      return -1;
  return underscore - s->str;
}

static void
format_numbered (GString *out, const char *base, guint64 n)
{
  g_string_printf (out, "%s_%" G_GUINT64_FORMAT, base, n);
}

static guint64
cursor_of (const FxsPyNamespace *ns, const char *base)
{
  gpointer value = g_hash_table_lookup (ns->cursors, base);
  return value ? (guint64) GPOINTER_TO_SIZE (value) : 1;
}

/* Takes "<base>_<n>" (free) and moves the base's cursor past taken names. */
static const char *
take_numbered (FxsPyNamespace *ns, const char *base, guint64 n)
{
  format_numbered (ns->name, base, n);
  const char *kept = take (ns, ns->name->str);
  guint64 cursor = cursor_of (ns, base);
  if (n == cursor)
    {
      do
        {
          cursor++;
          format_numbered (ns->name, base, cursor);
        }
      while (is_used (ns, ns->name->str));
      const char *key = g_string_chunk_insert_const (ns->strings, base);
      g_hash_table_replace (ns->cursors, (gpointer) key, GSIZE_TO_POINTER ((gsize) cursor));
    }
  return kept;
}

/* The first free "<base>_<k>" with k >= @start. */
static const char *
probe_small (FxsPyNamespace *ns, const char *base, guint64 start, const char *builtin_name)
{
  guint64 k = MAX (start, cursor_of (ns, base));
  for (;; k++)
    {
      format_numbered (ns->name, base, k);
      if (!is_used (ns, ns->name->str) && !is_illegal (ns->name->str, builtin_name))
        return take_numbered (ns, base, k);
    }
}

/* Adds one to a decimal number string. */
static void
decimal_increment (GString *digits)
{
  gssize i = (gssize) digits->len - 1;
  for (; i >= 0 && digits->str[i] == '9'; i--)
    digits->str[i] = '0';
  if (i < 0)
    g_string_prepend_c (digits, '1');
  else
    digits->str[i]++;
}

/* A suffix too long for 64 bits: the first free "<base>_<d>" from d on. */
static const char *
probe_big (FxsPyNamespace *ns, const char *base, const char *digits, const char *builtin_name)
{
  GString *d = g_string_new (digits);
  for (;;)
    {
      g_string_printf (ns->name, "%s_%s", base, d->str);
      if (!is_used (ns, ns->name->str) && !is_illegal (ns->name->str, builtin_name))
        break;
      decimal_increment (d);
    }
  g_string_free (d, TRUE);
  return take (ns, ns->name->str);
}

static const char *
create_name (FxsPyNamespace *ns, const char *candidate, const char *builtin_name)
{
  sanitize (candidate, ns->name);
  gssize cut = suffix_start (ns->name);
  if (cut < 0)
    {
      if (!is_used (ns, ns->name->str) && !is_illegal (ns->name->str, builtin_name))
        return take (ns, ns->name->str);
      g_string_assign (ns->base, ns->name->str);
      return probe_small (ns, ns->base->str, 1, builtin_name);
    }

  g_string_assign (ns->base, ns->name->str);
  g_string_truncate (ns->base, (gsize) cut);
  /* int() of the digits: no leading zeros */
  const char *digits = ns->name->str + cut + 1;
  while (digits[0] == '0' && digits[1] != '\0')
    digits++;
  if (strlen (digits) > MAX_SMALL_DIGITS)
    {
      char *copy = g_strdup (digits);
      const char *name = probe_big (ns, ns->base->str, copy, builtin_name);
      g_free (copy);
      return name;
    }
  guint64 n = g_ascii_strtoull (digits, NULL, 10);
  format_numbered (ns->name, ns->base->str, n);
  if (!is_used (ns, ns->name->str) && !is_illegal (ns->name->str, builtin_name))
    return take_numbered (ns, ns->base->str, n);
  return probe_small (ns, ns->base->str, n + 1, builtin_name);
}

const char *
fxs_py_namespace_create_name (FxsPyNamespace *ns, const char *candidate)
{
  return create_name (ns, candidate, NULL);
}

const char *
fxs_py_namespace_global (FxsPyNamespace *ns, const char *key, const char *hint,
                         const char *builtin_name)
{
  const char *name = g_hash_table_lookup (ns->globals, key);
  if (name)
    return name;
  name = create_name (ns, hint, builtin_name);
  g_hash_table_insert (ns->globals, (gpointer) g_string_chunk_insert_const (ns->strings, key),
                       (gpointer) name);
  return name;
}
