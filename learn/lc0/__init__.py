"""lc0's network files in torch: the file read and written (:mod:`.weights`, through a schema of our
own, :mod:`.proto`), lc0's 1858 moves and its convolutional policy's map (:mod:`.moves`), the network
as a torch module (:mod:`.model`), and its fine-tuning on master games (:mod:`learn.master`)."""
