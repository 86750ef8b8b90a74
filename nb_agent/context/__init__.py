"""Context management: large tool results, the replacement budget, compaction (SPEC §3–4)."""
