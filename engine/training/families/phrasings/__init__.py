"""Further phrasings of every corpus-v2 family's patterns, drawn by training sets only
(`CorpusSpec.more_phrasings`, `Style.more`): more ways of saying the same thing, so that
the held-out templates and text nobody here wrote are less of a stranger. The evaluation
splits never draw them."""
