"""The chat and its runs as plain data: messages and final replies, who wrote each reply, the
run modes, and the record of every run."""
