"""The agents that play: the protocol, pure, guided, Chess0's, the tables' agent; the registry of
modes, their defaults, the one function that makes an agent, and the records of what decided each
move."""
