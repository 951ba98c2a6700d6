"""The style model: the board as piece planes, the numpy network, and guided mode's prior
(search.md §1)."""
