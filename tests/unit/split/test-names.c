/* Unit tests of torch.fx node naming (core/split/names.c).  Expectations are
 * what torch 1.13 prints for tests/oracle/names_cases.py. */
#include <fxsplit/fxsplit.h>
#include <string.h>

#include "split/names.h"
#include "../test-util.h"

/* Candidates given to one fresh namespace, and the names torch 1.13 gives. */
static void
check_sequence (const char *candidates, const char *expected)
{
  FxsGraph *g = fxs_graph_new ();
  FxsNamespace *ns = fxs_namespace_new (g);
  char **in = g_strsplit (candidates, " ", -1);
  GString *out = g_string_new (NULL);
  for (char **c = in; *c; c++)
    g_string_append_printf (out, "%s%s", out->len ? " " : "", fxs_namespace_create_name (ns, *c));
  if (strcmp (out->str, expected) != 0)
    fprintf (stderr, "\n%s\n  -> %s\n  expected %s\n", candidates, out->str, expected);
  CU_ASSERT_STRING_EQUAL (out->str, expected);
  g_string_free (out, TRUE);
  g_strfreev (in);
  fxs_namespace_free (ns);
  fxs_graph_unref (g);
}

static void
test_create_name (void)
{
  check_sequence ("x_1 x x x", "x_1 x x_2 x_3");
  /* 1.13 fills the holes an explicit suffix leaves (current PyTorch would
   * continue after add_3) */
  check_sequence ("add_3 add add add add add", "add_3 add add_1 add_2 add_4 add_5");
  check_sequence ("add_01 add_1 add_0 add_0 add", "add_1 add_2 add_0 add_3 add");
  check_sequence ("getitem getitem getitem_1 getitem", "getitem getitem_1 getitem_2 getitem_3");
  check_sequence ("output output", "output output_1");
  /* numbers taken out of order, and 0, which the run from 1 never covers */
  check_sequence ("x_3 x_2 x x x x x_2 x_0 x_0 x", "x_3 x_2 x x_1 x_4 x_5 x_6 x_0 x_7 x_8");
  check_sequence ("y_0 y y y_1 y y_7 y_5 y_6 y_4 y y y",
                  "y_0 y y_1 y_2 y_3 y_7 y_5 y_6 y_4 y_8 y_9 y_10");
  check_sequence ("z_2 z_1 z_1 z_1 z z", "z_2 z_1 z_3 z_4 z z_5");
}

static void
test_reserved_names (void)
{
  check_sequence ("sum input getattr type print torch inf nan NoneType device fx_pytree pytree "
                  "None class for __import__ copyright sum",
                  "sum_1 input_1 getattr_1 type_1 print_1 torch_1 inf_1 nan_1 NoneType_1 "
                  "device_1 fx_pytree_1 pytree_1 None_1 class_1 for_1 __import___1 copyright_1 "
                  "sum_2");
  CU_ASSERT_TRUE (fxs_name_is_reserved ("lambda"));
  CU_ASSERT_TRUE (fxs_name_is_reserved ("ZeroDivisionError"));
  CU_ASSERT_FALSE (fxs_name_is_reserved ("add"));
  CU_ASSERT_FALSE (fxs_name_is_reserved ("sum_1"));
}

static void
test_illegal_characters (void)
{
  /* the candidates contain spaces, so one by one */
  static const struct { const char *in, *out; } cases[] = {
    { "a.b-c", "a_b_c" }, { "1abc", "_1abc" }, { "a..b", "a_b" }, { "a b", "a_b_1" },
    { "x__", "x__" }, { "_", "_" }, { "__", "__" }, { "_0", "_0" }, { "0", "_1" },
    { "_1", "_2" }, { "a_0", "a_0" }, { "a_00", "a_1" },
  };
  FxsGraph *g = fxs_graph_new ();
  FxsNamespace *ns = fxs_namespace_new (g);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name (ns, cases[i].in), cases[i].out);
  /* torch 1.13 fails on an empty candidate; later versions use "_unnamed" */
  CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name (ns, ""), "_unnamed");
  CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name (ns, "..."), "__1");
  CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name (ns, ""), "_unnamed_1");
  fxs_namespace_free (ns);
  fxs_graph_unref (g);

  check_sequence ("caf\xc3\xa9 caf_ \xc3\xa9t\xc3\xa9 a\xc3\xa9\xc3\xa9" "b", "caf_ caf__1 _t_ a_b");
}

static void
test_big_numbers (void)
{
  check_sequence ("submod_-1 submod__1 submod_-9223372036854775808 submod_9223372036854775807 "
                  "submod_9223372036854775807",
                  "submod__1 submod__2 submod__9223372036854775808 submod_9223372036854775807 "
                  "submod_9223372036854775808");
  check_sequence ("x_99999999999999999999999 x_99999999999999999999999 x_0099999999999999999999999",
                  "x_99999999999999999999999 x_100000000000000000000000 x_100000000000000000000001");
  check_sequence ("y_9999999999999999999 y_9999999999999999999 y_18446744073709551615 "
                  "y_18446744073709551615",
                  "y_9999999999999999999 y_10000000000000000000 y_18446744073709551615 "
                  "y_18446744073709551616");
}

static void
check_snake (const char *in, const char *expected)
{
  GString *out = g_string_new (NULL);
  fxs_node_name_candidate (FXS_OP_CALL_MODULE, in, out);   /* _snake_case itself */
  CU_ASSERT_STRING_EQUAL (out->str, expected);
  g_string_free (out, TRUE);
}

static void
test_snake_case (void)
{
  check_snake ("camelCase", "camel_case");
  check_snake ("HTTPServer", "httpserver");
  check_snake ("ALL_CAPS", "all_caps");
  check_snake ("mod.pascalCase", "mod.pascal_case");
  check_snake ("snake_case", "snake_case");
  check_snake ("aB1C", "a_b1c");
  /* Python's Uppercase/Lowercase properties go beyond Lu/Ll */
  check_snake ("\xe2\x92\xb6" "b", "\xe2\x93\x90" "b");            /* circled A */
  check_snake ("a\xe2\x92\xb6", "a_\xe2\x93\x90");
  check_snake ("\xc3\xa9" "A", "\xc3\xa9_a");
  check_snake ("\xc4\xb0x", "i\xcc\x87x");                        /* dotted capital I */
  check_snake ("a\xe2\x84\xaa", "a_k");                            /* Kelvin sign */
  check_snake ("\xc7\x85" "a", "\xc7\x86" "a");                    /* titlecase: neither */
  check_snake ("\xc2\xaa" "B", "\xc2\xaa_b");                      /* Other_Lowercase */
  check_snake ("x\xe2\x85\xa0", "x_\xe2\x85\xb0");                 /* Roman numeral one */
  check_snake ("bad\xff" "A", "bad\xff" "a");                      /* not UTF-8: kept */
}

static void
check_target (const char *target, gboolean callable, const char *expected)
{
  GString *out = g_string_new (NULL);
  fxs_node_name_candidate (callable ? FXS_OP_CALL_FUNCTION : FXS_OP_CALL_METHOD, target, out);
  CU_ASSERT_STRING_EQUAL (out->str, expected);
  g_string_free (out, TRUE);
}

static void
test_target_to_str (void)
{
  check_target ("__add__", FALSE, "add");
  check_target ("__", FALSE, "");
  check_target ("___", FALSE, "");
  check_target ("____", FALSE, "");
  check_target ("__x___", FALSE, "x_");
  check_target ("_private", FALSE, "_private");
  check_target ("submod_Stage_0", FALSE, "submod_stage_0");
  check_target ("layer.0.linear", FALSE, "layer.0.linear");
  check_target ("Conv2d", FALSE, "conv2d");
  /* a function's __name__ keeps its underscores */
  check_target ("__add__", TRUE, "__add__");

  GString *out = g_string_new (NULL);
  fxs_node_name_candidate (FXS_OP_CALL_FUNCTION, "torch._C._nn.linear", out);
  CU_ASSERT_STRING_EQUAL (out->str, "linear");
  g_string_truncate (out, 0);
  fxs_node_name_candidate (FXS_OP_CALL_FUNCTION, "_operator.__getitem__", out);
  CU_ASSERT_STRING_EQUAL (out->str, "__getitem__");
  g_string_truncate (out, 0);
  fxs_node_name_candidate (FXS_OP_CALL_METHOD, "__getitem__", out);
  CU_ASSERT_STRING_EQUAL (out->str, "getitem");
  g_string_truncate (out, 0);
  fxs_node_name_candidate (FXS_OP_CALL_MODULE, "layer.0.BatchNorm", out);
  CU_ASSERT_STRING_EQUAL (out->str, "layer.0.batch_norm");
  /* an operator overload's __name__ is "OP.OVERLOAD" (torch 1.13 names
   * torch.ops.aten.add.Tensor's node add_tensor), a packet's "OP" */
  static const char *const overloads[][2] = {
    { "torch.ops.aten.add.Tensor", "add.tensor" },
    { "torch.ops.aten.relu.default", "relu.default" },
    { "torch.ops.aten.add", "add" },
    { "torch.ops.my_ns.MyOp.Out", "my_op.out" },
    { "torch.ops.aten", "aten" },
    { "torch.ops.", "" },
    { "torch.opsx.aten.add.Tensor", "tensor" },
    { "my.ops.aten.add.Tensor", "tensor" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (overloads); i++)
    {
      g_string_truncate (out, 0);
      fxs_node_name_candidate (FXS_OP_CALL_FUNCTION, overloads[i][0], out);
      CU_ASSERT_STRING_EQUAL (out->str, overloads[i][1]);
    }
  g_string_free (out, TRUE);
}

/* Many names of one base, and holes, stay fast: a scan per name would be
 * quadratic here and run into the test timeout. */
static void
test_many_names (void)
{
  const guint n = 200000;
  FxsGraph *g = fxs_graph_new ();
  FxsNamespace *ns = fxs_namespace_new (g);
  char buf[32];
  for (guint i = 0; i < n; i++)
    {
      const char *name = fxs_namespace_create_name (ns, "add");
      if (i == 0)
        CU_ASSERT_STRING_EQUAL (name, "add");
      g_snprintf (buf, sizeof buf, "add_%u", i);
      if (i > 0 && strcmp (name, buf) != 0)
        {
          CU_FAIL ("unexpected name");
          break;
        }
    }
  /* an explicit name inside the taken run goes to its end */
  for (guint i = 0; i < n; i++)
    {
      const char *name = fxs_namespace_create_name (ns, "add_7");
      g_snprintf (buf, sizeof buf, "add_%u", n + i);
      if (strcmp (name, buf) != 0)
        {
          CU_FAIL ("unexpected name after a taken run");
          break;
        }
    }
  /* a hole far out is found again by the run before it */
  CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name (ns, "add_999999"), "add_999999");
  for (guint i = 0; i < 1000; i++)
    fxs_namespace_create_name (ns, "add_3");
  CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name (ns, "add"), "add_401000");
  fxs_namespace_free (ns);
  fxs_graph_unref (g);
}

/* The engine's candidates (fxs_name_candidate_init_for_node), shared
 * with the target when they can, equal fxs_node_name_candidate() cleaned by create_name, and prepared
 * candidates name as plain candidates do, in a reused namespace too. */
static void
test_prepared_candidates (void)
{
  static const char *const targets[] = {
    "relu", "layers.0.fc", "layers_0_fc", "torch._C._nn.linear", "_operator.__getitem__",
    "__getitem__", "__", "___", "____", "_____", "", ".", "..a..", "0abc", "9", "add_3",
    "add_007", "add_0", "PascalCase", "camelCaseName", "ABCDef", "aB.cD", "x-y+z", "if",
    "torch", "layer.0.BatchNorm", "a__b", "_", "-", "a\x01b", "caf\xc3\xa9Name",
    "\xe2\x85\xa0x", "add_123456789012345678901234", "Name_12", "nameX_3",
    "torch.ops.aten.add.Tensor", "torch.ops.aten.add", "torch.ops.aten.relu.default",
    "layers.0.fc.weight", "a._b", "a_.b", "a.", ".a", "0.a", "__a.b__", "a.B",
  };
  static const FxsOp ops[] = {
    FXS_OP_PLACEHOLDER, FXS_OP_GET_ATTR, FXS_OP_CALL_FUNCTION, FXS_OP_CALL_METHOD,
    FXS_OP_CALL_MODULE,
  };
  FxsArena arena;
  fxs_arena_init (&arena);
  FxsGraph *g1 = fxs_graph_new (), *g2 = fxs_graph_new (), *g3 = fxs_graph_new ();
  FxsNamespace *plain = fxs_namespace_new (g1), *prepared = fxs_namespace_new (g2);
  GString *slow = g_string_new (NULL), *scratch = g_string_new (NULL);
  for (guint round = 0; round < 3; round++)
    for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
      for (guint t = 0; t < G_N_ELEMENTS (targets); t++)
        {
          FxsNameCandidate fast, reference;
          fxs_name_candidate_init_for_node (&fast, ops[o], targets[t], scratch, &arena);
          g_string_truncate (slow, 0);
          fxs_node_name_candidate (ops[o], targets[t], slow);
          fxs_name_candidate_init (&reference, slow->str, &arena);
          CU_ASSERT_STRING_EQUAL (fast.text, reference.text);
          CU_ASSERT_EQUAL (fast.len, strlen (fast.text));
          CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name_from (prepared, &fast),
                                  fxs_namespace_create_name (plain, slow->str));
        }
  /* a reset namespace starts again */
  fxs_namespace_reset (prepared, g3);
  FxsNameCandidate add;
  fxs_name_candidate_init (&add, "add", &arena);
  CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name_from (prepared, &add), "add");
  CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name_from (prepared, &add), "add_1");
  CU_ASSERT_STRING_EQUAL (fxs_namespace_create_name (prepared, "add_1"), "add_2");
  g_string_free (slow, TRUE);
  g_string_free (scratch, TRUE);
  fxs_namespace_free (plain);
  fxs_namespace_free (prepared);
  fxs_graph_unref (g1);
  fxs_graph_unref (g2);
  fxs_graph_unref (g3);
  fxs_arena_clear (&arena);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_create_name),
    FXS_TEST (test_reserved_names),
    FXS_TEST (test_illegal_characters),
    FXS_TEST (test_big_numbers),
    FXS_TEST (test_snake_case),
    FXS_TEST (test_target_to_str),
    FXS_TEST (test_many_names),
    FXS_TEST (test_prepared_candidates),
    { NULL, NULL },
  };
  fxs_test_add_suite ("names", cases);
}

FXS_TEST_MAIN (register_tests)
