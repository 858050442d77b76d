/* Unit tests of the python output's code text (plugins/outputs/python):
 * GraphModule.code of hand-written graphs, byte for byte as torch.fx 1.13
 * prints it (the expected texts were printed by torch 1.13 for the same
 * graphs), plus the namespace, string repr and the errors. */
#include <fxsplit/fxsplit.h>
#include <string.h>

#include "codegen.h"
#include "json-literal.h"
#include "split/names.h"
#include "pynames.h"
#include "pynamespace.h"
#include "pyrepr.h"
#include "../test-util.h"

typedef struct {
  const char *name;
  const char *graph;    /* a graph file */
  const char *code;     /* what torch.fx 1.13 prints */
} CodeCase;

static const CodeCase code_cases[] = {
  { "return_none",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {}, \"nodes\": [\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [null]}\n"
    "]}\n",
    "\n"
    "\n"
    "\n"
    "def forward(self):\n"
    "    return None\n"
    "    " },
  { "constants",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {}, \"nodes\": [\n"
    " {\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"},\n"
    " {\"name\": \"add\", \"op\": \"call_function\", \"target\": \"torch.add\", \"args\": [{\"node\": \"x\"}, [null, true, false, 3, -7, 1.0, 1e-05, 1e+16, {\"float\": \"inf\"}, {\"float\": \"-inf\"}, {\"float\": \"nan\"}, -0.0]], \"kwargs\": {\"alpha\": {\"tuple\": []}, \"b\": {\"tuple\": [1]}, \"c\": {\"dict\": [[\"k\", \"v\"], [2, [{\"node\": \"x\"}]]]}}},\n"
    " {\"name\": \"getitem\", \"op\": \"call_function\", \"target\": \"_operator.getitem\", \"args\": [{\"node\": \"add\"}, {\"tuple\": [{\"slice\": [null, 2, null]}, {\"ellipsis\": true}, {\"slice\": [1, null, -1]}]}]},\n"
    " {\"name\": \"to\", \"op\": \"call_method\", \"target\": \"to\", \"args\": [{\"node\": \"getitem\"}, {\"opaque\": \"torch.dtype\", \"repr\": \"torch.float16\"}], \"kwargs\": {\"device\": {\"opaque\": \"torch.device\", \"repr\": \"device(type='cpu')\"}, \"memory_format\": {\"opaque\": \"torch.memory_format\", \"repr\": \"torch.contiguous_format\"}, \"layout\": {\"opaque\": \"torch.layout\", \"repr\": \"torch.strided\"}}},\n"
    " {\"name\": \"cat\", \"op\": \"call_function\", \"target\": \"torch.cat\", \"args\": [[\"it's\", \"say \\\"hi\\\"\", \"both ' and \\\"\", \"tab\\tnl\\nbs\\\\\", \"\\u0000\177\302\205\302\240\303\251\342\202\254\360\237\230\200\342\200\213\"]]},\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"tuple\": [{\"node\": \"to\"}, {\"node\": \"cat\"}]}]}\n"
    "]}\n",
    "\n"
    "\n"
    "\n"
    "def forward(self, x):\n"
    "    add = torch.add(x, [None, True, False, 3, -7, 1.0, 1e-05, 1e+16, inf, -inf, nan, -0.0], alpha = (), b = (1,), c = {'k': 'v', 2: [x]});  x = None\n"
    "    getitem = add[(slice(None, 2, None), Ellipsis, slice(1, None, -1))];  add = None\n"
    "    to = getitem.to(torch.float16, device = device(type='cpu'), memory_format = torch.contiguous_format, layout = torch.strided);  getitem = None\n"
    "    cat = torch.cat([\"it's\", 'say \"hi\"', 'both \\' and \"', 'tab\\tnl\\nbs\\\\', '\\x00\\x7f\\x85\\xa0\303\251\342\202\254\360\237\230\200\\u200b'])\n"
    "    return (to, cat)\n"
    "    " },
  { "operators",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {}, \"nodes\": [\n"
    " {\"name\": \"a\", \"op\": \"placeholder\", \"target\": \"a\"},\n"
    " {\"name\": \"b\", \"op\": \"placeholder\", \"target\": \"b\"},\n"
    " {\"name\": \"neg\", \"op\": \"call_function\", \"target\": \"_operator.neg\", \"args\": [{\"node\": \"a\"}]},\n"
    " {\"name\": \"invert\", \"op\": \"call_function\", \"target\": \"_operator.invert\", \"args\": [{\"node\": \"neg\"}]},\n"
    " {\"name\": \"pow_1\", \"op\": \"call_function\", \"target\": \"_operator.pow\", \"args\": [{\"node\": \"invert\"}, 2]},\n"
    " {\"name\": \"matmul\", \"op\": \"call_function\", \"target\": \"_operator.matmul\", \"args\": [{\"node\": \"pow_1\"}, {\"node\": \"b\"}]},\n"
    " {\"name\": \"iadd\", \"op\": \"call_function\", \"target\": \"_operator.iadd\", \"args\": [{\"node\": \"matmul\"}, 1]},\n"
    " {\"name\": \"setitem\", \"op\": \"call_function\", \"target\": \"_operator.setitem\", \"args\": [{\"node\": \"iadd\"}, 0, {\"node\": \"b\"}]},\n"
    " {\"name\": \"not_\", \"op\": \"call_function\", \"target\": \"_operator.not_\", \"args\": [{\"node\": \"matmul\"}]},\n"
    " {\"name\": \"getattr_1\", \"op\": \"call_function\", \"target\": \"getattr\", \"args\": [{\"node\": \"iadd\"}, \"shape\"]},\n"
    " {\"name\": \"getattr_2\", \"op\": \"call_function\", \"target\": \"builtins.getattr\", \"args\": [{\"node\": \"iadd\"}, \"not an id\", null]},\n"
    " {\"name\": \"sqrt\", \"op\": \"call_function\", \"target\": \"math.sqrt\", \"args\": [2.0]},\n"
    " {\"name\": \"eq\", \"op\": \"call_function\", \"target\": \"_operator.eq\", \"args\": [{\"node\": \"getattr_1\"}, {\"node\": \"getattr_2\"}, \"extra\"]},\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"node\": \"eq\"}]}\n"
    "]}\n",
    "\n"
    "\n"
    "\n"
    "def forward(self, a, b):\n"
    "    neg = -a;  a = None\n"
    "    invert = ~neg;  neg = None\n"
    "    pow_1 = invert ** 2;  invert = None\n"
    "    matmul = pow_1 @ b;  pow_1 = None\n"
    "    matmul += 1;  iadd = matmul\n"
    "    iadd[0] = b;  setitem = iadd;  b = None\n"
    "    not_ = _operator_not_(matmul);  matmul = None\n"
    "    getattr_1 = iadd.shape\n"
    "    getattr_2 = getattr(iadd, 'not an id', None);  iadd = None\n"
    "    sqrt = math_sqrt(2.0)\n"
    "    eq = getattr_1 == getattr_2;  getattr_1 = getattr_2 = None\n"
    "    return eq\n"
    "    " },
  { "signature",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {\"layer\": {\"kind\": \"module\", \"class\": \"torch.nn.Sequential\"}, \"layer.0\": {\"kind\": \"module\", \"class\": \"torch.nn.Linear\"}, \"layer.0.weight\": {\"kind\": \"parameter\"}, \"sub\": {\"kind\": \"module\", \"class\": \"torch.nn.Module\"}, \"sub.mod\": {\"kind\": \"module\", \"class\": \"torch.nn.Linear\"}}, \"nodes\": [\n"
    " {\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\", \"type\": \"torch.Tensor\"},\n"
    " {\"name\": \"y\", \"op\": \"placeholder\", \"target\": \"y\", \"args\": [2], \"type\": \"int\"},\n"
    " {\"name\": \"z\", \"op\": \"placeholder\", \"target\": \"z\", \"args\": [null]},\n"
    " {\"name\": \"w\", \"op\": \"placeholder\", \"target\": \"w\", \"args\": [{\"tuple\": [1, \"a\"]}], \"type\": \"typing.Optional[typing.List[torch.Tensor]]\"},\n"
    " {\"name\": \"layer_0_weight\", \"op\": \"get_attr\", \"target\": \"layer.0.weight\"},\n"
    " {\"name\": \"layer_0\", \"op\": \"call_module\", \"target\": \"layer.0\", \"args\": [{\"node\": \"x\"}], \"kwargs\": {\"scale\": {\"node\": \"y\"}}},\n"
    " {\"name\": \"sub_mod\", \"op\": \"call_module\", \"target\": \"sub.mod\", \"args\": [{\"node\": \"layer_0\"}, {\"node\": \"layer_0_weight\"}]},\n"
    " {\"name\": \"relu\", \"op\": \"call_function\", \"target\": \"torch.relu\", \"args\": [{\"node\": \"sub_mod\"}], \"type\": \"torch.Tensor\"},\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"tuple\": [{\"node\": \"relu\"}, {\"node\": \"z\"}, {\"node\": \"w\"}]}], \"type\": \"typing.Tuple[torch.Tensor, typing.Any, typing.Dict[str, int]]\"}\n"
    "]}\n",
    "\n"
    "\n"
    "\n"
    "def forward(self, x : torch.Tensor, y : int = 2, z = None, w : typing_Union[typing_List[torch.Tensor],NoneType] = (1, 'a')) -> typing_Tuple[torch.Tensor,typing_Any,typing_Dict[str,int]]:\n"
    "    layer_0_weight = getattr(self.layer, \"0\").weight\n"
    "    layer_0 = getattr(self.layer, \"0\")(x, scale = y);  x = y = None\n"
    "    sub_mod = self.sub.mod(layer_0, layer_0_weight);  layer_0 = layer_0_weight = None\n"
    "    relu : torch.Tensor = torch.relu(sub_mod);  sub_mod = None\n"
    "    return (relu, z, w)\n"
    "    " },
  { "globals",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {}, \"nodes\": [\n"
    " {\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"},\n"
    " {\"name\": \"math_sqrt\", \"op\": \"call_function\", \"target\": \"math.sqrt\", \"args\": [{\"node\": \"x\"}]},\n"
    " {\"name\": \"sqrt\", \"op\": \"call_function\", \"target\": \"math.sqrt\", \"args\": [{\"node\": \"math_sqrt\"}]},\n"
    " {\"name\": \"floor\", \"op\": \"call_function\", \"target\": \"math.floor\", \"args\": [{\"node\": \"sqrt\"}]},\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"node\": \"floor\"}]}\n"
    "]}\n",
    "\n"
    "\n"
    "\n"
    "def forward(self, x):\n"
    "    math_sqrt_1 = math_sqrt(x);  x = None\n"
    "    sqrt = math_sqrt(math_sqrt_1);  math_sqrt_1 = None\n"
    "    floor = math_floor(sqrt);  sqrt = None\n"
    "    return floor\n"
    "    " },
  { "wrapped",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {}, \"nodes\": [\n"
    " {\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"},\n"
    " {\"name\": \"floor\", \"op\": \"call_function\", \"target\": \"math.floor\", \"args\": [{\"node\": \"x\"}], \"meta\": {\"is_wrapped\": true}},\n"
    " {\"name\": \"ceil\", \"op\": \"call_function\", \"target\": \"math.ceil\", \"args\": [{\"node\": \"floor\"}], \"meta\": {\"is_wrapped\": true}},\n"
    " {\"name\": \"floor_1\", \"op\": \"call_function\", \"target\": \"math.floor\", \"args\": [{\"node\": \"ceil\"}], \"meta\": {\"is_wrapped\": true}},\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"tuple\": []}]}\n"
    "]}\n",
    "\n"
    "torch.fx._symbolic_trace.wrap(\"math_floor\")\n"
    "torch.fx._symbolic_trace.wrap(\"math_ceil\")\n"
    "\n"
    "def forward(self, x):\n"
    "    floor = math_floor(x);  x = None\n"
    "    ceil = math_ceil(floor);  floor = None\n"
    "    floor_1 = math_floor(ceil);  ceil = None\n"
    "    return ()\n"
    "    " },
  { "self_input",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {}, \"nodes\": [\n"
    " {\"name\": \"self\", \"op\": \"placeholder\", \"target\": \"self\"},\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"node\": \"self\"}]}\n"
    "]}\n",
    "\n"
    "\n"
    "\n"
    "def forward(self):\n"
    "    return self\n"
    "    " },
  { "star_args",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {}, \"nodes\": [\n"
    " {\"name\": \"_args\", \"op\": \"placeholder\", \"target\": \"*args\"},\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"node\": \"_args\"}]}\n"
    "]}\n",
    "\n"
    "\n"
    "\n"
    "def forward(self, *args):\n"
    "    _args = args\n"
    "    return _args\n"
    "    " },
  { "names",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {}, \"nodes\": [\n"
    " {\"name\": \"x_01\", \"op\": \"placeholder\", \"target\": \"x_01\"},\n"
    " {\"name\": \"add_007\", \"op\": \"call_function\", \"target\": \"_operator.add\", \"args\": [{\"node\": \"x_01\"}, 1]},\n"
    " {\"name\": \"add_7\", \"op\": \"call_function\", \"target\": \"_operator.add\", \"args\": [{\"node\": \"add_007\"}, 1]},\n"
    " {\"name\": \"add\", \"op\": \"call_function\", \"target\": \"_operator.add\", \"args\": [{\"node\": \"add_7\"}, {\"node\": \"add_007\"}]},\n"
    " {\"name\": \"a_b\", \"op\": \"call_method\", \"target\": \"a.b\", \"args\": [{\"node\": \"add\"}]},\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [[{\"node\": \"a_b\"}, {\"dict\": [[\"k\", {\"node\": \"add\"}]]}]]}\n"
    "]}\n",
    "\n"
    "\n"
    "\n"
    "def forward(self, x_01):\n"
    "    x_1 = x_01\n"
    "    add_7 = x_1 + 1;  x_1 = None\n"
    "    add_8 = add_7 + 1\n"
    "    add = add_8 + add_7;  add_8 = add_7 = None\n"
    "    a_b = add.a.b()\n"
    "    return [a_b, {'k': add}]\n"
    "    " },
  { "types",
    "{\"format\": \"fxsplit-graph\", \"version\": 1, \"attributes\": {}, \"nodes\": [\n"
    " {\"name\": \"a\", \"op\": \"placeholder\", \"target\": \"a\", \"type\": \"typing.Tuple[int, ...]\"},\n"
    " {\"name\": \"b\", \"op\": \"placeholder\", \"target\": \"b\", \"type\": \"typing.Callable[[int, str], float]\"},\n"
    " {\"name\": \"c\", \"op\": \"placeholder\", \"target\": \"c\", \"type\": \"list[int]\"},\n"
    " {\"name\": \"d\", \"op\": \"placeholder\", \"target\": \"d\", \"type\": \"typing.Sequence[torch.device]\"},\n"
    " {\"name\": \"e\", \"op\": \"placeholder\", \"target\": \"e\", \"type\": \"typing.Tuple[()]\"},\n"
    " {\"name\": \"f\", \"op\": \"placeholder\", \"target\": \"f\", \"type\": \"typing.Union[int, str, NoneType]\"},\n"
    " {\"name\": \"g\", \"op\": \"placeholder\", \"target\": \"g\", \"type\": \"typing.List\"},\n"
    " {\"name\": \"h\", \"op\": \"placeholder\", \"target\": \"h\", \"type\": \"collections.OrderedDict[str, int]\"},\n"
    " {\"name\": \"i\", \"op\": \"placeholder\", \"target\": \"i\", \"type\": \"torch.device\"},\n"
    " {\"name\": \"j\", \"op\": \"placeholder\", \"target\": \"j\", \"type\": \"int | None\"},\n"
    " {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"tuple\": [{\"node\": \"a\"}, {\"node\": \"b\"}]}], \"type\": \"typing.Type[torch.Tensor]\"}\n"
    "]}\n",
    "\n"
    "\n"
    "\n"
    "def forward(self, a : typing_Tuple[int,_], b : collections_abc_Callable[int,str,float], c : typing_List[int], d : collections_abc_Sequence[device], e : typing_Tuple, f : typing_Union[int,str,NoneType], g : typing_List, h : collections_OrderedDict[str,int], i : device, j : int_None) -> type[torch.Tensor]:\n"
    "    return (a, b)\n"
    "    " },
};

static FxsGraph *
load (const char *name, const char *text)
{
  GError *error = NULL;
  FxsGraph *graph = fxs_graph_load_data (text, strlen (text), name, &error);
  if (!graph)
    fprintf (stderr, "%s\n", error->message);
  g_clear_error (&error);
  return graph;
}

static gboolean
text_equal (const char *what, const char *actual, const char *expected)
{
  if (strcmp (actual, expected) == 0)
    return TRUE;
  fprintf (stderr, "\n%s: got\n---\n%s\n---\nexpected\n---\n%s\n---\n", what, actual, expected);
  return FALSE;
}

static void
test_code_texts (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (code_cases); i++)
    {
      const CodeCase *c = &code_cases[i];
      FxsGraph *graph = load (c->name, c->graph);
      CU_ASSERT_PTR_NOT_NULL_FATAL (graph);
      GString *code = g_string_new (NULL);
      GError *error = NULL;
      gboolean ok = fxs_py_codegen (graph, code, &error);
      if (!ok)
        fprintf (stderr, "%s: %s\n", c->name, error->message);
      CU_ASSERT_TRUE (ok);
      CU_ASSERT_TRUE (text_equal (c->name, code->str, c->code));
      g_clear_error (&error);
      g_string_free (code, TRUE);
      fxs_graph_unref (graph);
    }
}

/* Appending to a non-empty string keeps what was there. */
static void
test_code_appends (void)
{
  FxsGraph *graph = load ("return_none", code_cases[0].graph);
  CU_ASSERT_PTR_NOT_NULL_FATAL (graph);
  GString *code = g_string_new ("prefix");
  CU_ASSERT_TRUE (fxs_py_codegen (graph, code, NULL));
  CU_ASSERT_TRUE (g_str_has_prefix (code->str, "prefix\n"));
  CU_ASSERT_STRING_EQUAL (code->str + strlen ("prefix"), code_cases[0].code);
  g_string_free (code, TRUE);
  fxs_graph_unref (graph);
}

#define GRAPH_START "{\"format\": \"fxsplit-graph\", \"version\": 1, \"nodes\": ["
#define X_INPUT "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"},"
#define OUTPUT_X "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [{\"node\": \"x\"}]}]}"

static void
test_code_errors (void)
{
  static const struct {
    const char *graph, *message;
  } cases[] = {
    { GRAPH_START X_INPUT
      "{\"name\": \"add\", \"op\": \"call_function\", \"target\": \"_operator.add\", \"args\": [{\"node\": \"x\"}]},"
      OUTPUT_X,
      "node 'add': _operator.add takes 2 positional arguments, the node has 1" },
    { GRAPH_START X_INPUT
      "{\"name\": \"s\", \"op\": \"call_function\", \"target\": \"operator.setitem\", \"args\": [{\"node\": \"x\"}, 0]},"
      OUTPUT_X,
      "node 's': operator.setitem takes 3 positional arguments, the node has 2" },
    { GRAPH_START X_INPUT
      "{\"name\": \"clamp\", \"op\": \"call_method\", \"target\": \"clamp\"},"
      OUTPUT_X,
      "node 'clamp': call_method 'clamp' has no self argument" },
    { GRAPH_START X_INPUT
      "{\"name\": \"f\", \"op\": \"call_function\", \"target\": \"myfunction\", \"args\": [{\"node\": \"x\"}]},"
      OUTPUT_X,
      "node 'f': call_function target 'myfunction' is neither a builtin nor a qualified name "
      "(module.function)" },
    { GRAPH_START X_INPUT
      "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\"}]}",
      "node 'output': the output node has no value" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      FxsGraph *graph = load ("error case", cases[i].graph);
      CU_ASSERT_PTR_NOT_NULL_FATAL (graph);
      GString *code = g_string_new (NULL);
      GError *error = NULL;
      CU_ASSERT_FALSE (fxs_py_codegen (graph, code, &error));
      CU_ASSERT_PTR_NOT_NULL_FATAL (error);
      CU_ASSERT_TRUE (g_error_matches (error, FXS_ERROR, FXS_ERROR_GRAPH));
      CU_ASSERT_TRUE (text_equal ("error", error->message, cases[i].message));
      CU_ASSERT_EQUAL (code->len, 0);
      g_error_free (error);
      g_string_free (code, TRUE);
      fxs_graph_unref (graph);
    }
}

/* torch.fx 1.13's _Namespace.create_name(candidate, object()) for this
 * sequence, and add_global's names for builtins and repeated objects. */
static void
test_namespace (void)
{
  static const struct {
    const char *candidate, *name;
  } nodes[] = {
    { "add", "add" }, { "add", "add_1" }, { "add", "add_2" }, { "add_1", "add_3" },
    { "add_01", "add_4" }, { "add_5", "add_5" }, { "add", "add_6" }, { "x_00", "x_0" },
    { "x_0", "x_1" }, { "x_0", "x_2" }, { "if", "if_1" }, { "max", "max_1" },
    { "1x", "_1x" }, { "a.b-c", "a_b_c" }, { "\303\251", "_" }, { "_", "__1" },
    { "__", "__" }, { "_1", "_1" }, { "_1", "_2" },
    { "big_123456789012345678901234567890", "big_123456789012345678901234567890" },
    { "big_123456789012345678901234567890", "big_123456789012345678901234567891" },
    { "big_99999999999999999999", "big_99999999999999999999" },
    { "big_99999999999999999999", "big_100000000000000000000" },
    { "getattr", "getattr_1" }, { "device", "device_1" }, { "", "_unnamed" },
  };
  FxsPyNamespace *ns = fxs_py_namespace_new ();
  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    CU_ASSERT_TRUE (text_equal (nodes[i].candidate,
                                fxs_py_namespace_create_name (ns, nodes[i].candidate),
                                nodes[i].name));
  /* a builtin may take its own name, once per object */
  CU_ASSERT_STRING_EQUAL (fxs_py_namespace_global (ns, "getattr", "getattr", "getattr"), "getattr");
  CU_ASSERT_STRING_EQUAL (fxs_py_namespace_global (ns, "max", "max", "max"), "max");
  CU_ASSERT_STRING_EQUAL (fxs_py_namespace_global (ns, "max", "max", "max"), "max");
  CU_ASSERT_STRING_EQUAL (fxs_py_namespace_global (ns, "math.sqrt", "math.sqrt", NULL), "math_sqrt");
  CU_ASSERT_STRING_EQUAL (fxs_py_namespace_global (ns, "math.sqrt", "math.sqrt", NULL), "math_sqrt");
  CU_ASSERT_STRING_EQUAL (fxs_py_namespace_create_name (ns, "math_sqrt"), "math_sqrt_1");
  /* but not another builtin's name */
  CU_ASSERT_STRING_EQUAL (fxs_py_namespace_global (ns, "mod.min", "min", "max"), "min_1");
  fxs_py_namespace_free (ns);
}

/* Many nodes of one base stay linear and take consecutive numbers. */
static void
test_namespace_many (void)
{
  FxsPyNamespace *ns = fxs_py_namespace_new ();
  char expected[32];
  for (guint i = 0; i < 100000; i++)
    {
      const char *name = fxs_py_namespace_create_name (ns, "add");
      if (i == 0)
        CU_ASSERT_STRING_EQUAL (name, "add")
      else
        {
          g_snprintf (expected, sizeof expected, "add_%u", i);
          if (strcmp (name, expected) != 0)
            {
              CU_FAIL ("add_<n> out of sequence");
              break;
            }
        }
    }
  fxs_py_namespace_free (ns);
}

static void
test_string_repr (void)
{
  static const struct {
    const char *s;
    gsize len;
    const char *repr;
  } cases[] = {
    { "", 0, "''" },
    { "abc", 3, "'abc'" },
    { "it's", 4, "\"it's\"" },
    { "say \"hi\"", 8, "'say \"hi\"'" },
    { "both ' \"", 8, "'both \\' \"'" },
    { "a\\b", 3, "'a\\\\b'" },
    { "\t\n\r\001\177", 5, "'\\t\\n\\r\\x01\\x7f'" },
    { "a\0b", 3, "'a\\x00b'" },
    { "\302\205\302\240\303\251", 6, "'\\x85\\xa0\303\251'" },
    { "\342\200\213\342\202\254", 6, "'\\u200b\342\202\254'" },
    { "\363\240\200\201", 4, "'\\U000e0001'" },
    { "\355\240\200", 3, "'\\ud800'" },
    { "\377", 1, "'\\udcff'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GString *out = g_string_new (NULL);
      fxs_py_repr_string (cases[i].s, cases[i].len, out);
      CU_ASSERT_TRUE (text_equal ("repr", out->str, cases[i].repr));
      g_string_free (out, TRUE);
    }
}

static void
test_identifier (void)
{
  CU_ASSERT_TRUE (fxs_py_is_identifier ("weight"));
  CU_ASSERT_TRUE (fxs_py_is_identifier ("_0"));
  CU_ASSERT_TRUE (fxs_py_is_identifier ("if"));
  CU_ASSERT_TRUE (fxs_py_is_identifier ("\303\251t\303\251"));
  CU_ASSERT_FALSE (fxs_py_is_identifier (""));
  CU_ASSERT_FALSE (fxs_py_is_identifier ("0"));
  CU_ASSERT_FALSE (fxs_py_is_identifier ("not an id"));
  CU_ASSERT_FALSE (fxs_py_is_identifier ("a-b"));
  CU_ASSERT_FALSE (fxs_py_is_identifier ("\377"));
}

/* The plugin's reserved names are the core's (core/split/names.c), split into
 * keywords, builtins and custom builtins. */
static void
test_reserved_names_agree (void)
{
  static const char *const samples[] = {
    "if", "None", "True", "lambda", "getattr", "max", "Ellipsis", "__name__", "license",
    "inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree", "add", "x",
    "match", "case", "_", "print", "exit", "self", "forward",
  };
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      const char *s = samples[i];
      gboolean ours = fxs_py_is_keyword (s) || fxs_py_is_builtin (s)
                      || fxs_py_is_custom_builtin (s);
      if (ours != fxs_name_is_reserved (s))
        fprintf (stderr, "'%s' disagrees\n", s);
      CU_ASSERT_EQUAL (ours, fxs_name_is_reserved (s));
    }
  for (const char *const *c = fxs_py_custom_builtins; *c; c++)
    CU_ASSERT_TRUE (fxs_name_is_reserved (*c));
}

/* The data tables' JSON: ASCII, no single quote, floats as Python's repr. */
static void
test_json_literal (void)
{
  static const char graph[] =
    GRAPH_START X_INPUT
    "{\"name\": \"f\", \"op\": \"call_function\", \"target\": \"torch.f\", \"args\": ["
    "{\"node\": \"x\"}, [null, true, 3, -7, 1e-05, 0.1, {\"float\": \"-inf\"}, {\"float\": \"nan\"}], "
    "{\"tuple\": [\"it's '''\", \"\\\"\\\\\\n\\r\\u0000\\u00e9\\ud83d\\ude00\"]}, "
    "{\"dict\": [[1, {\"slice\": [null, 2, null]}]]}, {\"ellipsis\": true}, "
    "{\"opaque\": \"torch.device\", \"repr\": \"device(type='cpu')\"}]},"
    OUTPUT_X;
  static const char expected[] =
    "{\"tuple\": [{\"node\": \"x\"}, [null, true, 3, -7, 1e-05, 0.1, {\"float\": \"-inf\"}, "
    "{\"float\": \"nan\"}], {\"tuple\": [\"it\\u0027s \\u0027\\u0027\\u0027\", "
    "\"\\\"\\\\\\n\\u000d\\u0000\\u00e9\\ud83d\\ude00\"]}, "
    "{\"dict\": [[1, {\"slice\": [null, 2, null]}]]}, {\"ellipsis\": true}, "
    "{\"opaque\": \"torch.device\", \"repr\": \"device(type=\\u0027cpu\\u0027)\"}]}";
  FxsGraph *g = load ("json", graph);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  GString *out = g_string_new (NULL);
  fxs_json_literal_value (fxs_node_args (fxs_graph_lookup_node (g, "f")), out);
  CU_ASSERT_TRUE (text_equal ("json", out->str, expected));
  /* bytes that are not UTF-8 come out as the surrogates Python makes of them */
  g_string_truncate (out, 0);
  fxs_json_literal_string ("a\377", 2, out);
  CU_ASSERT_STRING_EQUAL (out->str, "\"a\\udcff\"");
  g_string_free (out, TRUE);
  fxs_graph_unref (g);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_code_texts),
    FXS_TEST (test_code_appends),
    FXS_TEST (test_code_errors),
    FXS_TEST (test_namespace),
    FXS_TEST (test_namespace_many),
    FXS_TEST (test_string_repr),
    FXS_TEST (test_identifier),
    FXS_TEST (test_reserved_names_agree),
    FXS_TEST (test_json_literal),
    { NULL, NULL },
  };
  fxs_test_add_suite ("codegen", cases);
}

FXS_TEST_MAIN (register_tests)
