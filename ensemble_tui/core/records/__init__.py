"""Views of a run's record: the run report, the Compare rounds and the exports."""
