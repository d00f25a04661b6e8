"""What the converter writes for each piece of LaTeX: symbol names from unicodeit's tables (and a
few corrections), sub/superscript characters, letters in a font, accents, and when a fraction's
part needs brackets."""

from __future__ import annotations

import unicodedata
from functools import cache

import unicodeit.data


def _symbols() -> dict[str, str]:
    simple = {name[1:]: char for name, char in unicodeit.data.REPLACEMENTS if name[1:].isalpha() and "{" not in name}
    simple.update(
        {
            "langle": "⟨",
            "rangle": "⟩",
            "lVert": "‖",
            "rVert": "‖",
            "Vert": "‖",
            "lvert": "|",
            "rvert": "|",
            "vert": "|",
            "star": "⋆",
            "ast": "∗",
            "dots": "…",
            "ldots": "…",
            "cdots": "⋯",
            "vdots": "⋮",
            "ddots": "⋱",
            "lbrace": "{",
            "rbrace": "}",
            "lbrack": "[",
            "rbrack": "]",
            "setminus": "∖",
            "colon": ":",
            "emptyset": "∅",
            "varnothing": "∅",
            "epsilon": "ϵ",
            "varepsilon": "ε",
            "mid": "|",
            "bmod": " mod ",
            "And": "&",
            "iff": "⟺",
            "implies": "⟹",
            "impliedby": "⟸",
            "gets": "←",
            "quad": "  ",
            "qquad": "    ",
            "cdotp": "·",
            "lnot": "¬",
            "neg": "¬",
            "ell": "ℓ",
        }
    )
    simple.update({"{": "{", "}": "}", "|": "‖", "%": "%", "&": "&", "$": "$", "#": "#", "_": "_", ",": " "})
    simple.update({";": " ", ":": " ", ">": " ", " ": " ", "!": "", "/": "", "\\": "\n"})
    return simple


SYMBOLS = _symbols()
_EVERY_SYMBOL = dict(SYMBOLS)  # before the commands laid out below are taken out of SYMBOLS


@cache
def _replacements() -> dict[str, str]:
    """unicodeit's whole table; letters in a font are keyed as `\\mathbb{R}`, `\\mathbf{\\alpha}`."""
    return dict(unicodeit.data.REPLACEMENTS)


@cache
def _macro_of_char() -> dict[str, str]:
    """The macro naming each symbol (`α` -> `alpha`), for `\\mathbf{\\alpha}`. Built when first
    needed, not on import: the converter is imported when the first reply with math is drawn,
    and that import is part of opening a chat (bench row 2.c)."""
    return {char: name for name, char in _EVERY_SYMBOL.items() if len(char) == 1 and name.isalpha()}


FONTS = {"mathbb", "mathbf", "mathcal", "mathfrak", "mathscr", "mathsf", "mathtt", "mathit", "boldsymbol", "bm"}
FONT_ALIAS = {"boldsymbol": "mathbf", "bm": "mathbf"}
PLAIN_TEXT = {"text", "textrm", "textit", "textbf", "textsf", "texttt", "emph", "mbox", "textnormal", "hbox"}
UPRIGHT = {"mathrm", "operatorname", "mathop", "mathnormal"}
FUNCTIONS = set(
    "log ln lg exp sin cos tan sec csc cot arcsin arccos arctan sinh cosh tanh coth max min sup inf lim "
    "liminf limsup arg argmax argmin det dim ker deg gcd lcm Pr hom mod Var Cov tr rank diag sgn softmax".split()
)
IGNORED = set(
    "displaystyle textstyle scriptstyle scriptscriptstyle limits nolimits nonumber notag big Big bigg Bigg "
    "bigl bigr Bigl Bigr biggl biggr Biggl Biggr strut mathstrut left right middle".split()
)
ACCENTS = {
    "hat": "\u0302",
    "widehat": "\u0302",
    "tilde": "\u0303",
    "widetilde": "\u0303",
    "bar": "\u0304",
    "overline": "\u0305",
    "underline": "\u0332",
    "dot": "\u0307",
    "ddot": "\u0308",
    "vec": "\u20d7",
    "check": "\u030c",
    "breve": "\u0306",
    "acute": "\u0301",
    "grave": "\u0300",
    "mathring": "\u030a",
}
OPENERS = {"langle", "lVert", "lvert", "lfloor", "lceil", "lbrace", "lbrack", "{"}
CLOSERS = {"rangle", "rVert", "rvert", "rfloor", "rceil", "rbrace", "rbrack", "}"}
EVERY_CHAR_ACCENTS = {"bar", "overline", "underline"}
MATRICES = {
    "matrix": "",
    "smallmatrix": "",
    "array": "",
    "pmatrix": "()",
    "bmatrix": "[]",
    "Bmatrix": "{}",
    "vmatrix": "||",
    "Vmatrix": "‖‖",
}
CASES = {"cases": "{", "dcases": "{", "rcases": "}"}
ALIGNED = {"aligned", "align", "align*", "alignat", "alignat*", "split", "eqnarray", "eqnarray*", "flalign"}
GATHERED = {"gathered", "gather", "gather*", "equation", "equation*", "multline", "multline*", "subequations"}

ONE_ARGUMENT = {
    "sqrt": "[{",
    "pmod": "{",
    "tag": "*{",
    "label": "{",
    "phantom": "{",
    "hphantom": "{",
    "vphantom": "{",
    "color": "{",
    "boxed": "{",
    "underbrace": "{",
    "overbrace": "{",
    "substack": "{",
    "not": "",
}
FRACTIONS = {"frac", "dfrac", "tfrac", "cfrac"}
TWO_ARGUMENTS = {
    "frac",
    "dfrac",
    "tfrac",
    "cfrac",
    "binom",
    "dbinom",
    "tbinom",
    "overset",
    "underset",
    "stackrel",
    "textcolor",
}


# Commands that take arguments are laid out here, never looked up as a bare symbol (unicodeit has `\sqrt` -> √).
for _name in (*FONTS, *PLAIN_TEXT, *UPRIGHT, *ACCENTS, *ONE_ARGUMENT, *TWO_ARGUMENTS):
    SYMBOLS.pop(_name, None)


SUPERSCRIPTS = {key[1:]: char for key, char in unicodeit.data.SUBSUPERSCRIPTS if key[0] == "^" and key != "^V"}
SUPERSCRIPTS.update({"i": "ⁱ", "⊤": "ᵀ", "∗": "*", "*": "*", "′": "′", "†": "†", "∘": "°", "−": "⁻", "n": "ⁿ"})
SUBSCRIPTS = {key[1:]: char for key, char in unicodeit.data.SUBSUPERSCRIPTS if key[0] == "_"}
for _odd in ("<", ">", "."):  # modifier arrowheads and a syllabic dot: not read as scripts
    SUPERSCRIPTS.pop(_odd, None)
    SUBSCRIPTS.pop(_odd, None)
_SCRIPT_PASSTHROUGH = set("*′†")


def script(kind: str, content: str) -> str:
    """A sub- or superscript: Unicode when every character has a form, else `_x`, `_(xy)`."""
    content = content.replace(" ", "")
    if not content:
        return ""
    if kind == "^" and set(content) <= _SCRIPT_PASSTHROUGH:
        return content
    table = SUPERSCRIPTS if kind == "^" else SUBSCRIPTS
    if all(char in table for char in content):
        return "".join(table[char] for char in content)
    return f"{kind}{content}" if width(content) == 1 or one_group(content) else f"{kind}({content})"


def fonted(font: str, text: str) -> str:
    table = _replacements()
    out = []
    for char in text:
        macro = None if char.isascii() else _macro_of_char().get(char)
        keys = [f"\\{font}{{{char}}}"] + ([f"\\{font}{{\\{macro}}}"] if macro else [])
        out.append(next((table[key] for key in keys if key in table), char))
    return "".join(out)


def accent(name: str, text: str) -> str:
    mark = ACCENTS[name]
    if width(text) == 1:
        return text + mark
    if name in EVERY_CHAR_ACCENTS:
        return "".join(char + (mark if not unicodedata.combining(char) else "") for char in text)
    return f"{name.removeprefix('wide')}({text})"


OPERATORS = set("+-−=<>±∓,;/·⋅×÷≤≥≠≈∼∝∈∉⊂⊆→←↦⇒⇔⟹⟺|∣:∘⊗⊕⊙∧∨∩∪") | {" "}
OPENING, CLOSING = "([{⟨⌊⌈", ")]}⟩⌋⌉"


def is_atom(text: str) -> bool:
    """No operator or space outside brackets: safe to write before `/` or after `√` bare."""
    depth = 0
    for char in text:
        if char in OPENING:
            depth += 1
        elif char in CLOSING:
            depth -= 1
        elif depth == 0 and char in OPERATORS:
            return False
    return bool(text)


def bracketed(text: str) -> str:
    return text if is_atom(text) else f"({text})"


def denominator(text: str) -> str:
    """Bare only if it is one factor (`n`, `QKᵀ`, `√dₖ`, `P(B)`): `n!/(k!(n-k)!)`, not `n!/k!(n-k)!`."""
    body = text.lstrip("√∛∜")
    name = 0
    while name < len(body) and body[name] not in OPENING and body[name] not in OPERATORS and body[name] != "!":
        name += 1
    return text if body and (name == len(body) or one_group(body[name:])) else f"({text})"


def one_group(text: str) -> bool:
    """`(a, b)` but not `(a)(b)` or `(a)!`: one bracketed group and nothing after it."""
    if not text or text[0] not in OPENING:
        return False
    depth = 0
    for index, char in enumerate(text):
        if char in OPENING:
            depth += 1
        elif char in CLOSING:
            depth -= 1
            if depth == 0:
                return index == len(text) - 1
    return False


def width(text: str) -> int:
    """Terminal columns of `text` (combining accents take none)."""
    if text.isascii():
        return len(text)
    return len(text) - sum(1 for char in text if unicodedata.combining(char))
