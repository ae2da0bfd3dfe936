"""typer's parameters for the options of mrtr_cli/definition/option_table.py and the arguments of
mrtr_cli/definition/command_table.py, and the group builders that turn them into Options objects.

Each option is declared once, in the table; here each entry becomes a typer option (`typer_option`:
its names, metavar, help, panel, and a click type that reads the value with the table's reader), and
each group a builder (`options_of`): a plain function whose parameters are those typer options and
whose body builds the group's Options. `from_table` gives a command function the arguments and the
groups its entry of the command table names, and hands it the built objects.
"""

import enum
import functools
import inspect
from typing import Annotated, Any, Callable, Dict, List, Optional

import typer

from mrtr_cli.definition.command_table import Argument, Command
from mrtr_cli.definition.option_table import BY_NAME, GROUPS, PANELS, TEXT, Option, Reader, of_group


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
def _enum(name: str, choices: tuple[str, ...]) -> Any:
    """typer's choices for an option or argument of `choices`: an Enum of them."""
    return enum.Enum(name.title().replace("_", ""), [(choice, choice) for choice in choices], type=str)


def _choices(option: Option) -> Any:
    return _enum(option.field, option.choices)


def typer_option(option: Option, **extra: Any) -> Any:
    """The typer annotation of one entry of the table (`extra`: more of typer.Option's settings)."""
    settings: Dict[str, Any] = {"help": option.help, "rich_help_panel": PANELS.get(option.group), **extra}
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


def named(name: str, **extra: Any) -> Any:
    """The typer annotation of the entry called `name` (`--version`)."""
    return typer_option(BY_NAME[name], **extra)


def typer_argument(argument: Argument) -> Any:
    """The typer annotation of one argument of the command table."""
    settings: Dict[str, Any] = {"help": argument.help}
    if argument.metavar is not None:
        settings["metavar"] = argument.metavar
    kind: Any = _enum(argument.name, argument.choices) if argument.choices else str
    kind = List[kind] if argument.many else kind
    return Annotated[kind if argument.required else Optional[kind], typer.Argument(**settings)]


def _argument_value(given: Any) -> Any:
    """What typer gave for an argument, as the command takes it: a choice as its text."""
    return given.value if isinstance(given, enum.Enum) else given


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


def command_of(app: Any, entry: Command) -> Callable[[Callable[..., int]], Any]:
    """Register a function as the command of `entry` (command_table.py) in the typer `app`: its
    name, help, arguments and option groups; mrtr's own help (cli/help_command.py)."""
    from mrtr_cli.cli.help_command import HelpCommand

    def register(function: Callable[..., int]) -> Any:
        return app.command(entry.name, cls=HelpCommand, help=entry.help)(from_table(entry)(function))

    return register


def from_table(entry: Command) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Give a command the arguments and the option groups of its `entry` in the command table: it
    receives each argument by its name and each group's Options by the group's name."""
    builders = {group: options_of(group, *fields, server_command=_takes_server_command(group, fields))
                for group, fields in entry.groups}
    arguments = [inspect.Parameter(argument.name, inspect.Parameter.KEYWORD_ONLY, annotation=typer_argument(argument),
                                   default=inspect.Parameter.empty if argument.required else None)
                 for argument in entry.arguments]
    return with_groups(arguments, **builders)


def _takes_server_command(group: str, fields: tuple[str, ...]) -> bool:
    """Whether `group`'s Options carry the `-- CMD ARGS` cli.run cut off: the whole target group's,
    and `mrtr proxy`'s (the server its stdio shim runs; `mrtr shell` takes only its --record-dir)."""
    return (group == "target" or group == "proxying") and not fields


def with_groups(own: List[inspect.Parameter],
                **builders: Callable[..., Any]) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Give a command the parameters `own` and the options of each group builder; it receives the
    built objects by name."""

    def decorate(command: Callable[..., int]) -> Callable[..., int]:
        grouped = {name: inspect.signature(b).parameters for name, b in builders.items()}
        extra = [p for params in grouped.values() for p in params.values()]

        @functools.wraps(command)
        def wrapper(**values: Any) -> int:
            built = {name: builders[name](**{p: values.pop(p) for p in params}) for name, params in grouped.items()}
            given = {name: _argument_value(value) for name, value in values.items()}
            raise typer.Exit(command(**given, **built))

        parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own + extra]
        wrapper.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper

    return decorate
