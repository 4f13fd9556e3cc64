"""`autodetach migrate`: fix a tree of legacy PyTorch code (many
repositories) in one resumable run and write a report (Markdown, JSON,
HTML). The per-file work is `work.migrate_file`, run through
`runner.run_bytes`; this process alone writes files and the state."""
