"""The UCI protocol: the command loop, the arguments of go and position, the protocol's text, and
the resources the engine keeps across games."""
