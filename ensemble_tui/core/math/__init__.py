"""LaTeX in replies: as Unicode text for the terminal and as MathML for the HTML export."""
