"""The deliberation styles (aggregate, council, vote, debate), their table and their pure parsers."""
