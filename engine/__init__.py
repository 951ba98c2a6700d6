"""The engine: the expert's cases (cbr), the alpha-beta search (search), the style model (style),
outside UCI engines (outside), the agents that play (agents) and the UCI protocol (uci); each
sub-package imports only from those below it (docs/architecture.md)."""
