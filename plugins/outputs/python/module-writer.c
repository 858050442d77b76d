/* The generated module: a docstring, the decoder and the runtime
 * (python/fxsplit_torch/decode.py and runtime.py, embedded at build time),
 * then data only: the qualname map, the code texts and one
 * line of JSON per node.  Data rather than one statement per node keeps
 * the file linear, readable and free of name clashes between nodes and
 * the runtime's own names; JSON in raw strings rather than Python literals
 * because Python compiles a literal per node slowly (about 0.1 ms and 12 KB
 * per node, measured) while json.loads reads the text quickly. */
#include "module-writer.h"
#include "codegen.h"
#include "json-literal.h"
#include "pyrepr.h"

#include <fxsplit/error.h>
#include <string.h>

/* From decode.py and runtime.py, by embed-text.py. */
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

/* ---- sections -------------------------------------------------------------------- */

static void
write_header (Writer *w, const FxsSplitResult *result)
{
  /* no names here: a partition affix may hold any character */
  guint n = fxs_split_result_n_partitions (result);
  g_string_append_printf (w->buf,
    "\"\"\"A torch.fx split module, written by fxsplit's python output.\n"
    "\n"
    "build(original_module) returns it as a torch.fx.GraphModule that calls\n"
    "%u submodule%s and uses the parameters, buffers and submodules of the\n"
    "module that was split; CODE holds the forward code of every graph as\n"
    "torch.fx 1.13 prints GraphModule.code.  Nothing in this file's data is\n"
    "evaluated or imported: call_function targets come from torch, operator\n"
    "and math unless build() is given allow_modules=[...] or\n"
    "trust_targets=True (fxsplit's docs/python.md).\n"
    "\"\"\"\n", n, n == 1 ? "" : "s");
  for (const char *const *line = fxs_py_runtime_lines; *line; line++)
    g_string_append (w->buf, *line);
}

static void
write_qualname_map (Writer *w, const FxsSplitResult *result)
{
  g_string_append (w->buf, "\n\nQUALNAME_MAP = _json.loads(r'''{\n");
  for (guint i = 0; i < fxs_split_result_n_qualnames (result); i++)
    {
      const char *new_name, *old_name;
      fxs_split_result_qualname (result, i, &new_name, &old_name);
      fxs_json_literal_string (new_name, strlen (new_name), w->buf);
      g_string_append (w->buf, ": ");
      fxs_json_literal_string (old_name, strlen (old_name), w->buf);
      if (i + 1 < fxs_split_result_n_qualnames (result))
        g_string_append_c (w->buf, ',');
      g_string_append_c (w->buf, '\n');
      maybe_flush (w, FALSE);
    }
  g_string_append (w->buf, "}''')\n");
}

/* The partitioner's labels, by submodule: build() sets them as each
 * submodule's fxsplit_label. */
static void
write_labels (Writer *w, const FxsSplitResult *result)
{
  g_string_append (w->buf, "\nLABELS = {");
  for (guint i = 0, n = 0; i < fxs_split_result_n_partitions (result); i++)
    {
      const FxsPartition *p = fxs_split_result_partition (result, i);
      if (!fxs_partition_label (p))
        continue;
      g_string_append (w->buf, n++ ? ",\n    " : "\n    ");
      append_str (w->buf, fxs_partition_submod_name (p));
      g_string_append (w->buf, ": ");
      append_str (w->buf, fxs_partition_label (p));
      maybe_flush (w, FALSE);
    }
  g_string_append (w->buf, "}\n");
}

/* Whether @text reads back unchanged from r'''@text''' in a UTF-8
 * source file (no quote run, no character the tokenizer would change or
 * refuse, no escape of the closing quote). */
static gboolean
fits_raw_literal (const GString *text)
{
  return text->len > 0 && !strstr (text->str, "'''") && !memchr (text->str, '\r', text->len)
         && strlen (text->str) == text->len && g_utf8_validate (text->str, text->len, NULL)
         && text->str[text->len - 1] != '\\' && text->str[text->len - 1] != '\'';
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
  if (fits_raw_literal (code))
    {
      g_string_append (w->buf, "] = r'''");
      g_string_append_len (w->buf, code->str, code->len);
      g_string_append (w->buf, "'''\n");
      maybe_flush (w, FALSE);
      g_string_free (code, TRUE);
      return TRUE;
    }
  /* one str literal per line otherwise */
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

/* [op, name, target, args, kwargs, type, wrapped] */
static void
write_node (Writer *w, const FxsNode *node)
{
  GString *b = w->buf;
  g_string_append_c (b, '[');
  fxs_json_literal_string (fxs_op_to_string (fxs_node_op (node)),
                           strlen (fxs_op_to_string (fxs_node_op (node))), b);
  g_string_append (b, ", ");
  fxs_json_literal_string (fxs_node_name (node), strlen (fxs_node_name (node)), b);
  g_string_append (b, ", ");
  fxs_json_literal_string (fxs_node_target (node), strlen (fxs_node_target (node)), b);
  g_string_append (b, ", [");
  const FxsValue *args = fxs_node_args (node), *kwargs = fxs_node_kwargs (node);
  for (guint i = 0; i < fxs_value_n_items (args); i++)
    {
      if (i)
        g_string_append (b, ", ");
      fxs_json_literal_value (fxs_value_item (args, i), b);
    }
  g_string_append (b, "], {");
  for (guint i = 0; i < fxs_value_n_items (kwargs); i++)
    {
      const FxsValue *key = fxs_value_dict_key (kwargs, i);
      if (i)
        g_string_append (b, ", ");
      fxs_json_literal_string (fxs_value_get_string (key), fxs_value_get_string_length (key), b);
      g_string_append (b, ": ");
      fxs_json_literal_value (fxs_value_dict_value (kwargs, i), b);
    }
  g_string_append (b, "}, ");
  if (fxs_node_type (node))
    fxs_json_literal_string (fxs_node_type (node), strlen (fxs_node_type (node)), b);
  else
    g_string_append (b, "null");
  g_string_append (b, fxs_py_node_is_wrapped (node) ? ", true]" : ", false]");
}

/* {"targets": [the get_attr and call_module targets, first use first],
 *  "nodes": [...]} */
static void
write_graph (Writer *w, const FxsGraph *graph)
{
  GPtrArray *targets = g_ptr_array_new ();
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < fxs_graph_n_nodes (graph); i++)
    {
      const FxsNode *node = fxs_graph_node (graph, i);
      FxsOp op = fxs_node_op (node);
      if ((op == FXS_OP_GET_ATTR || op == FXS_OP_CALL_MODULE)
          && g_hash_table_add (seen, (gpointer) fxs_node_target (node)))
        g_ptr_array_add (targets, (gpointer) fxs_node_target (node));
    }
  g_string_append (w->buf, "_json.loads(r'''{\"targets\": [");
  for (guint i = 0; i < targets->len; i++)
    {
      if (i)
        g_string_append (w->buf, ", ");
      fxs_json_literal_string (targets->pdata[i], strlen (targets->pdata[i]), w->buf);
    }
  g_string_append (w->buf, "], \"nodes\": [\n");
  guint n = fxs_graph_n_nodes (graph);
  for (guint i = 0; i < n; i++)
    {
      write_node (w, fxs_graph_node (graph, i));
      g_string_append (w->buf, i + 1 < n ? ",\n" : "\n");
      maybe_flush (w, FALSE);
    }
  g_string_append (w->buf, "]}''')\n");
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
  write_labels (&w, result);

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
