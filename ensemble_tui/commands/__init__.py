"""The commands, one module each, with the same two functions: `add_parser` adds its options;
`run(args, context)` runs it with what the shared set-up (context.py) made ready."""
