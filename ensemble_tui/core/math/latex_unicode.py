"""One LaTeX formula as Unicode text a terminal can show: `\\frac{QK^T}{\\sqrt{d_k}}` -> `QKᵀ/√dₖ`.

pylatexenc parses the formula into a node tree (groups, macros with their arguments,
environments), so braces, `\\left`/`\\right` and nesting are read by a maintained parser, not by
regular expressions. unicodeit's tables (4,000+ macros: Greek, operators, arrows, relations,
blackboard/bold/calligraphic letters, sub- and superscript characters) name the symbols. What
neither library does is the layout: fractions as `a/b` with brackets where needed, scripts in
Unicode where every character has a sub/superscript form and `_(..)`/`^(..)` otherwise, and
matrices, cases and aligned equations as rows. That is this module. A formula with a command it
does not know raises `Unconvertible`, so the caller shows it raw rather than half-converted.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from pylatexenc import latexwalker, macrospec

from ensemble_tui.core.math.latex_layout import Box, delimiter_column, hstack, layout_rows
from ensemble_tui.core.math.latex_symbols import (
    ACCENTS,
    ALIGNED,
    CASES,
    CLOSERS,
    CLOSING,
    FONT_ALIAS,
    FONTS,
    FRACTIONS,
    FUNCTIONS,
    GATHERED,
    IGNORED,
    MATRICES,
    ONE_ARGUMENT,
    OPENERS,
    OPENING,
    OPERATORS,
    PLAIN_TEXT,
    SYMBOLS,
    TWO_ARGUMENTS,
    UPRIGHT,
    accent,
    bracketed,
    denominator,
    fonted,
    is_atom,
    script,
    width,
)


class Unconvertible(ValueError):
    """The formula uses something this converter cannot show faithfully."""


@lru_cache(maxsize=1)
def _context() -> macrospec.LatexContextDb:
    """A math-only parsing context: no text-mode ligatures (`--`, `''`), `&` a column break."""
    one_arg = FONTS | PLAIN_TEXT | UPRIGHT | set(ACCENTS)
    macros = [macrospec.MacroSpec(name, "{") for name in one_arg]
    macros += [macrospec.MacroSpec(name, spec) for name, spec in ONE_ARGUMENT.items()]
    macros += [macrospec.MacroSpec(name, "{{") for name in TWO_ARGUMENTS]
    environments = [macrospec.EnvironmentSpec(name, "") for name in (*MATRICES, *CASES, *ALIGNED, *GATHERED)]
    environments.append(macrospec.EnvironmentSpec("array", "{"))
    environments.append(macrospec.EnvironmentSpec("alignat", "{"))
    environments.append(macrospec.EnvironmentSpec("alignat*", "{"))
    db = macrospec.LatexContextDb()
    db.add_context_category("math", macros=macros, environments=environments, specials=[macrospec.SpecialsSpec("&")])
    db.set_unknown_macro_spec(macrospec.MacroSpec(""))
    db.set_unknown_environment_spec(macrospec.EnvironmentSpec(""))
    return db


def latex_to_unicode(latex: str, display: bool = False) -> str:
    """The formula as Unicode; display math may span several lines (matrices, cases, aligned).
    Raises `Unconvertible` for a formula it cannot show faithfully."""
    converted = _cached(latex, display)
    if isinstance(converted, Unconvertible):
        raise converted
    return converted


@lru_cache(maxsize=4096)
def _cached(latex: str, display: bool) -> str | Unconvertible:
    """Failures are cached too: a reply is rendered again at every width it is laid out at."""
    try:
        return unicodedata.normalize("NFC", _convert(latex, display))  # ŷ as one character where Unicode has it
    except Unconvertible as error:
        return error
    except (IndexError, KeyError, TypeError, AttributeError, ValueError, RecursionError) as error:  # untrusted text
        return Unconvertible(f"{type(error).__name__}: {error}")


def _convert(latex: str, display: bool) -> str:
    walker = latexwalker.LatexWalker(latex, latex_context=_context(), tolerant_parsing=False)
    try:
        nodes, _, _ = walker.get_latex_nodes(parsing_state=walker.make_parsing_state(in_math_mode=True))
    except latexwalker.LatexWalkerError as error:
        raise Unconvertible(str(error).splitlines()[0]) from error
    tokens = _Converter(display).tokens(nodes)
    if display:
        rows = [_join(row) for row in _split(tokens, "row")]
        if len(rows) > 1:  # `a \\ b` at the top level: lines of their own
            return "\n".join(line.rstrip() for line in layout_rows([[row] for row in rows], "c", " "))
        return "\n".join(line.rstrip() for line in hstack(_boxes(tokens)).lines)
    return _join(tokens)


# A token is (kind, value): kind "t" text, "_"/"^" script marks, "&" column, "row", "box", "infix"
# (`\choose`), and "left"/"right"/"delim": a bracket (as tall as a box beside it in display math).
Token = tuple[str, object]


class _Converter:
    def __init__(self, display: bool) -> None:
        self.display = display

    def tokens(self, nodes: list | None, top: bool = True) -> list[Token]:
        out: list[Token] = []
        pending: str | None = None  # "left"/"right"/"not": the next symbol is a delimiter / is negated
        for node in nodes or []:
            produced = self._node(node, top)
            if pending and produced:
                produced, pending = _apply_pending(pending, produced), None
            if isinstance(node, latexwalker.LatexMacroNode) and node.macroname in ("left", "right", "middle", "not"):
                pending = node.macroname
            out.extend(produced)
        return _infix(_space_fractions(_attach_scripts(_tidy_spaces(out))))

    def text(self, nodes: list | None) -> str:
        return _join(self.tokens(nodes, top=False))

    def _node(self, node: object, top: bool) -> list[Token]:
        if isinstance(node, latexwalker.LatexCharsNode):
            return _chars(node.chars)
        if isinstance(node, latexwalker.LatexGroupNode):
            return [("t", self.text(node.nodelist))] if node.delimiters[0] == "{" else _chars(node.latex_verbatim())
        if isinstance(node, latexwalker.LatexSpecialsNode):
            return [("&", "&")]
        if isinstance(node, latexwalker.LatexMacroNode):
            return self._macro(node)
        if isinstance(node, latexwalker.LatexEnvironmentNode):
            return self._environment(node, top)
        if isinstance(node, latexwalker.LatexMathNode):
            return [("t", self.text(node.nodelist))]
        if isinstance(node, latexwalker.LatexCommentNode):
            return []
        raise Unconvertible(type(node).__name__)

    def _args(self, node: latexwalker.LatexMacroNode) -> list[object | None]:
        return list(node.nodeargd.argnlist) if node.nodeargd else []

    def _arg(self, arg: object | None) -> str:
        if arg is None:
            return ""
        return self.text(arg.nodelist if isinstance(arg, latexwalker.LatexGroupNode) else [arg])

    def _macro(self, node: latexwalker.LatexMacroNode) -> list[Token]:
        name, args = node.macroname, self._args(node)
        space = [("t", " ")] if node.macro_post_space and name.isalpha() else []
        if name == "\\":
            return [("row", "")]
        if name in ("choose", "over", "atop"):
            return [("infix", name)]
        if name in OPENERS:
            return [("left", SYMBOLS[name])]
        if name in CLOSERS:
            return [("right", SYMBOLS[name]), *space]
        if name in SYMBOLS:
            return [("t", SYMBOLS[name]), *(space if name != "partial" else [])]
        if name in FUNCTIONS:
            return [("t", name), *space]
        if name in IGNORED or name in ("label", "vphantom", "color", "not"):
            return []
        texts = [self._arg(arg) for arg in args]
        if name in FONTS:
            return [("t", fonted(FONT_ALIAS.get(name, name), texts[0]))]
        if name in UPRIGHT:
            return [("t", _plain_text(args[0]))]
        if name in PLAIN_TEXT:
            return [("t", _plain_text(args[0], self))]
        if name in ACCENTS:
            return [("t", accent(name, texts[0]))]
        return [("frac" if name in FRACTIONS else "t", self._structure(name, texts))]

    def _structure(self, name: str, texts: list[str]) -> str:
        if name in FRACTIONS:
            return f"{bracketed(texts[0])}/{denominator(texts[1])}"
        if name in ("binom", "dbinom", "tbinom"):
            return f"({texts[0]} choose {texts[1]})"
        if name == "sqrt":
            root = {"": "√", "2": "√", "3": "∛", "4": "∜"}.get(texts[0]) or script("^", texts[0]) + "√"
            return root + (texts[1] if is_atom(texts[1]) else f"({texts[1]})")
        if name in ("overset", "stackrel"):
            return texts[1] + script("^", texts[0])
        if name == "underset":
            return texts[1] + script("_", texts[0])
        if name in ("underbrace", "overbrace", "textcolor"):
            return texts[-1]
        if name == "boxed":
            return f"[{texts[0]}]"
        if name == "substack":
            return texts[0].replace("\n", ", ")
        if name == "pmod":
            return f" (mod {texts[0]})"
        if name == "tag":
            return f"    ({texts[-1]})"
        if name in ("phantom", "hphantom"):
            return " " * width(texts[0])
        raise Unconvertible(f"\\{name}")

    def _environment(self, node: latexwalker.LatexEnvironmentNode, top: bool) -> list[Token]:
        name = node.environmentname
        tokens = self.tokens(node.nodelist, top=False)
        rows = [[_join(cell) for cell in _split(row, "&")] for row in _split(tokens, "row")]
        while rows and not any(cell for cell in rows[-1]):
            rows.pop()
        if name in MATRICES:
            left, right = (MATRICES[name] or "  ")[0].strip(), (MATRICES[name] or "  ")[1].strip()
            if not (self.display and top):
                return [("t", left + "; ".join(" ".join(row) for row in rows) + right)]
            box = Box(layout_rows(rows, "c", "  "))
            return [("box", hstack([delimiter_column(left, box.height), box, delimiter_column(right, box.height)]))]
        if name in CASES:
            brace = CASES[name]
            if not (self.display and top):
                inner = "; ".join(", ".join(cell for cell in row if cell) for row in rows)
                return [("t", "{" + inner + "}" if brace == "{" else "{" + inner + "}")]
            box = Box(layout_rows(rows, "l", "   "))
            parts = [delimiter_column("{", box.height), Box([" "] * box.height), box]
            return [("box", hstack(parts if brace == "{" else [box, delimiter_column("}", box.height)]))]
        if name in ALIGNED or name in GATHERED:
            if not (self.display and top):
                return [("t", "; ".join(" ".join(cell for cell in row if cell) for row in rows))]
            align = "rl" if name in ALIGNED else "c"
            return [("box", Box(layout_rows(rows, align, " ")))]
        raise Unconvertible(f"\\begin{{{name}}}")


def _apply_pending(pending: str, produced: list[Token]) -> list[Token]:
    """The symbol after `\\left`/`\\right`/`\\middle` is a bracket; after `\\not`, it is struck through."""
    kind, value = produced[0]
    if not isinstance(value, str) or kind not in ("t", "left", "right") or not value.strip():
        return produced
    value = value.lstrip()
    head, rest = value[0], value[1:]
    if pending == "not":
        return [("t", unicodedata.normalize("NFC", head + "\u0338") + rest), *produced[1:]]
    tag = "delim" if pending == "middle" else pending
    return [(tag, "" if head == "." else head), *([("t", rest)] if rest else []), *produced[1:]]


def _chars(chars: str) -> list[Token]:
    out: list[Token] = []
    for char in chars:
        if char in "_^":
            out.append((char, char))
        elif char.isspace() or char == "~":
            if not out or out[-1] != ("t", " "):
                out.append(("t", " "))
        else:
            out.append(("t", "′" if char == "'" else char))
    return out


def _attach_scripts(tokens: list[Token]) -> list[Token]:
    """`x _ {i}` -> `xᵢ`: a script mark takes the next non-space token as its content."""
    out: list[Token] = []
    index = 0
    while index < len(tokens):
        kind, value = tokens[index]
        if kind in "_^" and kind != "t":
            index += 1
            while index < len(tokens) and tokens[index] == ("t", " "):
                index += 1
            takes = index < len(tokens) and tokens[index][0] in ("t", "frac", "left", "right", "delim")
            content = str(tokens[index][1]) if takes else ""
            while out and out[-1] == ("t", " "):
                out.pop()
            if out and out[-1][0] == "frac":  # (a/b)²
                out[-1] = ("t", f"({out[-1][1]})")
            out.append(("t", script(kind, content)))
        else:
            out.append((kind, value))
        index += 1
    return out


def _tidy_spaces(tokens: list[Token]) -> list[Token]:
    """One space where the source had several (`x \\, p`), none inside brackets (`\\langle u \\rangle`)."""
    out: list[Token] = []
    for token in tokens:
        if token == ("t", " ") and (not out or str(out[-1][1]).endswith(" ") or out[-1][0] == "left"):
            continue
        if token[0] == "right" and out and out[-1] == ("t", " "):
            out.pop()
        out.append(token)
    return out


def _space_fractions(tokens: list[Token]) -> list[Token]:
    """`1/n ∑ᵢ xᵢ`, `2 a/b`: a fraction written next to a term gets a space, so `/` binds visibly."""
    out: list[Token] = []
    for index, token in enumerate(tokens):
        if token[0] == "frac" and out and _touches(str(out[-1][1])[-1:], OPENING):
            out.append(("t", " "))
        out.append(token)
        following = str(tokens[index + 1][1])[:1] if index + 1 < len(tokens) else ""
        if token[0] == "frac" and _touches(following, CLOSING):
            out.append(("t", " "))
    return out


def _touches(char: str, brackets: str) -> bool:
    """Is `char` a term that would read as part of a fraction beside it (not a space, operator or bracket)?"""
    return bool(char) and char not in OPERATORS and char not in brackets and not unicodedata.combining(char)


def _infix(tokens: list[Token]) -> list[Token]:
    """`{n \\choose k}`, `{a \\over b}`: the group's two sides around the command."""
    for index, (kind, name) in enumerate(tokens):
        if kind == "infix":
            left, right = _join(tokens[:index]), _join(tokens[index + 1 :])
            if name == "choose":
                return [("t", f"({left} choose {right})")]
            return [("t", f"{bracketed(left)}/{denominator(right)}" if name == "over" else f"{left}; {right}")]
    return tokens


def _split(tokens: list[Token], kind: str) -> list[list[Token]]:
    parts: list[list[Token]] = [[]]
    for token in tokens:
        if token[0] == kind:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _join(tokens: list[Token]) -> str:
    """Tokens on one line: rows (`\\\\`) separated by "; ", boxes (display environments met inside a
    group) flattened the same way."""
    rows = [
        "".join("; ".join(value.lines) if isinstance(value, Box) else str(value) for kind, value in row if kind != "&")
        for row in _split(tokens, "row")
    ]
    return "; ".join(row.strip() for row in rows if row.strip())


def _boxes(tokens: list[Token]) -> list[Box]:
    """Display tokens as boxes side by side; `\\left(` ... `\\right)` grow to the height of what they hold."""
    height = max((value.height for kind, value in tokens if isinstance(value, Box)), default=1)
    boxes: list[Box] = []
    line = ""
    for kind, value in tokens:
        if isinstance(value, Box) or (kind in ("left", "right", "delim") and height > 1):
            if line:
                boxes.append(Box([line]))
                line = ""
            boxes.append(value if isinstance(value, Box) else delimiter_column(str(value), height))
        elif kind != "&":
            line += str(value)
    if line or not boxes:
        boxes.append(Box([line.strip() if not boxes else line.rstrip()]))
    if boxes and boxes[0].height == 1:
        boxes[0] = Box([boxes[0].lines[0].lstrip()])
    return boxes


def _plain_text(arg: object | None, converter: _Converter | None = None) -> str:
    """`\\text{if } x`: words as written, spaces kept; math inside (`$x$`) converted."""
    if arg is None:
        return ""
    nodes = arg.nodelist if isinstance(arg, latexwalker.LatexGroupNode) else [arg]
    parts = []
    for node in nodes:
        if isinstance(node, latexwalker.LatexCharsNode):
            parts.append(node.chars)
        elif converter is not None and isinstance(node, latexwalker.LatexMathNode):
            parts.append(converter.text(node.nodelist))
        elif isinstance(node, latexwalker.LatexMacroNode) and node.macroname in SYMBOLS:
            parts.append(SYMBOLS[node.macroname])
        elif isinstance(node, latexwalker.LatexGroupNode):
            parts.append(_plain_text(node, converter))
        else:
            raise Unconvertible(node.latex_verbatim())
    return "".join(parts)
