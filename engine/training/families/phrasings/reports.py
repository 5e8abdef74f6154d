"""Further phrasings of the reports family's patterns, for training sets only (`Style.more`;
registered by the family with `base.add_phrasings`). Each says what its pattern's phrasings
say, with the same fields."""

MORE: dict[str, tuple[str, ...]] = {}
