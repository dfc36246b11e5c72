"""What a problem is to the generic machinery: the `Problem` and `Method` records.

A problem package builds one `Problem` (its Instance and Solution types, its
validator and evaluator, its schema, generators and importers) and adds its
methods to it (`Problem.add_method`, `Problem.add_dispatcher`); registration
and look-up are in `registration`, running in `registry`.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import params as params_module
from .errors import OptionError, UnknownMethodError
from .result import Result

#: Kinds of method, in the order tables list them.
METHOD_KINDS = ("exact", "special", "heuristic", "baseline", "brute-force")


class MethodFunction(Protocol):
    """The contract of every method: ``(instance, /, *, time_limit, seed, params) -> Result``.

    ``time_limit`` covers the whole method, model building included (the
    registry always passes one); ``seed`` makes randomized methods
    repeatable; ``params`` is the method's frozen Params dataclass, built and
    checked by the registry, or None for a method without options. The
    Result's ``problem`` and ``method`` are set by the registry.
    """

    def __call__(self, instance: Any, /, *, time_limit: float, seed: int, params: Any) -> Result: ...


@dataclass(frozen=True)
class Method:
    """A registered method.

    Attributes
    ----------
    name
        The name users type (``--method NAME``).
    func
        A `MethodFunction`: ``(instance, /, *, time_limit, seed, params) -> Result``.
    kind
        One of `METHOD_KINDS`.
    summary
        One line for ``hpcsched methods``; defaults to the docstring's first line.
    params_type
        The method's frozen Params dataclass (None: the method has no options).
    choose
        For a dispatcher (`Problem.add_dispatcher`): ``instance -> name`` of
        the method that runs; None for a method that runs itself. A chooser
        that does work of its own (a class test) takes a keyword
        ``time_limit`` too and stays within a share of it: the choice counts
        in the method's time limit (`hpcsched.core.registry.run_method`).
    answers
        None for a method that answers the problem's question. Otherwise the
        other question it answers, in a few words (``"preemptive schedule:
        kernels may be split"``, a relaxation or a reference outside the
        solution space): its objective may beat the problem's optimum, so
        ``compare`` and study reports label it and never rank it against
        the others (it sets no best known value or bound, and stays out of
        gap-to-best and performance profiles). A dispatcher answers what the
        method it chose answers.
    """

    name: str
    func: Callable[..., Result]
    kind: str
    summary: str
    params_type: type | None = None
    choose: Callable[..., str] | None = None
    answers: str | None = None

    def build_params(self, options: Mapping[str, Any]) -> Any:
        """The method's Params for ``options`` (None for a method without options).

        This is the one check of a method's options: the CLI, the studies and
        `run_method` all call it. Raises `OptionError` naming
        ``options.<name>`` for an unknown, ill-typed or out-of-range option.
        """
        if self.params_type is None:
            if options:
                name = sorted(options)[0]
                raise OptionError(f"options.{name}", f"method '{self.name}' has no options")
            return None
        return params_module.build(self.params_type, options)


@dataclass
class Problem:
    """Everything the generic machinery (I/O, CLI, studies) needs of a problem.

    Attributes
    ----------
    name
        Problem name, also the ``problem`` key of its files.
    instance_type, solution_type
        Frozen dataclasses with ``from_data``/``to_data`` (see ARCHITECTURE).
    evaluate
        ``(instance, solution) -> dict`` with at least ``"objective"``.
    validate
        ``(instance, solution) -> list[Violation]`` ([] means feasible).
    default_method
        What ``hpcsched solve`` runs without ``--method``.
    data_schema
        JSON Schema of the ``data`` section of an instance file.
    generators
        Family name -> ``(*, seed, **params) -> Instance``.
    importers
        Trace format -> ``(path, **options) -> Instance``.
    plot
        ``plot_solution(instance, solution, ax=None) -> Axes`` or None (an
        older plugin's ``(instance, solution, path) -> None`` still works:
        the CLI looks at the signature).
    lower_bound
        ``instance -> float``: the best cheap lower bound, or None.
    file_formats
        Extra file suffixes (e.g. ``".npz"`` for very large instances) ->
        ``(read(path) -> Instance, write(instance, path) -> None)``; JSON is
        always supported.
    """

    name: str
    # type[Any]: each problem's own frozen dataclass, whose ``from_data``/``to_data``
    # (keyword defaults differ between problems) the file readers call.
    instance_type: type[Any]
    solution_type: type[Any]
    evaluate: Callable[[Any, Any], dict[str, float]]
    validate: Callable[[Any, Any], list]
    default_method: str
    data_schema: dict[str, Any]
    generators: dict[str, Callable[..., Any]] = field(default_factory=dict)
    importers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    plot: Callable[..., Any] | None = None
    lower_bound: Callable[[Any], float] | None = None
    file_formats: dict[str, tuple[Callable[[Any], Any], Callable[[Any, Any], None]]] = field(default_factory=dict)
    methods: dict[str, Method] = field(default_factory=dict)

    def add_method(
        self,
        name: str,
        func: Callable[..., Result],
        *,
        kind: str,
        summary: str | None = None,
        params: type | None = None,
        answers: str | None = None,
    ) -> None:
        """Register ``func`` under ``name``.

        ``func`` follows `MethodFunction`; ``params`` is its frozen Params
        dataclass (None: the method has no options); ``answers`` names the
        other question the method answers, if it does not answer the
        problem's own (see `Method`).

        Raises
        ------
        ValueError
            An unknown ``kind``.
        TypeError
            ``func`` does not take ``params`` (the keyword-option style of
            older plugins is gone: options come as one Params dataclass).
        """
        if kind not in METHOD_KINDS:
            raise ValueError(f"method kind must be one of {METHOD_KINDS}, got {kind!r}")
        if "params" not in inspect.signature(func).parameters:
            raise TypeError(
                f"method '{name}' of problem '{self.name}' must take (instance, /, *, time_limit, seed, params); "
                "options come as one frozen Params dataclass (see docs/architecture.md)"
            )
        if summary is None:
            summary = _first_line(func)
        if answers is not None and not (isinstance(answers, str) and answers.strip()):
            raise ValueError(f"answers of method '{name}' must be a non-empty description, got {answers!r}")
        self.methods[name] = Method(name, func, kind, summary, params_type=params, answers=answers)

    def add_dispatcher(self, name: str, choose: Callable[..., str], *, kind: str, summary: str) -> None:
        """Register ``name`` as the method ``choose(instance)`` names.

        The chosen method runs with the user's options, checked against its
        own Params; its Result keeps the dispatcher's name and says in a note
        which method ran.
        """
        if kind not in METHOD_KINDS:
            raise ValueError(f"method kind must be one of {METHOD_KINDS}, got {kind!r}")
        self.methods[name] = Method(name, _dispatch_error, kind, summary, choose=choose)

    def resolve(self, name: str, instance: Any, time_limit: float | None = None) -> Method:
        """The method that runs for ``name`` on ``instance`` (a dispatcher's choice).

        ``time_limit`` (seconds, None: no limit) reaches a chooser that
        declares a ``time_limit`` keyword; the others take the instance only.
        """
        entry = self.method(name)
        if entry.choose is None:
            return entry
        if "time_limit" in inspect.signature(entry.choose).parameters:
            return self.method(entry.choose(instance, time_limit=time_limit))
        return self.method(entry.choose(instance))

    def method(self, name: str) -> Method:
        """The registered method ``name``.

        Raises
        ------
        UnknownMethodError
            Naming the problem, the closest known name when one is close
            (``did you mean 'cpsat'?``, a typo's usual fix) and every known name.
        """
        try:
            return self.methods[name]
        except KeyError:
            known = ", ".join(sorted(self.methods))
            close = difflib.get_close_matches(name, list(self.methods), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise UnknownMethodError(
                f"unknown method '{name}' for problem '{self.name}'{hint} (known: {known})"
            ) from None


def _first_line(func: Callable[..., Any]) -> str:
    """The summary of a docstring: its first paragraph, on one line (it may wrap in the source)."""
    doc = (func.__doc__ or "").strip()
    return " ".join(line.strip() for line in doc.split("\n\n")[0].splitlines())


def _dispatch_error(instance: Any, /, **_: Any) -> Result:
    raise TypeError("a dispatcher is resolved by the registry, not called")
