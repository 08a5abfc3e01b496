"""Getting trials in: parsers, validation and atomic landing."""
