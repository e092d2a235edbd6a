"""Problem sets of any task family: splits, draws, sealing and packs. Each family makes its own problems
(`arena.tasks`)."""
