"""Scenario checks of one service each: what generic checks cannot express."""
