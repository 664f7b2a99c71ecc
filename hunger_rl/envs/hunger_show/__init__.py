"""HUNGER: The Show: rules engine (``engine``), decision objects (``decisions``), environment."""
