"""The main screen handles a Resize only when it brings a size other than the last one's.

Textual's Screen handles every Resize with a layout of the whole screen and a full frame, and
sets its breakpoint classes (narrow or wide, short or tall) there. At every start the main
screen got three Resizes of the same size: the driver's first size and the app's idle check of
it, both queued before the first layout, and the one the first layout posts to the screen itself
(the screen is among the widgets it has just shown). The first one's handling is needed: the
first layout sets no breakpoint class (the help dialog at 80x24 lost its compact style without
it). The next two changed nothing, and each was a layout and a frame of the whole screen.
A Resize of the size the screen was last resized to is dropped before Screen's own handler
(`Message.prevent_default`, the public way to keep a base class's handler from running).
Measured over 24 interleaved starts at 120x40 (the collector held off): 2 of the 5 layouts and
frames of a start gone, ~25 ms of its ~450 ms of CPU, work that ran under the user's first keys.
A dialog gets one Resize when it opens, so the dialogs keep Textual's own handling.
"""

from __future__ import annotations

from textual import events
from textual.geometry import Size


class SteadyResize:
    """Mixed into a Screen subclass, before Screen: a Resize to the size of the last Resize it
    handled is dropped, so only a size change lays the screen out again."""

    resized_to: Size | None = None  # the size of the last Resize handled

    def on_resize(self, event: events.Resize) -> None:
        if event.size == self.resized_to:
            event.prevent_default()
        self.resized_to = event.size
