"""Corpus v2 families: the language users write (readings and set points, contract
clauses, reports and logs, quantified rules over entities). Each module exposes
`generate(rng, style, n_questions, max_links) -> DecisionSet`; base.py holds what they share."""
