"""Case-based reasoning after the thesis: square similarity, retrieval of the nearest cases, and
adaptation of a case's move to the board (cbr-agent.md)."""
