"""Hungry: the rules (`engine`), observation layout, public view (`view`), batched engine."""
