"""Everything a user can get wrong: each case checks the one-line message,
the exit status, and that no output file (nor a temporary one) is left."""
import os
import shutil
import stat

from fxtest import DOCSTRING, TEST_PLUGINS, FxsplitTestCase, fxsplit, main

GOOD_OUTPUT = "[output json]\nplugin = json\npath = out.json\n"


class TestBadPlugins(FxsplitTestCase):
    def split(self, partitioner, *extra):
        return fxsplit("split", DOCSTRING, "--partitioner", partitioner, *extra,
                       "--output", f"json:{self.path('out.json')}")

    def tearDown(self):
        self.assertNotIn("out.json", self.files())

    def test_no_split_callback(self):
        self.assert_fails(self.split("no-callback"), 3,
                          os.path.join(TEST_PLUGINS, "no-callback.so"),
                          "does not export split_callback")

    def test_no_descriptor(self):
        self.assert_fails(self.split("no-descriptor"), 3, "no fxsplit descriptor")

    def test_other_abi_major(self):
        self.assert_fails(self.split("abi-major"), 3, "abi-major.so: built for plugin ABI 2.0, "
                                                      "host is 1.1")

    def test_not_a_shared_object(self):
        fake = self.write("fake.so", "#!/bin/sh\necho not a plugin\n")
        self.assert_fails(self.split(fake), 3, f"{fake}: cannot load: not a shared object")

    def test_missing_library(self):
        self.assert_fails(self.split("needs-lib"), 3, "needs-lib.so: cannot load: "
                          "libfxstest-missing.so.1: cannot open shared object file")

    def test_init_fails(self):
        self.assert_fails(self.split("init-fails"), 3,
                          "[partitioner] init-fails: cannot start: the test says so")

    def test_callback_error(self):
        line = self.assert_fails(self.split("callback-fails", "-o", "fail_at=clamp_1"), 3,
                                 "partitioner 'callback-fails': no partition for this node")
        self.assertIn("clamp_1", line)

    def test_cycle(self):
        self.assert_fails(self.split("modulo", "--option", "partitions=2"), 4, "cycle")

    def test_unknown_option(self):
        self.assert_fails(self.split("modulo", "--option", "partitons=2"), 1,
                          "--option partitons: [partitioner] modulo: unknown option 'partitons' "
                          "(valid: partitions)")

    def test_option_of_the_wrong_type(self):
        self.assert_fails(self.split("modulo", "--option", "partitions=lots"), 1,
                          "partitions: expected an integer, got 'lots'")

    def test_unknown_plugin(self):
        self.assert_fails(self.split("modulus"), 3, "unknown plugin 'modulus': no modulus.so",
                          f"searched: {os.environ['FXSPLIT_BUILD_ROOT']}/plugins "
                          "(FXSPLIT_PLUGIN_PATH)", TEST_PLUGINS)

    def test_output_plugin_fails(self):
        r = fxsplit("split", DOCSTRING, "-p", "modulo", "-O", f"json:{self.path('out.json')}",
                    "-O", f"failing-output:{self.path('partial.txt')}")
        self.assert_fails(r, 3, "[output failing-output] failing-output: gave up half-way")
        self.assertEqual(self.files(), [])

    def test_map_with_unassigned_nodes(self):
        ids = self.write("ids.txt", "add 0\nlinear 0\n")
        self.assert_fails(self.split("map", "-o", f"file={ids}"), 3,
                          "4 nodes have no partition in", "clamp, linear_1, clamp_1, add_1")

    def test_map_file_errors(self):
        bad = self.write("ids.json", '{"add": 0,\n "linear": "one"}')
        self.assert_fails(self.split("map", "-o", f"file={bad}"), 1,
                          f"{bad}:2:", "node 'linear' is not an integer partition id")
        self.assert_fails(self.split("map", "-o", f"file={self.path('none.txt')}"), 1,
                          "none.txt")
        self.assert_fails(self.split("map"), 1, "set exactly one of 'file' and 'meta_key'")

    def test_map_file_unpaired_surrogate(self):
        # read as graph files are: an error with its place, not a node '?'
        bad = self.write("ids.json", '{"add": 0,\n "\\ud800": 1}')
        self.assert_fails(self.split("map", "-o", f"file={bad}", "-o", "default=0"), 1,
                          f"{bad}:2:2: a string that is not valid text: a UTF-16 surrogate")

    def test_map_file_key_with_nul(self):
        # "add\u0000x" must not name node 'add'
        bad = self.write("ids.json", '{"add\\u0000x": 0}')
        self.assert_fails(self.split("map", "-o", f"file={bad}", "-o", "default=0"), 1,
                          f"{bad}:1:2: node 'add\\x00x' holds a NUL, which no node name does")


class TestBadPipelines(FxsplitTestCase):
    def run_ini(self, text, *extra):
        ini = self.write("p.ini", text)
        return ini, fxsplit("run", ini, *extra)

    def tearDown(self):
        self.assertEqual([f for f in self.files() if not f.endswith((".ini", ".txt"))], [])

    def test_unknown_group(self):
        ini, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n\n[partitioner]\nplugin = modulo\n"
                              "[outptu json]\nplugin = json\n")
        self.assert_fails(r, 1, f"{ini}:6: unknown group [outptu json] (valid: [graph], [split], "
                                "[partitioner], [partitioner NAME], [output NAME])")

    def test_unknown_key(self):
        ini, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n[split]\ntuple_retrun = true\n")
        self.assert_fails(r, 1, f"{ini}:4: [split] unknown key 'tuple_retrun' (valid: ",
                          "tuple_return")

    def test_unknown_plugin_key(self):
        ini, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
                              + GOOD_OUTPUT + "indnet = 2\n")
        self.assert_fails(r, 1, f"{ini}:8: [output json] json: unknown option 'indnet' "
                                "(valid: path, indent)")

    def test_wrong_type(self):
        ini, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n[split]\n"
                              "keep_original_order = yes please\n")
        self.assert_fails(r, 1, f"{ini}:4: [split] keep_original_order: expected true or false, "
                                "got 'yes please'")

    def test_missing_partitioner(self):
        ini, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n" + GOOD_OUTPUT)
        self.assert_fails(r, 1, f"{ini}: no [partitioner] group")

    def test_malformed_line(self):
        ini, r = self.run_ini("[graph]\ninput: graph.json\n")
        self.assert_fails(r, 1, f"{ini}:2: expected '[group]', 'key = value' or a '#' comment")

    def test_missing_pipeline_file(self):
        self.assert_fails(fxsplit("run", self.path("nope.ini")), 1,
                          "nope.ini: cannot read: No such file or directory")

    def test_missing_graph_file(self):
        _, r = self.run_ini("[graph]\ninput = missing.json\n[partitioner]\nplugin = modulo\n"
                            + GOOD_OUTPUT)
        self.assert_fails(r, 2, self.path("missing.json"))

    def test_bad_graph_file(self):
        self.write("graph.txt", '{"format": "fxsplit-graph", "version": 1, "nodes": [{"name": 1}]}')
        _, r = self.run_ini("[graph]\ninput = graph.txt\n[partitioner]\nplugin = modulo\n"
                            + GOOD_OUTPUT)
        self.assert_fails(r, 2, self.path("graph.txt") + ":1:")

    def test_output_directory_missing(self):
        ini, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
                              "[output json]\nplugin = json\npath = no/such/dir/out.json\n")
        self.assert_fails(r, 1, f"{ini}:7: [output json] json: path: cannot write",
                          "no/such/dir' does not exist")

    def test_output_directory_not_writable(self):
        locked = self.path("locked")
        os.mkdir(locked)
        # root may write anywhere it has mode bits for: use a file system that
        # refuses everyone.
        target = "/proc/fxsplit-test.json" if os.geteuid() == 0 else f"{locked}/out.json"
        os.chmod(locked, stat.S_IRUSR | stat.S_IXUSR)
        self.addCleanup(os.chmod, locked, stat.S_IRWXU)
        ini, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
                              f"[output json]\nplugin = json\npath = {target}\n")
        self.assert_fails(r, 1, f"{ini}:7: [output json] json: path: cannot write",
                          "is not writable")

    def test_output_path_is_a_file_not_a_directory(self):
        self.write("plain.txt", "")
        ini, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
                              "[output json]\nplugin = json\npath = plain.txt/out.json\n")
        self.assert_fails(r, 1, "plain.txt' is not a directory")

    def test_two_outputs_one_path(self):
        ini, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
                              "[output a]\nplugin = json\npath = out.json\n"
                              "[output b]\nplugin = json\npath = ./out.json\n")
        self.assert_fails(r, 1, f"{ini}:10: [output b] json: path: ",
                          "is also written by [output a]")

    def test_set_of_a_bad_value(self):
        _, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
                            + GOOD_OUTPUT, "--set", "partitioner.partitions=-1")
        self.assert_fails(r, 1, "[partitioner] modulo: partitions must be at least 1, got -1")

    def test_failed_run_keeps_the_previous_file(self):
        # A failed run neither truncates nor replaces an existing output.
        previous = self.write("out.txt", "previous run\n")
        _, r = self.run_ini(f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
                            "partitions = 2\n[output json]\nplugin = json\npath = out.txt\n")
        self.assertEqual(r.returncode, 4)
        with open(previous, encoding="utf-8") as f:
            self.assertEqual(f.read(), "previous run\n")


if __name__ == "__main__":
    main()
