"""`ensemble-tui eval`: does the ensemble answer the user's own questions better than one model?"""
