/* The generated module: a docstring, the runtime (runtime.py, embedded at
 * build time), then data only: the qualname map, the code texts and one
 * tuple per node.  Data rather than one statement per node keeps the file
 * linear, readable and free of name clashes between nodes and the
 * runtime's own names. */
#include "module-writer.h"
#include "codegen.h"
#include "pyrepr.h"

#include <fxsplit/error.h>
#include <string.h>

/* From runtime.py, by embed-text.py. */
extern const char *const fxs_py_runtime_lines[];

/* Text is gathered here and written out in chunks of about this size. */
#define FLUSH_SIZE (1u << 20)

typedef struct {
  FILE *file;
  GString *buf;
} Writer;

static void
maybe_flush (Writer *w, gboolean force)
{
  if (w->buf->len >= FLUSH_SIZE || (force && w->buf->len))
    {
      fwrite (w->buf->str, 1, w->buf->len, w->file);
      g_string_truncate (w->buf, 0);
    }
}

static void
append_str (GString *out, const char *s)
{
  fxs_py_repr_string (s, strlen (s), out);
}

/* ---- values as Python literals ------------------------------------------------ */

static void
append_node_ref (const FxsNode *node, gpointer data, GString *out)
{
  (void) data;
  g_string_append (out, "_R(");
  append_str (out, fxs_node_name (node));
  g_string_append_c (out, ')');
}

static void
append_opaque (const FxsValue *value, gpointer data, GString *out)
{
  (void) data;
  g_string_append (out, "_O(");
  append_str (out, fxs_value_get_opaque_type (value));
  g_string_append (out, ", ");
  append_str (out, fxs_value_get_opaque_repr (value));
  g_string_append_c (out, ')');
}

static const FxsPyReprHooks literal_hooks = { append_node_ref, append_opaque, NULL };

/* ---- sections -------------------------------------------------------------------- */

static void
write_header (Writer *w, const FxsSplitResult *result)
{
  guint n = fxs_split_result_n_partitions (result);
  g_string_append_printf (w->buf,
    "\"\"\"A torch.fx split module, written by fxsplit's python output.\n"
    "\n"
    "build(original_module) returns it as a torch.fx.GraphModule that calls\n"
    "%u submodule%s (", n, n == 1 ? "" : "s");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (w->buf, "%s%s", i ? ", " : "",
                            fxs_partition_submod_name (fxs_split_result_partition (result, i)));
  g_string_append (w->buf,
    ") and uses the parameters,\n"
    "buffers and submodules of the module that was split; CODE holds the\n"
    "forward code of every graph as torch.fx 1.13 prints GraphModule.code.\n"
    "\"\"\"\n");
  for (const char *const *line = fxs_py_runtime_lines; *line; line++)
    g_string_append (w->buf, *line);
}

static void
write_qualname_map (Writer *w, const FxsSplitResult *result)
{
  g_string_append (w->buf, "\n\nQUALNAME_MAP = {\n");
  for (guint i = 0; i < fxs_split_result_n_qualnames (result); i++)
    {
      const char *new_name, *old_name;
      fxs_split_result_qualname (result, i, &new_name, &old_name);
      g_string_append (w->buf, "    ");
      append_str (w->buf, new_name);
      g_string_append (w->buf, ": ");
      append_str (w->buf, old_name);
      g_string_append (w->buf, ",\n");
      maybe_flush (w, FALSE);
    }
  g_string_append (w->buf, "}\n");
}

/* CODE[label] = ( 'line\n' ... ), one literal per line of the text. */
static gboolean
write_code (Writer *w, const char *label, const FxsGraph *graph, GError **error)
{
  GString *code = g_string_new (NULL);
  if (!fxs_py_codegen (graph, code, error))
    {
      g_prefix_error (error, "%s: ", *label ? label : "the top-level graph");
      g_string_free (code, TRUE);
      return FALSE;
    }
  g_string_append (w->buf, "\nCODE[");
  append_str (w->buf, label);
  g_string_append (w->buf, "] = (\n");
  const char *line = code->str, *end = code->str + code->len;
  while (line < end)
    {
      const char *nl = memchr (line, '\n', (gsize) (end - line));
      gsize len = nl ? (gsize) (nl + 1 - line) : (gsize) (end - line);
      g_string_append (w->buf, "    ");
      fxs_py_repr_string (line, len, w->buf);
      g_string_append_c (w->buf, '\n');
      line += len;
      maybe_flush (w, FALSE);
    }
  g_string_append (w->buf, ")\n");
  g_string_free (code, TRUE);
  return TRUE;
}

static void
write_node (Writer *w, const FxsNode *node)
{
  GString *b = w->buf;
  g_string_append (b, "    (");
  append_str (b, fxs_op_to_string (fxs_node_op (node)));
  g_string_append (b, ", ");
  append_str (b, fxs_node_name (node));
  g_string_append (b, ", ");
  append_str (b, fxs_node_target (node));
  g_string_append (b, ", ");
  fxs_py_repr_value (fxs_node_args (node), &literal_hooks, b);
  g_string_append (b, ", ");
  fxs_py_repr_value (fxs_node_kwargs (node), &literal_hooks, b);
  g_string_append (b, ", ");
  if (fxs_node_type (node))
    append_str (b, fxs_node_type (node));
  else
    g_string_append (b, "None");
  g_string_append (b, fxs_py_node_is_wrapped (node) ? ", True),\n" : ", False),\n");
}

/* ([nodes], [the get_attr and call_module targets, first use first]) */
static void
write_graph (Writer *w, const FxsGraph *graph)
{
  g_string_append (w->buf, "([\n");
  GPtrArray *targets = g_ptr_array_new ();
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < fxs_graph_n_nodes (graph); i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      write_node (w, node);
      maybe_flush (w, FALSE);
      FxsOp op = fxs_node_op (node);
      if ((op == FXS_OP_GET_ATTR || op == FXS_OP_CALL_MODULE)
          && g_hash_table_add (seen, (gpointer) fxs_node_target (node)))
        g_ptr_array_add (targets, (gpointer) fxs_node_target (node));
    }
  g_string_append (w->buf, "], [\n");
  for (guint i = 0; i < targets->len; i++)
    {
      g_string_append (w->buf, "    ");
      append_str (w->buf, targets->pdata[i]);
      g_string_append (w->buf, ",\n");
    }
  g_string_append (w->buf, "])\n");
  g_hash_table_unref (seen);
  g_ptr_array_unref (targets);
}

gboolean
fxs_py_write_module (const FxsSplitResult *result, FILE *out, GError **error)
{
  Writer w = { out, g_string_sized_new (FLUSH_SIZE + 4096) };
  const FxsGraph *top = fxs_split_result_top (result);
  guint n = fxs_split_result_n_partitions (result);
  gboolean ok = TRUE;

  write_header (&w, result);
  write_qualname_map (&w, result);

  g_string_append (w.buf, "\nCODE = {}\n");
  ok = write_code (&w, "", top, error);
  for (guint i = 0; ok && i < n; i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      ok = write_code (&w, fxs_partition_submod_name (p), fxs_partition_graph (p), error);
    }

  if (ok)
    {
      g_string_append (w.buf, "\n_SUBMODULES = {}\n");
      for (guint i = 0; i < n; i++)
        {
          const FxsPartition *p = fxs_split_result_partition (result, i);
          g_string_append (w.buf, "\n_SUBMODULES[");
          append_str (w.buf, fxs_partition_submod_name (p));
          g_string_append (w.buf, "] = ");
          write_graph (&w, fxs_partition_graph (p));
        }
      g_string_append (w.buf, "\n_TOP = ");
      write_graph (&w, top);
      maybe_flush (&w, TRUE);
    }
  g_string_free (w.buf, TRUE);
  return ok;
}
