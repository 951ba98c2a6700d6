"""lc0's networks in numpy: the file read and written through a protobuf schema of our own
(:mod:`.proto`, :mod:`.weights`), lc0's 1858 moves and its convolutional policy's map
(:mod:`.moves`), the input planes of a board with its game's history as lc0's encoder makes them
(:mod:`.planes`), and the forward pass (:mod:`.forward`)."""
