"""Outside UCI engines: one launcher, and the judge that scores guided mode's proposals (search.md §7)."""
