"""LaTeX formulas as MathML for the HTML export: browsers draw MathML themselves, so the page
stays one self-contained file with no script and no web font.

latex2mathml does the conversion. Its output is not safe as it stands: `\\text{<b>x</b>}` comes
out as raw markup inside `<mtext>`, and a model's reply is untrusted. So the MathML is parsed
again and rebuilt from an allowlist of MathML elements and attributes, with every text escaped,
and each element closed where it was opened. Markup that latex2mathml itself never writes (an
element off the list, such as `\\text{<style>}`, whose content the parser would swallow; an end
tag that closes anything but the open element, such as `\\text{</math>}`; a comment) can only
have come from the formula's text: such a formula is `Unconvertible`, and so is a command
latex2mathml does not know (it comes out as its name, `<mi>\\foo</mi>`). The export shows an
`Unconvertible` formula as code (escaped LaTeX), as the chat does.
"""

from __future__ import annotations

import html
from html.parser import HTMLParser

from ensemble_tui.core.math.latex_unicode import Unconvertible

_ELEMENTS = frozenset(
    "math mrow mi mo mn ms mtext mspace msub msup msubsup mfrac msqrt mroot mtable mtr mtd munder mover "
    "munderover mstyle menclose mpadded mphantom merror mmultiscripts mprescripts none semantics".split()
)
_ATTRIBUTES = frozenset(
    "xmlns display mathvariant stretchy fence form separator lspace rspace columnalign rowalign columnspacing "
    "rowspacing columnlines rowlines frame displaystyle scriptlevel accent accentunder movablelimits minsize "
    "maxsize symmetric width height depth linethickness notation largeop align equalrows equalcolumns".split()
)


def latex_to_mathml(latex: str, display: bool) -> str:
    """One formula as a sanitized `<math>` element."""
    from latex2mathml.converter import convert

    try:
        raw = convert(latex, display="block" if display else "inline")
    except Exception as error:  # the converter's own errors have no common base; the text is untrusted
        raise Unconvertible(f"{type(error).__name__}: {error}") from error
    cleaner = _MathMLCleaner()
    cleaner.feed(raw)
    cleaner.close()
    problem = cleaner.unsafe or (f"<{cleaner.open[-1]}> left open" if cleaner.open else "") or cleaner.unknown_command
    if problem:
        raise Unconvertible(problem)
    return "".join(cleaner.out)


class _MathMLCleaner(HTMLParser):
    """Rebuilds latex2mathml's output from the allowlist; `unsafe` names the first markup that
    latex2mathml would not have written, `open` the elements still open."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []
        self.unsafe = ""
        self.unknown_command = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _ELEMENTS:
            self.unsafe = self.unsafe or f"<{tag}> in a formula"
            return
        kept = "".join(f' {name}="{html.escape(value or "")}"' for name, value in attrs if name in _ATTRIBUTES)
        self.out.append(f"<{tag}{kept}>")
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.unsafe = self.unsafe or f"</{tag}> in a formula"
            return
        self.open.pop()
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if data.startswith("\\") and len(data) > 1 and data[1:].isalpha():
            self.unknown_command = data
        self.out.append(html.escape(data, quote=False))

    def handle_comment(self, data: str) -> None:
        self.unsafe = self.unsafe or "a comment in a formula"

    def handle_decl(self, decl: str) -> None:
        self.unsafe = self.unsafe or "a declaration in a formula"

    def handle_pi(self, data: str) -> None:
        self.unsafe = self.unsafe or "a processing instruction in a formula"

    def unknown_decl(self, data: str) -> None:
        self.unsafe = self.unsafe or "a declaration in a formula"
