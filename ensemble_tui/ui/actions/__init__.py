"""What the keys, buttons and palette do outside a turn: each part a collaborator of the main screen."""
