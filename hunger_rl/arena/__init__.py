"""The arena: scheduled games between policy specs, with no training code and no torch of its
own (a learned policy loads torch itself). ``matches`` plays games across worker processes,
``evaluation`` plays seat-rotated lineups with Wilson intervals, ``tournament`` rates policies
with OpenSkill, and ``commands`` is the ``evaluate`` and ``tournament`` command line."""
