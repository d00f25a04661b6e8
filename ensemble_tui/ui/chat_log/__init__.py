"""The chat log: how user inputs and final replies are rendered, safely and cheaply, with their
quote marks and vote lines."""
