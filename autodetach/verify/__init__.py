"""Verification: run the code before and after each fix, and against the
retain_graph=True reference, and give every rewrite a verdict.

See docs/verification.md. Modules: child (inside the subprocess), sandbox
(scratch copies, environment, limits), forkserver (pre-imported start-up),
compare (verdicts), integrate (`--verify`), report (the table), command
(`autodetach verify ORIGINAL PATCHED`), probe (graph growth)."""
