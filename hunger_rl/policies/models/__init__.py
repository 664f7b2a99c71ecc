"""What a learned policy needs at inference, shared with training: the observation encoders
(``encoders``) and the network modules (``networks``, ``hungry_endgame``)."""
