"""Small widgets used by the panes."""
