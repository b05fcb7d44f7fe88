"""Docstrings of the generated functions, from the headers' doxygen comments, in numpydoc layout.

`sections` splits a doxygen comment into its parts (brief, description, parameters, return text,
see-also names, notes); `Refs` turns the C references of the text into their Python form;
`render` writes the docstring: summary line, description, then the sections Parameters, Returns,
Raises, See Also and Notes, wrapped at WIDTH columns with the indentation of a function body.

Parameter descriptions are read here with their own parser, which knows the `\\param[in] name`
forms; `parse.doc_params` stays as the parameter classification reads it.
"""
import re
import textwrap

WIDTH = 88      # columns of a docstring line, the function body's indentation included
INDENT = 4      # that indentation

_CODE = "\0"    # marks a line of a literal block (\code ... \endcode) in the parsed sections

_PARAM = re.compile(r"^[\\@]param\s*(?:\[\s*(?:in|out|in\s*,\s*out)\s*\]\s*)?\**(\w+)\s*(.*)$")   # `\param *graphId` too
_CMD = re.compile(r"^[\\@](\w+)\b\s*(.*)$")
# blocks only one output format reads: the html one is kept (its table becomes a list)
_DROP_BLOCKS = {"latexonly": "endlatexonly", "xmlonly": "endxmlonly"}


# the commands that start a section: the lines that follow go into it
_SECTION_OF = {"brief": "brief", "details": "body", "return": "ret", "returns": "ret", "retval": "ret",
               "sa": "sa", "see": "sa"}


def sections(doc):
    """A doxygen comment -> dict(brief, body, params, ret, sa, notes), text as lists of lines
    (literal-block lines marked with _CODE); params maps a C parameter name to its lines."""
    p = _SectionReader()
    doc = re.sub(r"[\\@](code|endcode)\b(?:\{[^}]*\})?", r"\n\\\1\n", doc or "")    # on lines of their own
    for ln in doc.splitlines():
        p.line(ln)
    return p.out


class _SectionReader:
    """Reads a doxygen comment line by line into its sections (`out`); `target` is the list the
    next line of text goes into."""

    def __init__(self):
        self.out = dict(brief=[], body=[], params={}, ret=[], sa=[], notes=[])
        self.target = self.out["body"]
        self.skip_until = None
        self.in_code = False

    def line(self, ln):
        s = ln.strip()
        if self.skip_until:
            if s.startswith("\\" + self.skip_until):
                self.skip_until = None
        elif self.in_code:
            if re.match(r"^[\\@]endcode\b", s):
                self.in_code = False
            else:
                self.target.append(_CODE + ln.rstrip())
        elif not s:
            self.target = self.out["body"]
            self.target.append("")
        elif _PARAM.match(s):
            m = _PARAM.match(s)
            self.target = self.out["params"].setdefault(m.group(1), [])
            self.target.append(m.group(2).lstrip("-: "))
        else:
            m = _CMD.match(s)
            if m:
                self.command(m.group(1), m.group(2), s)
            else:
                self.target.append(s)

    def command(self, cmd, rest, s):
        """A line that starts with a doxygen command."""
        if cmd in _DROP_BLOCKS:
            self.skip_until = _DROP_BLOCKS[cmd]
        elif cmd in ("htmlonly", "endhtmlonly", "ingroup", "cond", "endcond") or \
                cmd == "notefnerr" or cmd.startswith("note_"):
            pass    # markers, and the headers' boilerplate note macros
        elif cmd == "code":
            self.in_code = True
            self.target.append("")
        elif cmd in _SECTION_OF:
            self.target = self.out[_SECTION_OF[cmd]]
            self.target.append(rest)
        elif cmd in ("note", "notes", "warning"):   # `\notes`: a misspelt \note in CUDA 13.5's cuda.h
            # CUDA 13.5's deprecation warnings: a note that says so
            self.out["notes"].append(["Warning: " + rest if cmd == "warning" else rest])
            self.target = self.out["notes"][-1]
        elif cmd == "par":
            self.target = self.out["body"]
            self.target += ["", rest]
        elif cmd == "deprecated":
            self.target = self.out["body"]
            self.target.append(("Deprecated: " + rest) if rest else "Deprecated.")
            self.target.append("")
        else:
            self.target.append(s)


class Refs:
    """The Python form of the C names of a module's text: an enum member is `Enum.MEMBER` (the
    snake_case modules' short enums: `Result.SUCCESS`); any other name is itself."""

    def __init__(self, model, short_enums=None, functions=None):
        self.functions = functions or {}     # C function name -> its Python name, where they differ
        self.member = {}
        for e in model.enums:
            short = (short_enums or {}).get(e.name)
            for n, _ in e.members:
                if short and n.startswith(short[1]):
                    self.member[n] = (short[0], n[len(short[1]):])
                else:
                    self.member.setdefault(n, (e.name, n))

    def __call__(self, name, bare_of=None):
        """`bare_of`: an enum whose members are written without the class (the status list)."""
        if name in self.member:
            cls, m = self.member[name]
            return m if cls == bare_of else f"{cls}.{m}"
        return self.functions.get(name, name)


_TAGS = re.compile(r"</?(?:b|i|em|tt|small|code|p|ul|ol|strong)>", re.I)
_O, _C = "\x01", "\x02"    # bracket an output's name while the output rules run
_ONE = f"{_O}\\*?\\w+{_C}"
_RETVERB = r"(?:[Rr]eturns?|[Rr]eturned|[Ss]tores?|[Ss]tored|[Ww]rites?|[Ww]ritten|[Pp]laced)"


def _inline(text, names, outs, refs, bare_of=None):
    """Markup of running text (no literal blocks) -> plain text with Python names.  names: C
    parameter name -> the name the Python function takes; outs: C names of the outputs."""
    t = text
    # html: tables and lists become "- " items, inline tags go
    t = re.sub(r"<table[^>]*>(.*?)</table>", lambda m: _table(m.group(1)), t, flags=re.S | re.I)
    t = re.sub(r"\s*<li>\s*", "\n- ", t, flags=re.I)
    t = re.sub(r"\s*</li>\s*", "\n", t, flags=re.I)
    t = re.sub(r"<br\s*/?>", " ", t, flags=re.I)
    t = _TAGS.sub("", t)
    t = t.replace("&times;", "x").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    # doxygen escapes and line breaks
    t = re.sub(r"\s*\\\\n\b", "", t)           # "a newline \\n" (an escaped \n): the word says it
    t = re.sub(r"\\n(?![A-Za-z])", "\n\n", t)   # \n: a forced line break
    t = re.sub(r"\\([_<>&#%$])", r"\1", t)
    # links: \link #enum MEMBER \endlink, \ref name
    t = re.sub(r"\\link\s+#?(?:::)?(\w+)\s+(.*?)\s*\\endlink",
               lambda m: refs(m.group(2).strip(), bare_of) if m.group(2).strip() in refs.member else m.group(2),
               t, flags=re.S)
    t = re.sub(r"\\ref\s+(?:::)?(\w+)", lambda m: refs(m.group(1), bare_of), t)
    # outputs: "returns in \p *x" -> "returns, as `x`,"; "in \p *x" -> "as `x`"
    def out_ref(m):
        star, n = m.group(1) or m.group(3) or "", m.group(2) or m.group(4)
        # an output, or a dereferenced name that is no parameter (the C text's own name for one)
        out = n in outs or (star and n not in names)
        return f"{_O}{star[:1]}{n}{_C}" if out else m.group(0)
    t = re.sub(r"\\p\s+(\**)(\w+)|(?<![\w*])(\*{1,2})(?:\\p\s+)?(\w+)", out_ref, t)
    several = f"{_ONE}(?:(?:,|,?\\s+and|,?\\s+or)\\s+{_ONE})*"
    t = re.sub(rf"\b({_RETVERB})\s+in\s+({several})(?=\s+[\w(])", r"\1, as \2,", t)
    t = re.sub(rf"\b({_RETVERB})\s+in\s+({several})", r"\1 as \2", t)
    t = re.sub(rf"\bin\s+({_O}\*\w+{_C}(?:(?:,|,?\s+and|,?\s+or)\s+{_ONE})*)", r"as \1", t)
    t = re.sub(f"{_O}\\*?(\\w+){_C}", lambda m: f"`{names.get(m.group(1), m.group(1))}`", t)
    # \p name (a parameter: its Python name), \c \e \b \a: the word itself
    t = re.sub(r"\\p\s+\*?(?:::)?(\w+)",
               lambda m: f"`{names[m.group(1)]}`" if m.group(1) in names else refs(m.group(1), bare_of), t)
    t = re.sub(r"\\[cebap]\s+", "", t)
    # C references: ::name, ::name(), ::Enum::MEMBER, #name
    t = re.sub(r"::\s*(\w+)(?:::(\w+))?(?:\(\))?", lambda m: refs(m.group(2) or m.group(1), bare_of), t)
    t = re.sub(r"(?<![\w&])#(?=[A-Za-z_])", "", t)
    return t


def _table(body):
    """An html table -> one "- " item per row, the cells joined by "; "."""
    rows = []
    for row in re.split(r"<tr[^>]*>", body, flags=re.I)[1:]:
        cells = [re.sub(r"<[^>]+>", " ", c) for c in re.split(r"<t[dh][^>]*>", row, flags=re.I)]
        cells = [" ".join(c.split()) for c in cells]
        cells = [c for c in cells if c]
        if cells:
            rows.append("- " + "; ".join(cells))
    return "\n\n" + "\n".join(rows) + "\n\n"


def _blocks(lines, conv):
    """Lines of one part -> blocks: ["p", text] paragraphs, ["li", text] list items and
    ["code", lines] literal blocks; conv converts running text."""
    out, buf = [], []

    def flush():
        text = conv("\n".join(buf))
        buf.clear()
        for chunk in re.split(r"\n\s*\n", text):
            cur = None
            for ln in chunk.splitlines():
                ln = ln.strip()
                if not ln:
                    continue
                if re.match(r"^(?:[-*]|\d+[.)])\s+", ln):
                    cur = ["li", ln]
                    out.append(cur)
                elif cur is None:
                    cur = ["p", ln]
                    out.append(cur)
                else:
                    cur[1] += " " + ln

    for ln in lines:
        if ln.startswith(_CODE):
            flush()
            # a C comment inside the header's comment is escaped there: `\/\* .reserved \*\/`
            code = re.sub(r"\\([/*])", r"\1", ln[1:])
            if out and out[-1][0] == "code":
                out[-1][1].append(code)
            else:
                out.append(["code", [code]])
        else:
            buf.append(ln)
    flush()
    for b in out:
        if b[0] == "code":
            while b[1] and not b[1][-1].strip():
                b[1].pop()
    return [b for b in out if b[1]]


def _wrap(blocks, indent):
    width = WIDTH - INDENT - indent
    pad = " " * indent
    out = []
    for i, (kind, body) in enumerate(blocks):
        if kind == "li":
            m = re.match(r"^(\S+\s+)", body)
            lead = m.group(1) if m else "- "
            rest = body[len(lead):]
            lead = lead.strip() + " "
            lines = textwrap.wrap(" ".join(rest.split()), width - len(lead), break_long_words=False,
                                  break_on_hyphens=False) or [""]
            out.append(pad + lead + lines[0])
            out.extend(pad + " " * len(lead) + ln for ln in lines[1:])
            if i + 1 < len(blocks) and blocks[i + 1][0] != "li":
                out.append("")
        elif kind == "code":
            if out and out[-1]:
                out.append("")
            out.extend((pad + "    " + ln).rstrip() for ln in body)
            out.append("")
        else:
            if out and out[-1]:
                out.append("")
            text = " ".join(body.split())
            out.extend(pad + ln for ln in textwrap.wrap(text, width, break_long_words=False,
                                                        break_on_hyphens=False))
            out.append("")
    while out and not out[-1]:
        out.pop()
    return out


def _sentence(text):
    """The first sentence of text, and the rest."""
    m = re.search(r"(?<![.\s]\w)(?<!e\.g)(?<!i\.e)\.\s+(?=[A-Z`])", text)
    if m:
        return text[:m.start() + 1], text[m.end():]
    return text, ""


class _Writer:
    """The lines of one docstring, from the sections of its doxygen comment (`sec`): running text
    converted with the Python names (`names`, `outs`, `refs`; `status`: the enum whose members the
    return text names bare), wrapped, and the numpydoc sections."""

    def __init__(self, sec, names, outs, refs, status):
        self.sec, self.names, self.outs, self.refs, self.status = sec, names, set(outs), refs, status
        self.lines = []

    def conv(self, text):
        return _inline(text, self.names, self.outs, self.refs, self.status)

    def text_of(self, lines, indent):
        blocks = _blocks(lines, self.conv)
        if blocks and all(k == "li" and re.fullmatch(r"- [\w.]+", b) for k, b in blocks):
            blocks = [["p", ", ".join(b[2:] for _, b in blocks)]]    # a list of status names
        return _wrap(blocks, indent)

    def head(self, title):
        self.lines.extend(["", title, "-" * len(title)])

    def item(self, name, typ, text_lines):
        self.lines.append(f"{name} : {typ}" if name else typ)
        self.lines.extend(self.text_of(text_lines, 4))

    def summary(self):
        """The summary line (the brief's first sentence; it follows the opening quotes), then the
        description."""
        brief = " ".join(self.conv(" ".join(self.sec["brief"])).split())
        summary, more = _sentence(brief)
        if summary and not summary.endswith((".", "!", "?")):
            summary += "."
        body = ([more, ""] if more else []) + self.sec["body"]
        self.lines = textwrap.wrap(summary, WIDTH - INDENT - 3, break_long_words=False) or [""]
        desc = self.text_of(body, 0)
        if desc:
            self.lines += [""] + desc

    def returns(self, returns):
        """The Returns section: [(python name or "", type, C name or a text)]."""
        self.head("Returns")
        if not returns:
            self.lines.append("None")
        for name, typ, what in returns:
            if what is None:
                self.item(name, typ, self.sec["ret"] or (["The status of the call."] if typ == self.status else []))
            elif what in self.sec["params"]:
                self.item(name, typ, self.sec["params"][what])
            else:
                self.item(name, typ, [what])

    def raises(self, exc, what, success):
        """The Raises section, which takes the return text, less the success member: it lists the
        statuses one per line."""
        ret = self.sec["ret"]
        failures = [ln for ln in ret if not re.search(r"(?<!\w)" + re.escape(success) + r"(?!\w)", ln)]
        if not any(ln.strip() for ln in failures):
            failures = []
        self.head("Raises")
        self.lines.append(exc)
        self.lines.extend(self.text_of([what + (":" if failures else ".")], 4))
        if failures:
            self.lines.extend([""] + self.text_of(failures, 4))

    def see_also(self):
        see = " ".join(" ".join(self.sec["sa"]).replace(",", " ").split())
        if see:
            self.head("See Also")
            seen = []
            for n in see.split():
                n = self.refs(self.conv(n).strip(".`"))
                if re.fullmatch(r"[A-Za-z_][\w.]*", n) and n not in seen:
                    seen.append(n)
            self.lines.extend(textwrap.wrap(", ".join(seen), WIDTH - INDENT, break_long_words=False,
                                            break_on_hyphens=False))

    def notes(self):
        if self.sec["notes"]:
            self.head("Notes")
            for i, n in enumerate(self.sec["notes"]):
                if i:
                    self.lines.append("")
                self.lines.extend(self.text_of(n, 0))


def render(doc, params, returns, *, names=None, outs=(), refs, status=None, raises=None):
    """The docstring text (lines joined, indented for a function body, no quotes) of a function.

    params: [(python name, type, C name)] of the Parameters section; returns: [(python name or "",
    type, C name or a text)] of the Returns section (a C name takes its \\param text); status: the
    status enum, whose members the return text names bare, next to its type; raises: (exception,
    what, the success member's C name) for a Raises section that takes the return text, less the
    success member (the snake_case functions)."""
    w = _Writer(sections(doc), dict(names or {}), outs, refs, status)
    w.summary()
    if params:
        w.head("Parameters")
        for name, typ, cname in params:
            w.item(name, typ, w.sec["params"].get(cname, []))
    w.returns(returns)
    if raises:
        w.raises(*raises)
    w.see_also()
    w.notes()
    lines = w.lines
    return "\n".join([lines[0]] + [(" " * INDENT + ln).rstrip() for ln in lines[1:]])


def quoted(text):
    """text as the body of a \"\"\" string of the generated source."""
    return text.replace("\\", "\\\\").replace('"""', "'''")


def enum_text(doc, refs, width=76):
    """The plain text of an enum's or an enum member's doxygen comment (group commands left out,
    C names in their Python form), its paragraphs wrapped at `width`."""
    lines = [ln for ln in doc.splitlines()
             if not re.match(r"\s*[\\@](?:ingroup|defgroup|addtogroup|typedef)\b|\s*@[{}]", ln)]
    t = re.sub(r"[\\@]brief\s+", "", "\n".join(lines))
    t = _inline(t, {}, (), refs)
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", t) if p.strip()]
    return "\n\n".join(textwrap.fill(p, width, break_long_words=False, break_on_hyphens=False) for p in paras)
