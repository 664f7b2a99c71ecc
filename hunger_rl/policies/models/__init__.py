"""The networks of learned policies: the observation encoders (``encoders``) and the forward
pass a policy file plays with, in numpy (``forward``), shared with training, which also builds
the same networks as torch modules (``networks``, ``hungry_endgame``)."""
