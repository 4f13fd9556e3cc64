"""`autodetach ci`: the pull-request bot. Checks the files changed since a
base ref, reports findings on the changed lines only, and hands the fixes
back as review suggestions (rdjson), a patch, or a commit."""
