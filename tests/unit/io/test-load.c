/* Unit tests of graph file loading: every error a user can cause (code,
 * location, message), the values and metadata read, split results, large
 * inputs read in chunks, and the streaming reader's limits. */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model/graph-private.h"
#include "io/json-reader.h"
#include "../test-util.h"

#define HEAD "{\"format\": \"fxsplit-graph\", \"version\": 1,\n"
#define X "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"}"
#define OUT "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [null]}"
#define NODES(...) HEAD "\"nodes\": [\n" __VA_ARGS__ "\n]}"

/* ---- helpers ----------------------------------------------------------- */

/* @marked is JSON with one '@' right before the token the error must point
 * at: returns the JSON without it and the expected "t.json:LINE:COLUMN: ". */
static char *
unmark (const char *marked, char **location)
{
  const char *at = strchr (marked, '@');
  g_assert (at != NULL);
  guint line = 1, column = 1;
  for (const char *p = marked; p < at; p++)
    {
      if (*p == '\n')
        {
          line++;
          column = 1;
        }
      else if ((*p & 0xc0) != 0x80)
        column++;
    }
  *location = g_strdup_printf ("t.json:%u:%u: ", line, column);
  GString *json = g_string_new_len (marked, at - marked);
  g_string_append (json, at + 1);
  return g_string_free (json, FALSE);
}

typedef struct {
  const char *marked;       /* JSON with '@' at the expected location */
  FxsErrorCode code;
  const char *message;      /* a part of the message */
} ErrorCase;

static void
check_error_case (const ErrorCase *c, const char *json, gsize len, const char *location)
{
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_data (json, len, "t.json", &error);
  CU_ASSERT_PTR_NULL (g);
  fxs_graph_unref (g);
  if (!error)
    {
      CU_FAIL ("no error");
      fprintf (stderr, "\n  expected an error for: %s\n", c->marked);
      return;
    }
  gboolean ok = error->domain == FXS_ERROR && (FxsErrorCode) error->code == c->code
                && g_str_has_prefix (error->message, location)
                && strstr (error->message, c->message) != NULL
                && strchr (error->message, '\n') == NULL;
  CU_ASSERT_TRUE (ok);
  if (!ok)
    fprintf (stderr, "\n  input:    %s\n  expected: [%d] %s...%s\n  got:      [%d] %s\n",
             c->marked, c->code, location, c->message, error->code, error->message);
  g_error_free (error);
}

static void
run_error_cases (const ErrorCase *cases, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      char *location;
      char *json = unmark (cases[i].marked, &location);
      check_error_case (&cases[i], json, strlen (json), location);
      g_free (json);
      g_free (location);
    }
}

static FxsGraph *
load_ok (const char *json)
{
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_data (json, strlen (json), "t.json", &error);
  if (error)
    fprintf (stderr, "\n  unexpected error: %s\n", error->message);
  CU_ASSERT_PTR_NULL (error);
  g_clear_error (&error);
  return g;
}

static char *
data_path (const char *name)
{
  return g_build_filename (FXS_TEST_DATA_DIR, "load", name, NULL);
}

/* ---- errors ------------------------------------------------------------ */

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
test_load_torch_export (void)
{
  char *path = data_path ("torch-export.json");
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  g_free (path);
  CU_ASSERT_PTR_NULL (error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (g), 22);
  CU_ASSERT_EQUAL (fxs_graph_count_op (g, FXS_OP_PLACEHOLDER), 2);
  CU_ASSERT_EQUAL (fxs_graph_count_op (g, FXS_OP_CALL_MODULE), 4);
  CU_ASSERT_EQUAL (fxs_graph_count_op (g, FXS_OP_GET_ATTR), 2);
  CU_ASSERT_PTR_EQUAL (fxs_graph_output_node (g), fxs_graph_node (g, 21));

  const FxsNode *y = fxs_graph_lookup_node (g, "y");
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_node_default_value (y)), FXS_VALUE_NONE);
  CU_ASSERT_PTR_NULL (fxs_node_default_value (fxs_graph_lookup_node (g, "x")));

  const FxsNode *clamp = fxs_graph_lookup_node (g, "clamp");
  CU_ASSERT_EQUAL (fxs_node_op (clamp), FXS_OP_CALL_METHOD);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_dict_lookup (fxs_node_kwargs (clamp), "min")), -1.0);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_dict_lookup (fxs_node_kwargs (clamp), "max")), 0.5);
  CU_ASSERT_EQUAL (fxs_node_n_users (clamp), 2);

  const FxsValue *index = fxs_value_item (fxs_node_args (fxs_graph_lookup_node (g, "getitem")), 1);
  CU_ASSERT_EQUAL (fxs_value_kind (index), FXS_VALUE_TUPLE);
  CU_ASSERT_EQUAL (fxs_value_n_items (index), 3);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (index, 0)), FXS_VALUE_SLICE);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (fxs_value_item (index, 1), 1)), 2);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (index, 2)), FXS_VALUE_ELLIPSIS);

  const FxsValue *dtype = fxs_value_item (fxs_node_args (fxs_graph_lookup_node (g, "to")), 1);
  CU_ASSERT_STRING_EQUAL (fxs_value_get_opaque_type (dtype), "torch.dtype");
  CU_ASSERT_STRING_EQUAL (fxs_value_get_opaque_repr (dtype), "torch.float32");

  const FxsNode *split = fxs_graph_lookup_node (g, "split");
  CU_ASSERT_STRING_EQUAL (fxs_node_target (split), "torch.functional.split");
  CU_ASSERT_STRING_EQUAL (fxs_node_target_short_name (split), "split");
  CU_ASSERT_TRUE (fxs_node_value_is_tuple (split));
  CU_ASSERT_EQUAL (fxs_node_n_tensors (split), 2);
  CU_ASSERT_EQUAL (fxs_node_output_bytes (split), 2 * 3 * 2 * 4);
  CU_ASSERT_EQUAL (fxs_tensor_dim (fxs_node_tensor (split, 1), 1), 2);

  const FxsValue *out = fxs_value_item (fxs_node_args (fxs_graph_output_node (g)), 0);
  CU_ASSERT_EQUAL (fxs_value_kind (out), FXS_VALUE_DICT);
  const FxsValue *rest = fxs_value_dict_lookup (out, "rest");
  CU_ASSERT_EQUAL (fxs_value_kind (rest), FXS_VALUE_TUPLE);
  CU_ASSERT_PTR_EQUAL (fxs_value_get_node (fxs_value_item (rest, 0)),
                       fxs_graph_lookup_node (g, "getitem_2"));
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (rest, 1)), 0.1);

  CU_ASSERT_EQUAL (fxs_graph_n_attrs (g), 17);
  const FxsAttr *scale = fxs_graph_lookup_attr (g, "scale");
  CU_ASSERT_EQUAL (fxs_attr_kind (scale), FXS_ATTR_PARAMETER);
  CU_ASSERT_EQUAL (fxs_attr_bytes (scale), 16);
  const FxsAttr *linear = fxs_graph_lookup_attr (g, "blocks.0.linear");
  CU_ASSERT_STRING_EQUAL (fxs_attr_class (linear), "torch.nn.modules.linear.Linear");
  CU_ASSERT_EQUAL (fxs_attr_bytes (linear), (16 + 4) * 4);
  CU_ASSERT_EQUAL (fxs_attr_kind (fxs_graph_lookup_attr (g, "offset")), FXS_ATTR_BUFFER);
  fxs_graph_unref (g);
}

/* Equal metadata is converted once and shared (it is immutable: setters
 * copy it first). */
static void
test_load_shared_meta (void)
{
#define STAGED_META(STAGE, MORE) "\"meta\": {\"tensor\": {\"shape\": [2, 3], \"dtype\": " \
  "\"torch.float32\"}, \"stage\": " STAGE MORE "}"
  FxsGraph *g = load_ok (NODES (
    "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", " STAGED_META ("1", "") "},\n"
    "{\"name\": \"a\", \"op\": \"call_function\", \"target\": \"torch.relu\", "
    "\"args\": [{\"node\": \"x\"}], " STAGED_META ("1", "") "},\n"
    "{\"name\": \"b\", \"op\": \"call_function\", \"target\": \"torch.relu\", "
    "\"args\": [{\"node\": \"a\"}], " STAGED_META ("2", "") "},\n"
    "{\"name\": \"c\", \"op\": \"call_function\", \"target\": \"torch.relu\", "
    "\"args\": [{\"node\": \"b\"}], " STAGED_META ("1", ", \"from\": {\"node\": \"x\"}") "},\n"
    "{\"name\": \"d\", \"op\": \"call_function\", \"target\": \"torch.relu\", "
    "\"args\": [{\"node\": \"c\"}], " STAGED_META ("1", ", \"from\": {\"node\": \"b\"}") "},\n"
    OUT));
#undef STAGED_META
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  const FxsNode *x = fxs_graph_lookup_node (g, "x"), *a = fxs_graph_lookup_node (g, "a");
  const FxsNode *b = fxs_graph_lookup_node (g, "b"), *c = fxs_graph_lookup_node (g, "c");
  const FxsNode *d = fxs_graph_lookup_node (g, "d");
  CU_ASSERT_PTR_EQUAL (fxs_node_meta (x), fxs_node_meta (a));
  CU_ASSERT_PTR_NOT_EQUAL (fxs_node_meta (x), fxs_node_meta (b));
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_node_meta_lookup (b, "stage")), 2);
  /* references are read for each node: c and d refer to other nodes */
  CU_ASSERT_PTR_EQUAL (fxs_value_get_node (fxs_node_meta_lookup (c, "from")), x);
  CU_ASSERT_PTR_EQUAL (fxs_value_get_node (fxs_node_meta_lookup (d, "from")), b);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_node_meta_lookup (a, "stage")), 1);
  CU_ASSERT_EQUAL (fxs_tensor_rank (fxs_node_tensor (a, 0)), 2);
  fxs_graph_unref (g);

  /* metas are compared a word at a time: texts that differ past their first
   * word, in their last byte or only in length are different metas */
  static const char *const tags[] = { "a-long-tag-of-twenty", "a-long-tag-of-twentY",
                                      "a-long-tag-of-twent", "a-long-t", "a-long-tag-of-twenty!",
                                      "a-long-tag-of-twenty" /* with another number */ };
  GString *nodes = g_string_new (HEAD "\"nodes\": [\n");
  for (guint i = 0; i < G_N_ELEMENTS (tags); i++)
    g_string_append_printf (nodes, "{\"name\": \"p%u\", \"op\": \"placeholder\", "
                            "\"target\": \"p%u\", \"meta\": {\"tag\": \"%s\", \"n\": %s}},\n",
                            i, i, tags[i], i == 5 ? "1234567890124" : "1234567890123");
  g_string_append (nodes, OUT "]}");
  g = load_ok (nodes->str);
  g_string_free (nodes, TRUE);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  for (guint i = 0; i < G_N_ELEMENTS (tags); i++)
    {
      char name[8];
      g_snprintf (name, sizeof name, "p%u", i);
      const FxsNode *p = fxs_graph_lookup_node (g, name);
      CU_ASSERT_STRING_EQUAL (fxs_value_get_string (fxs_node_meta_lookup (p, "tag")), tags[i]);
      for (guint j = 0; j < i; j++)
        {
          g_snprintf (name, sizeof name, "p%u", j);
          CU_ASSERT_PTR_NOT_EQUAL (fxs_node_meta (p), fxs_node_meta (fxs_graph_lookup_node (g, name)));
        }
    }
  fxs_graph_unref (g);
}

static void
test_load_finds_targets_while_reading (void)
{
  /* the loader finds each get_attr's attribute as it reads the node (the
   * attribute's name hashed from the streamed key, the target from the
   * node's tree): names of every length around the 8-byte words hashed */
  GString *json = g_string_new (HEAD "\"attributes\": {");
  for (guint len = 1; len <= 40; len++)
    {
      char *name = g_strnfill (len, (char) ('a' + len % 26));
      g_string_append_printf (json, "%s\"%s\": {\"kind\": \"parameter\"}", len > 1 ? ", " : "", name);
      g_free (name);
    }
  g_string_append (json, "},\n\"nodes\": [");
  for (guint len = 1; len <= 40; len++)
    {
      char *name = g_strnfill (len, (char) ('a' + len % 26));
      g_string_append_printf (json, "{\"name\": \"n%u\", \"op\": \"get_attr\", \"target\": \"%s\"},\n",
                              len, name);
      g_free (name);
    }
  g_string_append (json, OUT "]}");
  FxsGraph *g = load_ok (json->str);
  g_string_free (json, TRUE);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  /* as the loader left them, before anything looks the missing ones up */
  CU_ASSERT_EQUAL_FATAL (g->target_attrs->len, 41);
  for (guint i = 0; i < 40; i++)
    CU_ASSERT_EQUAL (g_array_index (g->target_attrs, guint32, i), i);
  fxs_graph_unref (g);
}

static void
test_load_values (void)
{
  FxsGraph *g = load_ok (NODES (
    "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", \"args\": [{\"tuple\": [1, 2]}], "
    " \"type\": \"typing.Tuple[int, int]\"},\n"
    "{\"name\": \"f\", \"op\": \"call_function\", \"target\": \"builtins.f\", \"args\": ["
    "  9223372036854775807, -9223372036854775808, -0, 1.0, 1e-05, -0.0, 2.5E+3,"
    "  {\"float\": \"inf\"}, {\"float\": \"-inf\"}, {\"float\": \"nan\"},"
    "  \"q\\\"b\\\\n\\n\\u0000\\u00e9\\ud83d\\ude00\", true, false, null, [], {\"tuple\": []},"
    "  {\"dict\": [[1, \"one\"], [\"k\", {\"node\": \"x\"}]]}, {\"dict\": []}],"
    " \"kwargs\": {\"\\u00e9t\\u00e9\": {\"slice\": [null, {\"node\": \"x\"}, -1]}},"
    " \"meta\": {\"tensor\": {\"shape\": [2, \"s0 + 1\", null], \"dtype\": null},"
    "  \"free_symbols\": [\"s0\"], \"symbol\": \"s1\", \"tag\": \"a\", \"cost\": 2.5,"
    "  \"nested\": {\"dict\": [[\"k\", [1, 2]]]}}},\n"
    OUT));
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  const FxsNode *x = fxs_graph_node (g, 0);
  CU_ASSERT_STRING_EQUAL (fxs_node_type (x), "typing.Tuple[int, int]");
  CU_ASSERT_EQUAL (fxs_value_n_items (fxs_node_default_value (x)), 2);
  const FxsNode *f = fxs_graph_node (g, 1);
  const FxsValue *a = fxs_node_args (f);
  CU_ASSERT_EQUAL (fxs_value_n_items (a), 18);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (a, 0)), G_MAXINT64);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (a, 1)), G_MININT64);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 2)), FXS_VALUE_INT);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 3)), FXS_VALUE_FLOAT);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (a, 4)), 1e-05);
  CU_ASSERT_TRUE (signbit (fxs_value_get_float (fxs_value_item (a, 5))));
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (a, 6)), 2500.0);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (a, 7)), INFINITY);
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_value_item (a, 8)), -INFINITY);
  CU_ASSERT_TRUE (isnan (fxs_value_get_float (fxs_value_item (a, 9))));
  const FxsValue *s = fxs_value_item (a, 10);
  static const char expected[] = "q\"b\\n\n\0\xc3\xa9\xf0\x9f\x98\x80";
  CU_ASSERT_EQUAL (fxs_value_get_string_length (s), sizeof expected - 1);
  CU_ASSERT_TRUE (memcmp (fxs_value_get_string (s), expected, sizeof expected - 1) == 0);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 13)), FXS_VALUE_NONE);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 14)), FXS_VALUE_LIST);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_value_item (a, 15)), FXS_VALUE_TUPLE);
  const FxsValue *d = fxs_value_item (a, 16);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_dict_key (d, 0)), 1);
  CU_ASSERT_PTR_EQUAL (fxs_value_get_node (fxs_value_dict_lookup (d, "k")), x);
  const FxsValue *sl = fxs_value_dict_lookup (fxs_node_kwargs (f), "\xc3\xa9t\xc3\xa9");
  CU_ASSERT_EQUAL (fxs_value_kind (sl), FXS_VALUE_SLICE);
  CU_ASSERT_EQUAL (fxs_value_get_int (fxs_value_item (sl, 2)), -1);
  CU_ASSERT_EQUAL (fxs_node_n_users (x), 1);

  const FxsTensorMeta *t = fxs_node_tensor (f, 0);
  CU_ASSERT_FALSE (fxs_node_value_is_tuple (f));
  CU_ASSERT_EQUAL (fxs_tensor_rank (t), 3);
  CU_ASSERT_EQUAL (fxs_tensor_dim (t, 0), 2);
  CU_ASSERT_EQUAL (fxs_tensor_dim (t, 1), -1);
  CU_ASSERT_STRING_EQUAL (fxs_tensor_dim_symbol (t, 1), "s0 + 1");
  CU_ASSERT_PTR_NULL (fxs_tensor_dim_symbol (t, 2));
  CU_ASSERT_PTR_NULL (fxs_tensor_dtype (t));
  CU_ASSERT_EQUAL (fxs_node_n_free_symbols (f), 1);
  CU_ASSERT_STRING_EQUAL (fxs_node_free_symbol (f, 0), "s0");
  CU_ASSERT_STRING_EQUAL (fxs_node_symbol (f), "s1");
  CU_ASSERT_EQUAL (fxs_value_n_items (fxs_node_meta (f)), 3);
  CU_ASSERT_STRING_EQUAL (fxs_value_get_string (fxs_node_meta_lookup (f, "tag")), "a");
  CU_ASSERT_EQUAL (fxs_value_get_float (fxs_node_meta_lookup (f, "cost")), 2.5);
  CU_ASSERT_EQUAL (fxs_value_kind (fxs_node_meta_lookup (f, "nested")), FXS_VALUE_DICT);
  CU_ASSERT_PTR_NULL (fxs_node_meta_lookup (f, "tensor"));
  CU_ASSERT_EQUAL (fxs_value_n_items (fxs_node_meta (x)), 0);
  fxs_graph_unref (g);
}

static void
test_load_extensions_and_order (void)
{
  /* members after the head in any order; x-... members ignored whatever
   * they hold; an empty meta is no meta */
  FxsGraph *g = load_ok ("{\"version\": 1, \"format\": \"fxsplit-graph\",\n"
                         " \"x-tool\": {\"a\": [1, {\"b\": null}]},\n"
                         " \"nodes\": [" X ", " OUT "],\n"
                         " \"attributes\": {\"w\": {\"kind\": \"object\"}}}");
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (g), 2);
  CU_ASSERT_EQUAL (fxs_attr_kind (fxs_graph_lookup_attr (g, "w")), FXS_ATTR_OBJECT);
  fxs_graph_unref (g);
}

static void
test_load_split_result (void)
{
  char *path = data_path ("split-result.json");
  GError *error = NULL;
  FxsGraph *top = fxs_graph_load_file (path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (top);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (top), 4);
  CU_ASSERT_EQUAL (fxs_graph_n_attrs (top), 2);
  CU_ASSERT_STRING_EQUAL (fxs_tensor_dim_symbol (fxs_node_tensor (fxs_graph_node (top, 0), 0), 0), "s0");
  fxs_graph_unref (top);

  FxsGraph *s0 = fxs_graph_load_submodule_file (path, "submod_0", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s0);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (s0), 3);
  CU_ASSERT_EQUAL (fxs_attr_bytes (fxs_graph_lookup_attr (s0, "linear")), 64);
  CU_ASSERT_STRING_EQUAL (fxs_node_free_symbol (fxs_graph_lookup_node (s0, "linear"), 0), "s0");
  fxs_graph_unref (s0);

  FxsGraph *s1 = fxs_graph_load_submodule_file (path, "submod_1", &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s1);
  CU_ASSERT_EQUAL (fxs_graph_n_attrs (s1), 0);
  CU_ASSERT_STRING_EQUAL (fxs_value_get_string (fxs_node_meta_lookup (fxs_graph_lookup_node (s1, "relu"), "tag")),
                          "stage1");
  CU_ASSERT_EQUAL (fxs_node_op (fxs_graph_node (s1, 0)), FXS_OP_PLACEHOLDER);
  fxs_graph_unref (s1);
  CU_ASSERT_PTR_NULL (error);
  g_free (path);
}

static const char *
long_name (char buf[64], guint i)
{
  g_snprintf (buf, 64, "node_with_a_long_name_%u", i);
  return buf;
}

/* A file of several MiB: tokens span the 1 MiB read chunks, and an error
 * near the end is located by line. */
static void
test_load_large_file (void)
{
  const guint n = 40000;
  char names[64];
  GString *text = g_string_new (HEAD "\"nodes\": [\n" X);
  for (guint i = 1; i < n; i++)
    g_string_append_printf (text, ",\n{\"name\": \"node_with_a_long_name_%u\", \"op\": \"call_function\", "
                            "\"target\": \"torch.relu\", \"args\": [{\"node\": \"%s\"}], "
                            "\"meta\": {\"tensor\": {\"shape\": [64, %u], \"dtype\": \"torch.float16\"}}}",
                            i, i == 1 ? "x" : long_name (names, i - 1), i);
  gsize good_len = text->len;
  g_string_append (text, ",\n" OUT "]}");
  CU_ASSERT_TRUE (text->len > 5 * 1024 * 1024);
  char *dir = g_dir_make_tmp ("fxs-load-XXXXXX", NULL);
  char *path = g_build_filename (dir, "big.json", NULL);
  g_file_set_contents (path, text->str, (gssize) text->len, NULL);
  GError *error = NULL;
  FxsGraph *g = fxs_graph_load_file (path, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  CU_ASSERT_EQUAL (fxs_graph_n_nodes (g), n + 1);
  const FxsNode *last = fxs_graph_node (g, n - 1);
  CU_ASSERT_EQUAL (fxs_tensor_dim (fxs_node_tensor (last, 0), 1), n - 1);
  CU_ASSERT_EQUAL (fxs_node_output_bytes (last), 64 * (n - 1) * 2);
  CU_ASSERT_EQUAL (fxs_node_n_users (fxs_graph_node (g, n - 2)), 1);
  fxs_graph_unref (g);

  /* the same with a dangling reference in the last node */
  g_string_truncate (text, good_len);
  g_string_append (text, ",\n{\"name\": \"bad\", \"op\": \"call_function\", \"target\": \"f\", "
                   "\"args\": [{\"node\": \"missing\"}]},\n" OUT "]}");
  g_file_set_contents (path, text->str, (gssize) text->len, NULL);
  g = fxs_graph_load_file (path, &error);
  CU_ASSERT_PTR_NULL (g);
  char *expected = g_strdup_printf ("%s:%u:73: nodes[%u].args[0].node: node \"bad\": refers to "
                                    "\"missing\", which is not a node of this graph", path, n + 3, n);
  CU_ASSERT_TRUE (error && strcmp (error->message, expected) == 0);
  if (error && strcmp (error->message, expected) != 0)
    fprintf (stderr, "\n  expected %s\n  got      %s\n", expected, error->message);
  g_free (expected);
  g_clear_error (&error);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  g_string_free (text, TRUE);
}

/* Every prefix of a valid file, and every one-byte corruption of it, is
 * either loaded or refused with a located one-line error: never a crash or a
 * leak (valgrind checks the latter). */
static void
test_load_corrupted_inputs (void)
{
  char *path = data_path ("torch-export.json");
  char *text;
  gsize len;
  CU_ASSERT_TRUE_FATAL (g_file_get_contents (path, &text, &len, NULL));
  g_free (path);
  guint refused = 0, loaded = 0, bad_messages = 0;
  static const char replacements[] = { '"', '}', ']', '{', '[', ',', ':', '\0', '\xff', '1', 'x',
                                       '\\', '\n' };
  for (gsize cut = 0; cut <= len; cut++)
    {
      GError *error = NULL;
      FxsGraph *g = fxs_graph_load_data (text, cut, "t.json", &error);
      gboolean whole = cut == len || (cut == len - 1 && text[cut] == '\n');
      if (g)
        loaded++;
      else
        refused++;
      if (!g && (!g_str_has_prefix (error->message, "t.json:") || strchr (error->message, '\n')))
        bad_messages++;
      CU_ASSERT_EQUAL (g != NULL, whole);
      fxs_graph_unref (g);
      g_clear_error (&error);
    }
  for (gsize at = 0; at < len; at += 3)
    for (guint r = 0; r < G_N_ELEMENTS (replacements); r++)
      {
        char saved = text[at];
        text[at] = replacements[r];
        GError *error = NULL;
        FxsGraph *g = fxs_graph_load_data (text, len, "t.json", &error);
        if (!g && (!g_str_has_prefix (error->message, "t.json:") || strchr (error->message, '\n')))
          bad_messages++;
        fxs_graph_unref (g);
        g_clear_error (&error);
        text[at] = saved;
      }
  CU_ASSERT_EQUAL (bad_messages, 0);
  CU_ASSERT_TRUE (loaded == 2 && refused == len - 1);
  g_free (text);
}

/* ---- the streaming reader ------------------------------------------------ */

/* A consumer that collects the whole document and prints it back in a
 * canonical form (what every chunking must agree on). */
static void
print_json (GString *out, const FxsJson *j)
{
  switch ((FxsJsonType) j->type)
    {
    case FXS_JSON_NULL: g_string_append (out, "null"); break;
    case FXS_JSON_BOOL: g_string_append (out, j->u.b ? "true" : "false"); break;
    case FXS_JSON_NUMBER: g_string_append (out, j->u.s); break;
    case FXS_JSON_STRING:
      g_string_append_c (out, '<');
      for (guint i = 0; i < j->n; i++)
        g_string_append_printf (out, "%02x", (guchar) j->u.s[i]);
      g_string_append_c (out, '>');
      break;
    case FXS_JSON_ARRAY:
      g_string_append_c (out, '[');
      for (guint i = 0; i < j->n; i++)
        print_json (out, &j->u.items[i]);
      g_string_append_c (out, ']');
      break;
    case FXS_JSON_OBJECT:
      g_string_append_c (out, '{');
      for (guint i = 0; i < 2 * j->n; i++)
        print_json (out, &j->u.items[i]);
      g_string_append_c (out, '}');
      break;
    }
  g_string_append_printf (out, "@%" G_GINT64_FORMAT " ", j->pos);
}

static FxsJsonAction
collect_begin (FxsJsonReader *r, gpointer data, const FxsJsonItem *item, int *tag)
{
  (void) r, (void) data, (void) item;
  *tag = 1;
  return FXS_JSON_COLLECT;
}

static gboolean
collect_value (FxsJsonReader *r, gpointer data, const FxsJsonItem *item, const FxsJson *v)
{
  (void) r, (void) item;
  print_json (data, v);
  return TRUE;
}

static gboolean
collect_end (FxsJsonReader *r, gpointer data, int tag, guint64 n, gint64 pos)
{
  (void) r, (void) data, (void) tag, (void) n, (void) pos;
  return TRUE;
}

static const FxsJsonHandler collect_handler = { collect_begin, collect_value, collect_end, NULL };

static char *
read_with (const char *json, gsize chunk, gsize max_string, GError **error)
{
  GString *out = g_string_new (NULL);
  FxsJsonReader *r = fxs_json_reader_new ("t.json", &collect_handler, out);
  fxs_json_reader_set_chunk_size (r, chunk);
  if (max_string)
    fxs_json_reader_set_max_string (r, max_string);
  gboolean ok = fxs_json_reader_parse_data (r, json, strlen (json), error);
  fxs_json_reader_free (r);
  return g_string_free (out, !ok);
}

static void
test_reader_chunks (void)
{
  const char *doc = "{\"a\\\"b\": [1, -2.5e-3, true, false, null, \"\\u00e9\\ud83d\\ude00x\"],\n"
                    " \"long\": \"" "0123456789012345678901234567890123456789" "\",\n"
                    " \"o\": {\"k\": {}, \"l\": [[], [[]]]}, \"n\": 12345678901234567890}";
  GError *error = NULL;
  char *whole = read_with (doc, 1 << 20, 0, &error);
  CU_ASSERT_PTR_NOT_NULL_FATAL (whole);
  static const gsize chunks[] = { 1, 2, 3, 5, 7, 16, 64 };
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    {
      char *got = read_with (doc, chunks[i], 0, &error);
      CU_ASSERT_STRING_EQUAL (got ? got : "", whole);
      g_free (got);
    }
  g_free (whole);

  /* errors are located the same way whatever the chunking */
  const char *bad = "{\"a\": [1, 2],\n \"b\": {\"c\": 1, \"c\": 2}}";
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    {
      CU_ASSERT_PTR_NULL (read_with (bad, chunks[i], 0, &error));
      CU_ASSERT_STRING_EQUAL (error ? error->message : "", "t.json:2:16: b.c: duplicate key");
      g_clear_error (&error);
      CU_ASSERT_PTR_NULL (read_with ("[1, 2,\n 3 x]", chunks[i], 0, &error));
      CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, "t.json:2:4: invalid JSON"));
      g_clear_error (&error);
    }
}

static void
test_reader_limits (void)
{
  GError *error = NULL;
  /* strings: one longer than the limit in a single chunk, or spread over
   * chunks (yajl would buffer it), keys too */
  CU_ASSERT_PTR_NULL (read_with ("[\"0123456789abcdefX\"]", 1 << 20, 16, &error));
  CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_PARSE));
  CU_ASSERT_STRING_EQUAL (error ? error->message : "",
                          "t.json:1:2: [0]: a string of 17 bytes, longer than the limit of 16");
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (read_with ("[1,\n   \"0123456789abcdef0123456789abcdef0123456789\"]", 4, 16, &error));
  CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, "t.json:2:4: "));
  CU_ASSERT_TRUE (error && strstr (error->message, "longer than the limit of 16 bytes"));
  g_clear_error (&error);
  CU_ASSERT_PTR_NULL (read_with ("{\"0123456789abcdefX\": 1}", 1 << 20, 16, &error));
  CU_ASSERT_TRUE (error && strstr (error->message, "a key of 17 bytes"));
  g_clear_error (&error);
  char *ok = read_with ("[\"0123456789abcdef\"]", 4, 16, &error);
  CU_ASSERT_PTR_NOT_NULL (ok);
  g_free (ok);

  /* a long string over many small chunks: yajl rescans a pending token with
   * every chunk, so without growing chunks this would take minutes */
  GString *long_doc = g_string_new ("[\"");
  for (guint i = 0; i < (1u << 20); i++)
    g_string_append_c (long_doc, 'a' + i % 26);
  g_string_append (long_doc, "\", 1]");
  ok = read_with (long_doc->str, 1, 0, &error);
  CU_ASSERT_PTR_NOT_NULL (ok);
  CU_ASSERT_TRUE (ok && g_str_has_suffix (ok, "1@1048579 ]@0 "));
  g_free (ok);
  g_string_free (long_doc, TRUE);

  /* runs of blanks: exactly the limit is fine (a separator does not
   * count), one more is not, wherever chunks and pieces of the input end;
   * the error is at the run's first blank */
  static const char *const blank_cases[] = {
    "[1,%s2]", "[1%s,2]", "%s[1]", "[1]%s", "{\"a\":%s1}", "[\"a b\"%s]",
  };
  for (guint c = 0; c < G_N_ELEMENTS (blank_cases); c++)
    for (guint extra = 0; extra < 2; extra++)
      for (gsize chunk = 1; chunk <= 40; chunk += chunk < 8 ? 1 : 13)
        {
          char *blanks = g_strnfill (16 + extra, ' ');
          blanks[3] = '\n';
          blanks[7] = '\t';
          char *doc = g_strdup_printf (blank_cases[c], blanks);
          char *got = read_with (doc, chunk, 16, &error);
          CU_ASSERT_EQUAL (got != NULL, extra == 0);
          if (extra)
            {
              gsize at = (gsize) (strstr (doc, blanks) - doc);
              char *where = at == 0 ? g_strdup ("t.json:1:1: ")
                                    : g_strdup_printf ("t.json:1:%zu: ", at + 1);
              gboolean ok = error && g_str_has_prefix (error->message, where)
                            && strstr (error->message, "a run of blanks longer than the limit of 16");
              CU_ASSERT_TRUE (ok);
              if (!ok)
                fprintf (stderr, "\n  %s (chunk %zu): %s\n", blank_cases[c], chunk,
                         error ? error->message : "(read)");
              g_free (where);
            }
          g_free (got);
          g_clear_error (&error);
          g_free (doc);
          g_free (blanks);
        }
  /* two runs of the limit around a separator are two runs */
  char *two = g_strdup_printf ("[1%s,%s2]", "                ", "                ");
  char *got_two = read_with (two, 5, 16, &error);
  CU_ASSERT_PTR_NOT_NULL (got_two);
  g_free (got_two);
  g_free (two);
  g_clear_error (&error);
  /* unpaired surrogate escapes, whatever the chunks (the scanner keeps its
   * state between them) */
  for (gsize chunk = 1; chunk <= 16; chunk++)
    {
      CU_ASSERT_PTR_NULL (read_with ("[\"x\", \"ab\\ud800\\u0041\"]", chunk, 0, &error));
      CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, "t.json:1:7: [1]: a string that "
                                                 "is not valid text"));
      g_clear_error (&error);
      char *ok_pair = read_with ("[\"\\\\\\ud83d\\ude00\\\\ud800\"]", chunk, 0, &error);
      CU_ASSERT_PTR_NOT_NULL (ok_pair);
      g_free (ok_pair);
      g_clear_error (&error);
    }

  /* depth: exactly the limit is fine, one more is not */
  for (guint extra = 0; extra < 2; extra++)
    {
      guint depth = FXS_JSON_MAX_DEPTH + extra;
      GString *doc = g_string_new (NULL);
      for (guint i = 0; i < depth; i++)
        g_string_append_c (doc, '[');
      for (guint i = 0; i < depth; i++)
        g_string_append_c (doc, ']');
      char *got = read_with (doc->str, 1 << 20, 0, &error);
      CU_ASSERT_EQUAL (got != NULL, extra == 0);
      if (extra)
        CU_ASSERT_TRUE (error && g_str_has_prefix (error->message, "t.json:1:513: "));
      g_free (got);
      g_clear_error (&error);
      g_string_free (doc, TRUE);
    }
}

static void
register_tests (void)
{
  static const FxsTestCase errors[] = {
    FXS_TEST (test_errors_json),
    FXS_TEST (test_errors_top_level),
    FXS_TEST (test_errors_node_structure),
    FXS_TEST (test_errors_values),
    FXS_TEST (test_errors_surrogate_escapes),
    FXS_TEST (test_errors_graph_rules),
    FXS_TEST (test_errors_meta_and_attributes),
    FXS_TEST (test_errors_split_result),
    FXS_TEST (test_errors_files),
    FXS_TEST (test_errors_deep_nesting),
    { NULL, NULL },
  };
  static const FxsTestCase loading[] = {
    FXS_TEST (test_load_torch_export),
    FXS_TEST (test_load_values),
    FXS_TEST (test_load_shared_meta),
    FXS_TEST (test_load_finds_targets_while_reading),
    FXS_TEST (test_load_extensions_and_order),
    FXS_TEST (test_load_split_result),
    FXS_TEST (test_load_large_file),
    FXS_TEST (test_load_corrupted_inputs),
    { NULL, NULL },
  };
  static const FxsTestCase reader[] = {
    FXS_TEST (test_reader_chunks),
    FXS_TEST (test_reader_limits),
    { NULL, NULL },
  };
  fxs_test_add_suite ("load errors", errors);
  fxs_test_add_suite ("loading", loading);
  fxs_test_add_suite ("streaming reader", reader);
}

FXS_TEST_MAIN (register_tests)
