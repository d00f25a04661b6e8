"""One turn: the engine, the deliberation styles it runs, the calls they make (budget, retries,
cost) and the events the turn yields."""
