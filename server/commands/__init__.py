"""One module per `campo` sub-command: `register(parser)` adds its arguments, `run(args)` does it.

The module name with `_` turned into `-` is the command's name; its docstring's first line is the
help text. Modules stay thin: parse, call the package that owns the work, print.
"""
