"""Deliberation styles beyond the aggregator loop: council, critique-and-vote, debate.

The pure pieces (labels, ballot parsing, vote maths) live here apart from the turn flows, so
they can be tested exhaustively on their own.
"""
