"""LaTeX in replies: as Unicode text for the terminal and as MathML for the HTML export."""

# The info string of the fenced block in which `mathtext.render_math` puts a display formula's
# rows: here, so the chat's Markdown knows it without importing the converter.
DISPLAY_MATH = "unicode-math"
