"""typer's parameters for the options of mrtr_cli/option_table.py, and the group builders that turn
them into Options objects.

Each option is declared once, in the table; here each entry becomes a typer option (`typer_option`:
its names, metavar, help, panel, and a click type that reads the value with the table's reader), and
each group a builder (`options_of`): a plain function whose parameters are those typer options and
whose body builds the group's Options. `with_groups` adds a group's parameters to a command and hands
the command the built object.
"""

import enum
import functools
import inspect
from typing import Annotated, Any, Callable, Dict, List, Optional

import typer

from mrtr_cli.option_table import BY_NAME, GROUPS, PANELS, TEXT, Option, Reader, of_group

OUTPUT, TRANSCRIPTS = PANELS["output"], PANELS["recording"]
"""The panels of the options subcommands.py declares itself (replay's and check's own)."""


def click_module() -> Any:
    """The click typer runs on (typer 0.29 vendors its own; older typer uses click)."""
    vendored = getattr(typer, "_click", None)
    if vendored is not None:
        return vendored
    import click

    return click


@functools.cache
def _read_by(click_type: Any, read: Callable[[str], Any]) -> Any:
    """A click type (a number range's help shows its bounds) whose values `read` converts: the same
    reader as the fast parser's, and its ValueError is what the user reads."""

    class ReadBy(click_type):  # type: ignore[misc]  # a base chosen at run time
        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                return read(str(value))
            except ValueError as error:
                self.fail(str(error), param, ctx)

    return ReadBy


def _click_type(reader: Reader) -> Any:
    """The click type of a value read by `reader`: a number range for a number, else text."""
    types = click_module().types
    if reader.number is float:
        return _read_by(types.FloatRange, reader.read)(min=reader.low, max=reader.high)
    if reader.number is int:
        return _read_by(types.IntRange, reader.read)(min=reader.low, max=reader.high)
    return _read_by(types.StringParamType, reader.read)()


@functools.cache
def _choices(option: Option) -> Any:
    """typer's choices for an option of `choices`: an Enum of them."""
    return enum.Enum(option.field.title().replace("_", ""), [(choice, choice) for choice in option.choices], type=str)


def typer_option(option: Option) -> Any:
    """The typer annotation of one entry of the table."""
    settings: Dict[str, Any] = {"help": option.help, "rich_help_panel": PANELS.get(option.group)}
    if option.metavar is not None:
        settings["metavar"] = option.metavar
    kind: Any = Optional[str]
    if option.kind == "flag":
        kind = bool
    elif option.kind == "many":
        kind = Optional[List[str]]
    elif option.choices:
        kind = Optional[_choices(option)]
    elif option.reader != TEXT:
        settings["click_type"] = _click_type(option.reader)
    return Annotated[kind, typer.Option(*option.names, **settings)]


def named(name: str) -> Any:
    """The typer annotation of the entry called `name` (`--arg`)."""
    return typer_option(BY_NAME[name])


def _typer_default(option: Option) -> Any:
    """The default typer shows and reads: None for a list, a choice as typer's Enum, a value written
    as it would be typed when the reader says how (`64M`)."""
    default = option.default
    if option.kind == "many" or default is None:
        return None
    if option.choices:
        return _choices(option)(default)
    return option.reader.text(default) if option.reader.text else default


def _value(option: Option, given: Any) -> Any:
    """What typer gave for `option`, as its Options field holds it."""
    if option.kind == "many":
        return tuple(given or ())
    return given.value if isinstance(given, enum.Enum) else given


def options_of(group: str, *fields: str, server_command: bool = False) -> Callable[..., Any]:
    """The builder of `group`'s Options from typer's options of its entries (all, or those of
    `fields` in that order). With `server_command`, it also takes the click context, whose `obj` is
    the `-- CMD ARGS` that cli.run cut off (TargetOptions.command)."""
    entries = of_group(group, fields)

    def build(context: Any = None, **values: Any) -> Any:
        built = GROUPS[group](**{option.field: _value(option, values[option.field]) for option in entries})
        return built._replace(command=tuple(context.obj or ())) if context is not None else built

    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter(option.field, keyword, default=_typer_default(option),
                                    annotation=typer_option(option)) for option in entries]
    if server_command:
        parameters.insert(0, inspect.Parameter("context", keyword, annotation=typer.Context))
    build.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    build.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return build


target_options = options_of("target", server_command=True)
answering_options = options_of("answering")
output_options = options_of("output")
recording_options = options_of("recording")


def with_groups(**builders: Callable[..., Any]) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Give a command the options of each group builder; it receives the built objects by name."""

    def decorate(command: Callable[..., int]) -> Callable[..., int]:
        own = [p for name, p in inspect.signature(command).parameters.items() if name not in builders]
        grouped = {name: inspect.signature(b).parameters for name, b in builders.items()}
        extra = [p for params in grouped.values() for p in params.values()]

        @functools.wraps(command)
        def wrapper(**values: Any) -> int:
            built = {name: builders[name](**{p: values.pop(p) for p in params}) for name, params in grouped.items()}
            raise typer.Exit(command(**values, **built))

        parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own + extra]
        wrapper.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper

    return decorate
