"""The manifest's small expression language: integer arithmetic over M, N, K (and SMS in dispatch
conditions) with cdiv, min and max, evaluated by walking Python's own parse tree, never by eval."""

from __future__ import annotations

import ast
import operator


# Names the manifest's expressions may use besides M, N and K.
_FUNCTIONS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}


_BINARY_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


# Comparisons and and/or, for the `when` conditions of dispatch rules (true is 1, false 0).
_COMPARE_OPS = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


Expr = int | str


# Bounds on an expression, checked before `ast.parse` (whose recursion a long chain of terms
# exhausts): launch geometry and dispatch conditions are a line, not a program.
MAX_EXPR_CHARS = 400


MAX_EXPR_DEPTH = 24  # nested parentheses or calls


# The SM count an expression is evaluated with where no GPU is at hand (checking a manifest,
# deriving rules from a run that did not record its GPU): an H100 SXM's and an H200's.
DEFAULT_SMS = 132


def evaluate(expr: Expr, M: int, N: int, K: int, SMS: int | None = None) -> int:
    """Evaluate an integer expression over M, N, K (arithmetic, cdiv, min, max, comparisons,
    and/or; nothing else). `SMS` (the GPU's SM count) is a name only where it is given: dispatch
    conditions and launch geometry have it (a persistent grid of one CTA an SM is `min(tiles,
    SMS)`, on whatever GPU it runs), a kernel's contract does not.
    Every way it can fail (syntax, size, division by zero, a name or operator not allowed, a
    value that is not an expression) is a ValueError."""
    try:
        return _evaluate(expr, M, N, K, SMS)
    except ZeroDivisionError:
        raise ValueError(f"{expr!r} divides by zero at M={M}, N={N}, K={K}") from None
    except SyntaxError as exc:
        raise ValueError(f"{expr!r} is not an expression ({exc.msg})") from None
    except (TypeError, RecursionError, MemoryError, OverflowError) as exc:
        raise ValueError(f"{str(expr)[:60]!r} cannot be evaluated ({type(exc).__name__})") from None


def _evaluate(expr: Expr, M: int, N: int, K: int, SMS: int | None = None) -> int:
    if isinstance(expr, bool) or not isinstance(expr, (int, str)):
        raise ValueError(f"an expression must be an integer or a string, not {type(expr).__name__} {str(expr)[:40]!r}")
    if isinstance(expr, int):
        return expr
    if len(expr) > MAX_EXPR_CHARS:
        raise ValueError(f"expression of {len(expr)} characters; at most {MAX_EXPR_CHARS}")
    depth = deepest = 0
    for ch in expr:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    if deepest > MAX_EXPR_DEPTH:
        raise ValueError(f"expression nests {deepest} parentheses deep; at most {MAX_EXPR_DEPTH}")
    names = {"M": M, "N": N, "K": K} | ({} if SMS is None else {"SMS": SMS})

    def walk(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY_OPS:
            return _BINARY_OPS[type(node.op)](walk(node.left), walk(node.right))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS
            and not node.keywords
        ):
            return _FUNCTIONS[node.func.id](*(walk(a) for a in node.args))
        if isinstance(node, ast.Compare) and all(type(op) in _COMPARE_OPS for op in node.ops):
            values = [walk(node.left), *(walk(c) for c in node.comparators)]
            return int(all(_COMPARE_OPS[type(op)](a, b) for op, a, b in zip(node.ops, values, values[1:])))
        if isinstance(node, ast.BoolOp):
            results = [walk(v) for v in node.values]
            return int(all(results) if isinstance(node.op, ast.And) else any(results))
        raise ValueError(f"unsupported expression {ast.unparse(node)!r}")

    return int(walk(ast.parse(expr, mode="eval")))
