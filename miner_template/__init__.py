"""Miner side: agent templates (offline and LLM) and the `arena-miner` command line."""
