"""The claim map: where the proposals agree and disagree, tied to the paper (issue 26)."""
