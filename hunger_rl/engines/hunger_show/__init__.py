"""HUNGER: The Show: rules (`engine`), tokens, decision objects, observations, batched engine."""
