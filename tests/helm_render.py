"""Render deploy/helm/decider without helm, for the tests: the subset of Go templates it uses.

Implemented: text and {{ actions }} with `{{-` / `-}}` whitespace trimming and {{/* comments */}};
define and include; if / else if / else / end; pipelines (`x | f a`) and parenthesised
sub-pipelines; the fields `.`, .Values.*, .Release.Name/Namespace/Service and
.Chart.Name/Version/AppVersion; string and number literals; the functions and, contains,
default, include, nindent, not, printf (%s, %d), quote, toYaml, trimSuffix and trunc, with
Helm's (sprig's) semantics. Values merge as with `helm template -f`.

Stricter than helm on purpose: a missing value, an unknown function or printing a map
is an error here (helm prints an empty string or Go's map syntax), so such template
bugs fail the tests. A template that needs more than this subset fails to render, with
the construct named; widen the renderer rather than work around it.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


class TemplateError(Exception):
    """A template outside the subset this renderer implements, or a value it cannot render."""


# ---- lexing: text and actions ----

# a comment runs to "*/" (it may mention "}}"); any other action to the first "}}"
ACTION = re.compile(r"\{\{(-\s)?(/\*.*?\*/|.*?)(\s-)?\}\}", re.S)
TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>-?\d+(?:\.\d+)?)|(?P<field>(?:\.[A-Za-z_]\w*)+|\.)'
                   r'|(?P<ident>[A-Za-z_]\w*)|(?P<punct>[|()]))')


def lex(source: str) -> list[tuple[str, str]]:
    """[("text", s) | ("action", body)], with the trimming markers applied to the texts."""
    out: list[tuple[str, str]] = []
    pos, trim_next = 0, False
    for m in ACTION.finditer(source):
        text = source[pos:m.start()]
        if trim_next:
            text = text.lstrip()
        if m.group(1):
            text = text.rstrip()
        out.append(("text", text))
        out.append(("action", m.group(2).strip()))
        pos, trim_next = m.end(), bool(m.group(3))
    text = source[pos:]
    out.append(("text", text.lstrip() if trim_next else text))
    return [t for t in out if t != ("text", "")]


# ---- expressions ----

@dataclass
class Lit:
    value: Any


@dataclass
class Field:
    path: list[str]  # [] is the dot itself


@dataclass
class Ident:
    name: str


@dataclass
class Pipeline:
    commands: list[list[Any]]  # each command: operands (Lit, Field, Ident, Pipeline)


def parse_pipeline(source: str) -> Pipeline:
    tokens, pos = [], 0
    source = source.rstrip()
    while pos < len(source):
        m = TOKEN.match(source, pos)
        if not m or m.end() == pos:
            raise TemplateError(f"cannot parse {source[pos:]!r} in {{{{ {source} }}}}")
        pos = m.end()
        kind = m.lastgroup
        text = m.group(kind)
        if kind == "str":
            tokens.append(Lit(json.loads(text)))
        elif kind == "num":
            tokens.append(Lit(float(text) if "." in text else int(text)))
        elif kind == "field":
            tokens.append(Field([p for p in text.split(".") if p]))
        elif kind == "ident":
            if text in ("true", "false"):
                tokens.append(Lit(text == "true"))
            else:
                tokens.append(Ident(text))
        else:
            tokens.append(text)
    pipeline, rest = _pipeline(tokens, 0)
    if rest != len(tokens):
        raise TemplateError(f"unbalanced parentheses in {{{{ {source} }}}}")
    return pipeline


def _pipeline(tokens: list, i: int) -> tuple[Pipeline, int]:
    commands, command = [], []
    while i < len(tokens) and tokens[i] != ")":
        token = tokens[i]
        if token == "|":
            commands.append(command)
            command = []
            i += 1
        elif token == "(":
            sub, i = _pipeline(tokens, i + 1)
            if i >= len(tokens):
                raise TemplateError("missing ')'")
            command.append(sub)
            i += 1
        else:
            command.append(token)
            i += 1
    commands.append(command)
    if any(not c for c in commands):
        raise TemplateError("empty command in pipeline")
    return Pipeline(commands), i


# ---- statements ----

@dataclass
class Text:
    text: str


@dataclass
class Output:
    pipeline: Pipeline


@dataclass
class If:
    branches: list[tuple[Pipeline, list]] = field(default_factory=list)
    otherwise: list = field(default_factory=list)


def parse(source: str) -> tuple[list, dict[str, list]]:
    """The file's nodes and the templates it defines (define ... end)."""
    tokens = lex(source)
    defines: dict[str, list] = {}
    nodes, i, stop = _block(tokens, 0, defines)
    if stop is not None:
        raise TemplateError(f"unexpected {{{{ {stop} }}}}")
    return nodes, defines


def _block(tokens, i, defines) -> tuple[list, int, str | None]:
    """Nodes up to an `else ...` or `end` (returned as the stopper), or the end of input."""
    nodes = []
    while i < len(tokens):
        kind, body = tokens[i]
        i += 1
        if kind == "text":
            nodes.append(Text(body))
            continue
        word, _, rest = body.partition(" ")
        if body.startswith("/*"):
            if not body.endswith("*/"):
                raise TemplateError(f"unterminated comment {body[:30]!r}")
        elif word in ("end", "else"):
            return nodes, i, body
        elif word == "if":
            node = If()
            condition = parse_pipeline(rest)
            while True:
                branch, i, stop = _block(tokens, i, defines)
                node.branches.append((condition, branch))
                if stop is None:
                    raise TemplateError("{{ if }} without {{ end }}")
                if stop == "end":
                    break
                if stop.startswith("else if "):
                    condition = parse_pipeline(stop[len("else if "):])
                    continue
                if stop != "else":
                    raise TemplateError(f"unsupported {{{{ {stop} }}}}")
                node.otherwise, i, stop = _block(tokens, i, defines)
                if stop != "end":
                    raise TemplateError("{{ else }} without {{ end }}")
                break
            nodes.append(node)
        elif word == "define":
            name = json.loads(rest.strip())
            defines[name], i, stop = _block(tokens, i, defines)
            if stop != "end":
                raise TemplateError(f"{{{{ define {rest} }}}} without {{{{ end }}}}")
        elif word in ("range", "with", "template", "block", "tpl") or ":=" in body or body.startswith("$"):
            raise TemplateError(f"{{{{ {body} }}}} is outside the subset tests/helm_render.py implements")
        else:
            nodes.append(Output(parse_pipeline(body)))
    return nodes, i, None


# ---- evaluation ----

def go_text(value: Any) -> str:
    """What {{ value }} prints (Go's %v) for the types templates may print."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        # Helm reads every number in values as a float64, which %v prints in exponent form
        # from 1e6 up (1000000 -> 1e+06) and below 1e-4: a setting would then not parse
        if value and not 1e-4 <= abs(value) < 1e6:
            raise TemplateError(f"helm prints {value} in exponent form: quote it in the values")
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    if isinstance(value, str):
        return value
    raise TemplateError(f"cannot print {value!r} as text (use toYaml)")


def _indent(n: int, text: str) -> str:
    pad = " " * n
    return pad + text.replace("\n", "\n" + pad)


def _printf(fmt: str, *args) -> str:
    args = list(args)

    def verb(m):
        if m.group() == "%%":
            return "%"
        if not args:
            raise TemplateError(f"printf {fmt!r}: too few arguments")
        return go_text(args.pop(0))

    out = re.sub(r"%[sdv%]", verb, fmt)
    if args:
        raise TemplateError(f"printf {fmt!r}: too many arguments")
    return out


def _to_yaml(value: Any) -> str:
    if not isinstance(value, (dict, list)):
        raise TemplateError(f"toYaml of a scalar ({value!r}): print it instead")
    return yaml.safe_dump(value, default_flow_style=False, sort_keys=True).removesuffix("\n")


def _trunc(n: int, s: str) -> str:
    if n < 0:
        raise TemplateError("trunc with a negative length (keeps the end in sprig) is not implemented")
    return s[:n]


def _and(*args):
    for a in args:
        if not a:
            return a
    return args[-1]


class Renderer:
    def __init__(self, defines: dict[str, list]):
        self.defines = defines
        self.functions = {
            "and": _and,
            "contains": lambda substr, s: substr in s,
            "default": lambda fallback, value=None: value if value else fallback,
            "include": self.include,
            "nindent": lambda n, s: "\n" + _indent(n, s),
            "not": lambda v: not v,
            "printf": _printf,
            "quote": lambda v: json.dumps(go_text(v), ensure_ascii=False),
            "toYaml": _to_yaml,
            "trimSuffix": lambda suffix, s: s[: -len(suffix)] if suffix and s.endswith(suffix) else s,
            "trunc": _trunc,
        }

    def include(self, name: str, dot: Any) -> str:
        if name not in self.defines:
            raise TemplateError(f"include of undefined template {name!r}")
        return self.render(self.defines[name], dot)

    def render(self, nodes: list, dot: Any) -> str:
        out = []
        for node in nodes:
            if isinstance(node, Text):
                out.append(node.text)
            elif isinstance(node, Output):
                out.append(go_text(self.pipeline(node.pipeline, dot)))
            else:
                for condition, branch in node.branches:
                    if self.pipeline(condition, dot):
                        out.append(self.render(branch, dot))
                        break
                else:
                    out.append(self.render(node.otherwise, dot))
        return "".join(out)

    def pipeline(self, pipeline: Pipeline, dot: Any) -> Any:
        value, piped = None, False
        for command in pipeline.commands:
            head, args = command[0], command[1:]
            if isinstance(head, Ident):
                if head.name not in self.functions:
                    raise TemplateError(f"function {head.name!r} is outside the subset tests/helm_render.py "
                                        "implements")
                values = [self.operand(a, dot) for a in args] + ([value] if piped else [])
                value = self.functions[head.name](*values)
            elif args or piped:
                raise TemplateError(f"{head} is not a function: it takes no arguments")
            else:
                value = self.operand(head, dot)
            piped = True
        return value

    def operand(self, operand: Any, dot: Any) -> Any:
        if isinstance(operand, Lit):
            return operand.value
        if isinstance(operand, Pipeline):
            return self.pipeline(operand, dot)
        if isinstance(operand, Ident):
            raise TemplateError(f"function {operand.name!r} used as a value: parenthesise the call")
        value = dot
        for i, key in enumerate(operand.path):
            if not isinstance(value, dict) or key not in value:
                raise TemplateError(f"no value .{'.'.join(operand.path[: i + 1])}")
            value = value[key]
        return value


# ---- the chart ----

def merge_values(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_values(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def render_chart(chart: Path, values: dict | None = None, release: str = "decider",
                 namespace: str = "decider") -> dict[str, str]:
    """{"templates/<file>": rendered text} for every template that is not a partial (_*),
    NOTES.txt included, like `helm template --notes`."""
    meta = yaml.safe_load((chart / "Chart.yaml").read_text())
    merged = merge_values(yaml.safe_load((chart / "values.yaml").read_text()) or {}, values or {})
    dot = {"Values": merged,
           "Release": {"Name": release, "Namespace": namespace, "Service": "Helm"},
           "Chart": {"Name": meta["name"], "Version": meta["version"], "AppVersion": meta.get("appVersion", "")}}
    defines: dict[str, list] = {}
    files: dict[str, list] = {}
    for path in sorted((chart / "templates").iterdir()):
        try:
            nodes, found = parse(path.read_text())
        except TemplateError as e:
            raise TemplateError(f"{path.name}: {e}") from None
        defines.update(found)
        if not path.name.startswith("_"):
            files[f"templates/{path.name}"] = nodes
    renderer = Renderer(defines)
    out = {}
    for name, nodes in files.items():
        try:
            out[name] = renderer.render(nodes, dot)
        except TemplateError as e:
            raise TemplateError(f"{name}: {e}") from None
    return out


def manifests(rendered: dict[str, str]) -> list[dict]:
    """The Kubernetes objects of a rendering (NOTES.txt left out), in file order."""
    docs = []
    for name, text in rendered.items():
        if name.endswith(".yaml"):
            docs += [d for d in yaml.safe_load_all(text) if d]
    return docs
