#!/usr/bin/python3
"""Checks bench/scale_table.py's child runner: exit codes, signals, the kill deadline and peak RSS."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scale_table  # noqa: E402


class RunChild(unittest.TestCase):
    def test_exit_code_and_last_stderr_line(self):
        _, _, _, code, last = scale_table.run_child(["/bin/sh", "-c", "echo first >&2; echo 'error: why' >&2; exit 3"], 30)
        self.assertEqual(code, "3")
        self.assertEqual(last, "error: why")

    def test_signal_is_named(self):
        _, _, _, code, _ = scale_table.run_child(["/bin/sh", "-c", "kill -9 $$"], 30)
        self.assertEqual(code, "signal 9")

    def test_killed_at_the_deadline(self):
        _, _, _, code, _ = scale_table.run_child(["/bin/sleep", "30"], 0.5)
        self.assertEqual(code, "killed")

    def test_peak_rss_is_the_childs(self):
        # dd reads 96 MiB into one buffer: the child's peak RSS is at least that, whatever this process uses.
        _, _, rss, code, _ = scale_table.run_child(
            ["/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=96M", "count=1", "status=none"], 30)
        self.assertEqual(code, "0")
        self.assertGreaterEqual(rss, 96)


if __name__ == "__main__":
    unittest.main()
