"""lc0's networks in torch: the network as a torch module (:mod:`.model`), its input planes made by
lc0's own encoder (:mod:`.inputs`) or in bulk from whole games on any device (:mod:`.bulk`), and its
fine-tuning on master games (:mod:`learn.master`). The file and lc0's moves are the engine's
(:mod:`lc0net`), which plays the networks in numpy."""
