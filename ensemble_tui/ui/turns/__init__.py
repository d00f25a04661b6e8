"""The turn on screen: the keys that start one, the controller that runs it in a worker, and
what it records."""
