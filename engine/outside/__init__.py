"""Outside UCI engines: one launcher (an asyncio core, a sync facade), the judge that scores guided
mode's proposals (search.md §7), and the game clock of whoever drives engines (the tournament, the
web)."""
