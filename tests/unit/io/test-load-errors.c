/* Unit tests of graph file loading: every error a user can cause (code,
 * location, message). */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <string.h>

#include "io/json-reader.h"
#include "load-cases.h"

static void
test_errors_json (void)
{
  static const ErrorCase cases[] = {
    { "@hello", FXS_ERROR_PARSE, "invalid JSON" },
    { "@", FXS_ERROR_PARSE, "empty input" },
    { "  \n @", FXS_ERROR_PARSE, "empty input" },
    { HEAD "\"nodes\": [" X "@", FXS_ERROR_PARSE, "the file is truncated" },
    { NODES (X ", " OUT) " @x", FXS_ERROR_PARSE, "invalid JSON: trailing garbage" },
    { HEAD "\"x-a\": [1,@]}", FXS_ERROR_PARSE, "invalid JSON: unallowed token" },
    { HEAD "\"nodes\": [{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"@\xff\"}]}",
      FXS_ERROR_PARSE, "invalid JSON: invalid bytes in UTF8 string" },
    { HEAD "\"nodes\": [{\"name\": @'x'}]}", FXS_ERROR_PARSE, "invalid JSON: invalid char" },
  };
  run_error_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_errors_top_level (void)
{
  static const ErrorCase cases[] = {
    { "@[1]", FXS_ERROR_FORMAT, "a graph file is a JSON object, not an array" },
    { "{\"version\": 1, @\"nodes\": []}", FXS_ERROR_FORMAT,
      "found \"nodes\" before \"format\" and \"version\"" },
    { "{\"format\": \"fxsplit-graph\", @\"nodes\": []}", FXS_ERROR_FORMAT,
      "before \"format\" and \"version\"" },
    { "{\"format\": @\"other\", \"version\": 1, \"nodes\": []}", FXS_ERROR_FORMAT,
      "format: not an fxsplit graph file" },
    { "{\"format\": @1, \"version\": 1, \"nodes\": []}", FXS_ERROR_FORMAT,
      "not an fxsplit graph file" },
    { "{\"format\": \"fxsplit-graph\", \"version\": @2, \"nodes\": []}", FXS_ERROR_VERSION,
      "version: unsupported format version 2 (this build reads version 1)" },
    { "{\"format\": \"fxsplit-graph\", \"version\": @\"1\", \"nodes\": []}", FXS_ERROR_FORMAT,
      "\"version\" must be an integer, not a string" },
    { "{\"format\": \"fxsplit-graph\", \"version\": @1.0, \"nodes\": []}", FXS_ERROR_FORMAT,
      "must be an integer" },
    { "{\"format\": \"fxsplit-graph\", \"version\": @99999999999999999999}", FXS_ERROR_VERSION,
      "unsupported format version 99999999999999999999" },
    { "{\"format\": \"fxsplit-graph\", \"version\": 1@}", FXS_ERROR_FORMAT, "no \"nodes\"" },
    { "{@}", FXS_ERROR_FORMAT, "no \"format\"" },
    { HEAD "@\"nodez\": []}", FXS_ERROR_FORMAT, "unknown member \"nodez\" (expected \"format\"" },
    { HEAD "@\"nodes\\u0000\": []}", FXS_ERROR_FORMAT, "unknown member \"nodes\\u0000\"" },
    { HEAD "\"nodes\": @{}}", FXS_ERROR_FORMAT, "\"nodes\" must be an array, not an object" },
    { HEAD "\"attributes\": @[], \"nodes\": []}", FXS_ERROR_FORMAT,
      "\"attributes\" must be an object, not an array" },
    { HEAD "\"attributes\": {}, @\"attributes\": {}, \"nodes\": []}", FXS_ERROR_FORMAT,
      "attributes: duplicate key" },
  };
  run_error_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_errors_node_structure (void)
{
  static const ErrorCase cases[] = {
    { NODES ("@1"), FXS_ERROR_FORMAT, "nodes[0]: a node must be an object, not a number" },
    { NODES ("{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", @\"argz\": []}"),
      FXS_ERROR_FORMAT, "nodes[0]: node \"x\": unknown member \"argz\" (expected \"name\"" },
    { NODES (X ", {\"name\": \"y\", \"op\": @\"placeholdr\", \"target\": \"y\"}"), FXS_ERROR_FORMAT,
      "nodes[1].op: node \"y\": unknown op \"placeholdr\"" },
    { NODES ("@{\"op\": \"placeholder\", \"target\": \"x\"}"), FXS_ERROR_FORMAT,
      "nodes[0]: a node without \"name\"" },
    { NODES ("@{\"name\": \"x\", \"target\": \"x\"}"), FXS_ERROR_FORMAT, "node \"x\": no \"op\"" },
    { NODES ("@{\"name\": \"x\", \"op\": \"placeholder\"}"), FXS_ERROR_FORMAT,
      "node \"x\": no \"target\"" },
    { NODES ("{\"name\": @1, \"op\": \"placeholder\", \"target\": \"x\"}"), FXS_ERROR_FORMAT,
      "nodes[0].name: \"name\" must be a string, not a number" },
    { NODES ("{\"name\": @\"\", \"op\": \"placeholder\", \"target\": \"x\"}"), FXS_ERROR_FORMAT,
      "\"name\" is empty" },
    { NODES ("{\"name\": @\"x\\u0000y\", \"op\": \"placeholder\", \"target\": \"x\"}"),
      FXS_ERROR_FORMAT, "\"name\" contains a NUL character" },
    { NODES ("{\"name\": \"x\", \"op\": \"placeholder\", \"target\": @[]}"), FXS_ERROR_FORMAT,
      "nodes[0].target: node \"x\": \"target\" must be a string, not an array" },
    { NODES ("{\"name\": \"f\", \"op\": \"call_function\", \"target\": \"f\", \"args\": @{\"a\": 1}}"),
      FXS_ERROR_FORMAT, "nodes[0].args: node \"f\": \"args\" must be an array, not an object" },
    { NODES ("{\"name\": \"f\", \"op\": \"call_function\", \"target\": \"f\", \"kwargs\": @[]}"),
      FXS_ERROR_FORMAT, "\"kwargs\" must be an object, not an array" },
    { NODES ("{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", \"args\": @[1, 2]}"),
      FXS_ERROR_FORMAT, "a placeholder has at most one arg (its default value), not 2" },
    { NODES ("{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", \"type\": @1}"),
      FXS_ERROR_FORMAT, "\"type\" must be a string, not a number" },
    { NODES ("{\"name\": \"x\", \"op\": \"placeholder\", @\"name\": \"x2\", \"target\": \"x\"}"),
      FXS_ERROR_FORMAT, "nodes[0].name: duplicate key" },
    { NODES ("{\"name\": \"f\", \"op\": \"call_function\", \"target\": \"f\", "
             "\"kwargs\": {\"a\": 1, @\"a\": 2}}"),
      FXS_ERROR_FORMAT, "nodes[0].kwargs.a: duplicate key" },
  };
  run_error_cases (cases, G_N_ELEMENTS (cases));
}

#define CALL(args) "{\"name\": \"f\", \"op\": \"call_function\", \"target\": \"f\", \"args\": " args "}"

/* Unpaired UTF-16 surrogate escapes: yajl decodes a lone high one to '?'
 * and pairs it with any escape after it; they are invalid text, as bytes
 * that are not UTF-8 are. */
/* The reader checks texts a word at a time: a NUL or a byte that is not
 * UTF-8 is found at every offset of names of every length around a word. */
static void
test_errors_text_at_every_offset (void)
{
  for (guint len = 1; len <= 17; len++)
    for (guint at = 0; at < len; at++)
      {
        const char *bad[] = { "\\u0000", "\xc0\x80" };
        const char *messages[] = { "contains a NUL character", "not valid UTF-8" };
        for (guint k = 0; k < G_N_ELEMENTS (bad); k++)
          {
            GString *name = g_string_new (NULL);
            for (guint i = 0; i < len; i++)
              g_string_append (name, i == at ? bad[k] : "n");
            char *json = g_strdup_printf (NODES ("{\"name\": \"%s\", \"op\": \"placeholder\", "
                                                 "\"target\": \"x\"},\n" OUT), name->str);
            GError *error = NULL;
            FxsGraph *g = fxs_graph_load_data (json, strlen (json), "t.json", &error);
            CU_ASSERT_PTR_NULL (g);
            CU_ASSERT_TRUE (error && strstr (error->message, messages[k]));
            fxs_graph_unref (g);
            g_clear_error (&error);
            g_free (json);
            g_string_free (name, TRUE);
          }
      }
}

static void
test_errors_surrogate_escapes (void)
{
  static const ErrorCase cases[] = {
    { NODES (CALL ("[@\"\\ud800\"]")), FXS_ERROR_PARSE,
      "nodes[0].args[0]: a string that is not valid text: a UTF-16 surrogate escape" },
    { NODES (CALL ("[1, @\"ab\\uDBFFcd\"]")), FXS_ERROR_PARSE,
      "nodes[0].args[1]: a string that is not valid text" },
    { NODES (CALL ("[@\"\\udc00\"]")), FXS_ERROR_PARSE, "surrogate escape that is not part" },
    { NODES (CALL ("[@\"\\ud800\\u0041\"]")), FXS_ERROR_PARSE, "surrogate escape" },
    { NODES (CALL ("[@\"\\ud800\\ud800\"]")), FXS_ERROR_PARSE, "surrogate escape" },
    { NODES (CALL ("[@\"\\ud800\\n\"]")), FXS_ERROR_PARSE, "surrogate escape" },
    { NODES (CALL ("[@\"\\ud83d\\ude00\\ud800\"]")), FXS_ERROR_PARSE, "surrogate escape" },
    { HEAD "\"x-a\": {@\"k\\udfff\": 1}, \"nodes\": []}", FXS_ERROR_PARSE,
      "[\"x-a\"]: a string that is not valid text" },
    { HEAD "@\"x-\\ud800\": 1, \"nodes\": []}", FXS_ERROR_PARSE, "surrogate escape" },
    /* an escaped backslash, then an escape of its own */
    { NODES (CALL ("[@\"\\\\\\ud800\"]")), FXS_ERROR_PARSE, "surrogate escape" },
  };
  run_error_cases (cases, G_N_ELEMENTS (cases));
  /* pairs, and a backslash escaped before a 'u', are fine */
  FxsGraph *g = load_ok (NODES (CALL ("[\"\\ud83d\\ude00\", \"\\uD800\\uDC00\", \"\\\\ud800\", "
                                      "\"\\uD83D\\uDE00\\uDBFF\\uDFFF\"]") ",\n" OUT));
  CU_ASSERT_PTR_NOT_NULL (g);
  fxs_graph_unref (g);
}

static void
test_errors_values (void)
{
  static const ErrorCase cases[] = {
    { NODES (CALL ("[{@\"foo\": 1}]")), FXS_ERROR_FORMAT,
      "nodes[0].args[0]: node \"f\": unknown value tag \"foo\": expected one of" },
    { NODES (CALL ("[@{\"tuple\": [], \"node\": \"x\"}]")), FXS_ERROR_FORMAT,
      "a value object has exactly one tag, this one has 2 members" },
    { NODES (CALL ("[@{}]")), FXS_ERROR_FORMAT, "an empty object is not a value" },
    { NODES (CALL ("[{\"float\": @\"infinity\"}]")), FXS_ERROR_FORMAT,
      "nodes[0].args[0].float: node \"f\": {\"float\": ...} must be \"inf\", \"-inf\" or \"nan\"" },
    { NODES (CALL ("[{\"ellipsis\": @false}]")), FXS_ERROR_FORMAT, "{\"ellipsis\": true}" },
    { NODES (CALL ("[{\"slice\": @[1, 2]}]")), FXS_ERROR_FORMAT,
      "{\"slice\": ...} takes [start, stop, step], not 2 items" },
    { NODES (CALL ("[{\"tuple\": @3}]")), FXS_ERROR_FORMAT,
      "{\"tuple\": ...} takes an array, not a number" },
    { NODES (CALL ("[{\"dict\": [@[1]]}]")), FXS_ERROR_FORMAT,
      "nodes[0].args[0].dict[0]: node \"f\": a dict entry must be a [key, value] array" },
    { NODES (CALL ("[@{\"opaque\": \"torch.dtype\"}]")), FXS_ERROR_FORMAT,
      "{\"opaque\": ...} needs a \"repr\"" },
    { NODES (CALL ("[{\"opaque\": \"torch.dtype\", \"repr\": @7}]")), FXS_ERROR_FORMAT,
      "an opaque value's repr must be a string, not a number" },
    { NODES (CALL ("[{\"node\": @7}]")), FXS_ERROR_FORMAT, "a node reference must be a node's name" },
    { NODES (CALL ("[[0, @9223372036854775808]]")), FXS_ERROR_FORMAT,
      "nodes[0].args[0][1]: node \"f\": integer 9223372036854775808 does not fit in 64 bits" },
    { NODES (CALL ("[@-9223372036854775809]")), FXS_ERROR_FORMAT, "does not fit in 64 bits" },
    { NODES (CALL ("[@123456789012345678901234567890]")), FXS_ERROR_FORMAT,
      "does not fit in 64 bits" },
    { NODES (CALL ("[@1e999]")), FXS_ERROR_FORMAT,
      "number 1e999 is out of the range of a float (write {\"float\": \"inf\"})" },
    { NODES (CALL ("[{\"dict\": [[1, 2]], @\"dict\": []}]")), FXS_ERROR_FORMAT, "duplicate key" },
    { NODES (CALL ("[{@\"tuple\\u0000x\": []}]")), FXS_ERROR_FORMAT,
      "unknown value tag \"tuple\\u0000x\"" },
    { NODES (CALL ("[{\"float\": @\"inf\\u0000\"}]")), FXS_ERROR_FORMAT, "must be \"inf\"" },
  };
  run_error_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_errors_graph_rules (void)
{
  static const ErrorCase cases[] = {
    { NODES (X ",\n{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"f\", "
             "\"args\": [{\"node\": @\"nope\"}]},\n" OUT),
      FXS_ERROR_GRAPH,
      "nodes[1].args[0].node: node \"y\": refers to \"nope\", which is not a node of this graph" },
    { NODES (X ",\n{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"f\", "
             "\"kwargs\": {\"other\": {\"node\": @\"z\"}}},\n"
             "{\"name\": \"z\", \"op\": \"call_function\", \"target\": \"g\"},\n" OUT),
      FXS_ERROR_GRAPH,
      "nodes[1].kwargs.other.node: node \"y\": refers to \"z\", which comes later (nodes[2]); "
      "nodes may only refer to earlier nodes" },
    { NODES (X ",\n{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"f\", "
             "\"args\": [{\"node\": @\"y\"}]},\n" OUT),
      FXS_ERROR_GRAPH, "nodes[1].args[0].node: node \"y\": refers to itself" },
    { NODES (X ",\n{\"name\": \"y\", \"op\": \"call_function\", \"target\": \"f\", "
             "\"meta\": {\"tag\": [{\"node\": @\"later\"}]}},\n" OUT),
      FXS_ERROR_GRAPH, "nodes[1].meta.tag[0].node: node \"y\": refers to \"later\"" },
    { NODES (X ",\n{\"name\": @\"x\", \"op\": \"placeholder\", \"target\": \"x2\"}"), FXS_ERROR_GRAPH,
      "nodes[1].name: node \"x\": duplicate node name (the first is nodes[0])" },
    { HEAD "\"nodes\": [\n" X "\n@]}", FXS_ERROR_GRAPH, "nodes: the graph has no output node" },
    { HEAD "\"nodes\": [@]}", FXS_ERROR_GRAPH, "no output node" },
    { NODES (X ",\n" OUT ",\n@{\"name\": \"out2\", \"op\": \"output\", \"target\": \"output\"}"),
      FXS_ERROR_GRAPH, "nodes[2]: node \"out2\": a second output node (the first is \"output\")" },
    { NODES (X ",\n" OUT ",\n@{\"name\": \"z\", \"op\": \"placeholder\", \"target\": \"z\"}"),
      FXS_ERROR_GRAPH, "node \"z\": comes after the output node \"output\"" },
  };
  run_error_cases (cases, G_N_ELEMENTS (cases));
}

#define META(m) NODES ("{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", \"meta\": " m "}, " OUT)
#define ATTRS(a) HEAD "\"attributes\": " a ", \"nodes\": [" X ", " OUT "]}"

static void
test_errors_meta_and_attributes (void)
{
  static const ErrorCase cases[] = {
    { META ("@[]"), FXS_ERROR_FORMAT, "\"meta\" must be an object, not an array" },
    { META ("{\"tensor\": {\"shape\": []}, @\"tensors\": []}"), FXS_ERROR_FORMAT,
      "\"tensor\" and \"tensors\" together" },
    { META ("{\"tensor\": {\"shape\": [2, @-1]}}"), FXS_ERROR_FORMAT,
      "nodes[0].meta.tensor.shape[1]: node \"x\": a size cannot be negative" },
    { META ("{\"tensor\": {\"shape\": [@1.5]}}"), FXS_ERROR_FORMAT,
      "a size must be an int, a symbolic expression (a string) or null, not a number" },
    { META ("{\"tensor\": @{\"dtype\": \"torch.float32\"}}"), FXS_ERROR_FORMAT,
      "tensor metadata without a \"shape\"" },
    { META ("{\"tensor\": {\"shape\": [], @\"stride\": []}}"), FXS_ERROR_FORMAT,
      "unknown member \"stride\" (expected \"shape\", \"dtype\")" },
    { META ("{\"tensors\": @{}}"), FXS_ERROR_FORMAT, "\"tensors\" must be an array" },
    { META ("{\"free_symbols\": [@1]}"), FXS_ERROR_FORMAT, "a free symbol must be a string" },
    { META ("{\"symbol\": @null}"), FXS_ERROR_FORMAT, "\"symbol\" must be a string, not null" },
    { ATTRS ("{\"w\": {\"kind\": \"parameter\"}, @\"w\": {\"kind\": \"buffer\"}}"), FXS_ERROR_FORMAT,
      "attributes.w: duplicate key" },
    { ATTRS ("{\"w\": {\"kind\": @\"param\"}}"), FXS_ERROR_FORMAT,
      "attributes.w.kind: unknown attribute kind \"param\" (expected parameter, buffer" },
    { ATTRS ("{\"layer.0\": @\"module\"}"), FXS_ERROR_FORMAT,
      "attributes[\"layer.0\"]: an attribute must be an object, not a string" },
    { ATTRS ("{\"w\": @{\"shape\": [1]}}"), FXS_ERROR_FORMAT, "an attribute without \"kind\"" },
    { ATTRS ("{\"w\": {\"kind\": \"parameter\", @\"size\": [1]}}"), FXS_ERROR_FORMAT,
      "unknown member \"size\"" },
    { ATTRS ("{\"w\": {\"kind\": \"parameter\", @\"dtype\": \"torch.float32\"}}"), FXS_ERROR_FORMAT,
      "\"dtype\" without \"shape\"" },
    { ATTRS ("{@\"\": {\"kind\": \"module\"}}"), FXS_ERROR_FORMAT,
      "an attribute name must be non-empty" },
  };
  run_error_cases (cases, G_N_ELEMENTS (cases));
}

/* A graph file with split-result members @rest after its nodes. */
static char *
split_doc (const char *rest)
{
  return g_strdup_printf (HEAD "\"nodes\": [" X ", " OUT "], %s}", rest);
}

static void
test_errors_split_result (void)
{
  static const struct { const char *rest; FxsErrorCode code; const char *message; } cases[] = {
    { "\"submodules\": [{@\"nodes\": [], \"name\": \"s\"}]", FXS_ERROR_FORMAT,
      "submodules[0].nodes: \"name\" must be the first member of a submodule" },
    { "\"submodules\": [{\"name\": \"s\"@}]", FXS_ERROR_FORMAT, "no \"nodes\" in a submodule" },
    { "\"submodules\": [{\"name\": \"s\", \"nodes\": []}, {\"name\": @\"s\", \"nodes\": []}]",
      FXS_ERROR_GRAPH, "submodules[1].name: duplicate submodule name \"s\"" },
    { "\"submodules\": [{\"name\": \"s\", \"nodes\": [{\"name\": \"a\", \"op\": @\"jump\", "
      "\"target\": \"a\"}]}]", FXS_ERROR_FORMAT, "submodules[0].nodes[0].op: node \"a\": unknown op" },
    { "\"submodules\": [{\"name\": \"s\", @\"extra\": 1, \"nodes\": []}]", FXS_ERROR_FORMAT,
      "unknown member \"extra\" (expected \"name\", \"attributes\", \"nodes\")" },
    { "\"submodules\": [{\"name\": \"s\", \"attributes\": {\"w\": {\"kind\": @\"weight\"}}, "
      "\"nodes\": []}]", FXS_ERROR_FORMAT, "submodules[0].attributes.w.kind: unknown attribute kind" },
    { "\"partitions\": [@{\"name\": \"0\", \"submodule\": \"submod_0\"}]", FXS_ERROR_FORMAT,
      "partitions[0]: a partition without \"id\"" },
    { "\"partitions\": [{\"name\": \"0\", \"id\": @\"0\", \"submodule\": \"submod_0\"}]",
      FXS_ERROR_FORMAT, "partitions[0].id: \"id\" must be an integer" },
    { "\"partitions\": [{\"name\": \"0\", \"id\": 0, \"submodule\": \"s\", \"inputs\": [@1]}]",
      FXS_ERROR_FORMAT, "partitions[0].inputs[0]: a name must be a string" },
    { "\"partitions\": [{\"name\": \"0\", \"id\": 0, \"submodule\": \"s\", @\"cost\": 1}]",
      FXS_ERROR_FORMAT, "unknown member \"cost\"" },
    { "\"qualname_map\": {\"a\": @1}", FXS_ERROR_FORMAT,
      "qualname_map.a: a qualname map entry must be a string, not a number" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *marked = split_doc (cases[i].rest);
      ErrorCase c = { marked, cases[i].code, cases[i].message };
      run_error_cases (&c, 1);
      g_free (marked);
    }
}

static void
test_errors_files (void)
{
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("fxs-load-XXXXXX", NULL);
  char *missing = g_build_filename (dir, "missing.json", NULL);
  CU_ASSERT_PTR_NULL (fxs_graph_load_file (missing, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_IO));
  char *expected = g_strdup_printf ("%s: cannot open: %s", missing, g_strerror (ENOENT));
  CU_ASSERT_STRING_EQUAL (error ? error->message : "", expected);
  g_free (expected);
  g_clear_error (&error);

  CU_ASSERT_PTR_NULL (fxs_graph_load_file (dir, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_IO));
  CU_ASSERT_TRUE (error && strstr (error->message, g_strerror (EISDIR)));
  g_clear_error (&error);

  /* errors in files name the file and a line counted across read chunks */
  char *bad = g_build_filename (dir, "bad.json", NULL);
  const char *text = HEAD "\"nodes\": [\n" X ",\n{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"y\"}]}";
  g_file_set_contents (bad, text, -1, NULL);
  CU_ASSERT_PTR_NULL (fxs_graph_load_file (bad, &error));
  expected = g_strdup_printf ("%s:4:10: nodes[1].name: node \"x\": duplicate node name", bad);
  CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, expected));
  g_free (expected);
  g_clear_error (&error);

  char *split = data_path ("split-result.json");
  CU_ASSERT_PTR_NULL (fxs_graph_load_submodule_file (split, "submod_9", &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_GRAPH));
  CU_ASSERT_TRUE (error && strstr (error->message,
                                           "no submodule \"submod_9\" (the file has \"submod_0\", \"submod_1\")"));
  g_clear_error (&error);
  char *plain = data_path ("torch-export.json");
  CU_ASSERT_PTR_NULL (fxs_graph_load_submodule_file (plain, "submod_0", &error));
  CU_ASSERT_TRUE (error && strstr (error->message, "the file has no submodules"));
  g_clear_error (&error);

  g_unlink (bad);
  g_rmdir (dir);
  g_free (plain);
  g_free (split);
  g_free (bad);
  g_free (missing);
  g_free (dir);
}

static void
test_errors_deep_nesting (void)
{
  /* frames: top object 1, nodes 2, node 3, args 4; the 513th is too deep */
  const guint depth = 100000;
  GString *marked = g_string_new (HEAD "\"nodes\": [{\"name\": \"f\", \"op\": \"call_function\", "
                                  "\"target\": \"f\", \"args\": ");
  for (guint i = 0; i < depth; i++)
    {
      if (i == FXS_JSON_MAX_DEPTH - 3)
        g_string_append_c (marked, '@');
      g_string_append_c (marked, '[');
    }
  for (guint i = 0; i < depth; i++)
    g_string_append_c (marked, ']');
  g_string_append (marked, "}]}");
  ErrorCase c = { marked->str, FXS_ERROR_PARSE, "nested deeper than 512 levels" };
  char *location;
  char *json = unmark (c.marked, &location);
  check_error_case (&c, json, strlen (json), location);
  g_free (json);
  g_free (location);
  g_string_free (marked, TRUE);
}

/* ---- what is loaded ---------------------------------------------------- */

static void
register_tests (void)
{
  static const FxsTestCase errors[] = {
    FXS_TEST (test_errors_json),
    FXS_TEST (test_errors_top_level),
    FXS_TEST (test_errors_node_structure),
    FXS_TEST (test_errors_values),
    FXS_TEST (test_errors_surrogate_escapes),
    FXS_TEST (test_errors_text_at_every_offset),
    FXS_TEST (test_errors_graph_rules),
    FXS_TEST (test_errors_meta_and_attributes),
    FXS_TEST (test_errors_split_result),
    FXS_TEST (test_errors_files),
    FXS_TEST (test_errors_deep_nesting),
    { NULL, NULL },
  };
  fxs_test_add_suite ("load errors", errors);
}

FXS_TEST_MAIN (register_tests)
